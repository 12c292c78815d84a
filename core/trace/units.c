/* units.c - human-readable durations, counts and sizes. */
#include "trace/units.h"

#include <inttypes.h>
#include <stdio.h>

const char *tct_format_duration(char buf[TCT_UNITS_BUF], int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    double v = ns < 0 ? -(double)ns : (double)ns;
    if (v < 1e3)
        snprintf(buf, TCT_UNITS_BUF, "%s%.0f ns", sign, v);
    else if (v < 1e6)
        snprintf(buf, TCT_UNITS_BUF, "%s%.2f us", sign, v / 1e3);
    else if (v < 1e9)
        snprintf(buf, TCT_UNITS_BUF, "%s%.2f ms", sign, v / 1e6);
    else
        snprintf(buf, TCT_UNITS_BUF, "%s%.3f s", sign, v / 1e9);
    return buf;
}

const char *tct_format_count(char buf[TCT_UNITS_BUF], uint64_t n)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    char *o = buf;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            *o++ = ',';
        *o++ = digits[i];
    }
    *o = '\0';
    return buf;
}

const char *tct_format_bytes(char buf[TCT_UNITS_BUF], double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, TCT_UNITS_BUF, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}
