/* json.c - JSON strings and times for the Chrome exporter (json.h). */
#include "trace/json.h"

#include <string.h>

size_t tct_utf8_sequence(const unsigned char *p, size_t avail)
{
    if (!avail)
        return 0;
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else
        return 0;
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* Escapes s[0..len) for a JSON string: quotes, backslashes and control characters
 * escaped, invalid UTF-8 replaced by U+FFFD. */
void tct_json_chars(struct tct_writer *w, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            tct_write(w, (const char *)run, (size_t)(p - run));
        if (p == end)
            break;
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            tct_write_char(w, '\\');
            tct_write_char(w, (char)c);
            p++;
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            switch (c) {
            case '\n':
                tct_write(w, "\\n", 2);
                break;
            case '\r':
                tct_write(w, "\\r", 2);
                break;
            case '\t':
                tct_write(w, "\\t", 2);
                break;
            default:
                tct_write(w, esc, sizeof esc);
                break;
            }
            p++;
        } else {
            size_t n = tct_utf8_sequence(p, (size_t)(end - p));
            if (n) {
                tct_write(w, (const char *)p, n);
                p += n;
            } else {
                tct_write(w, "\xef\xbf\xbd", 3);
                p++;
            }
        }
    }
}

void tct_json_string(struct tct_writer *w, const char *s)
{
    tct_json_text(w, s, strlen(s));
}

void tct_json_text(struct tct_writer *w, const char *s, size_t len)
{
    tct_write_char(w, '"');
    tct_json_chars(w, s, len);
    tct_write_char(w, '"');
}

/* Nanoseconds as microseconds with every nanosecond digit. The trailing "01" (a hundredth
 * of a nanosecond) makes tracy-import-chrome's uint64(us * 1000.) land on the exact
 * nanosecond: without it, about 1% of values parse a hair below and truncate to ns - 1. */
void tct_json_us(struct tct_writer *w, int64_t ns)
{
    char *p = tct_write_room(w, 1 + TCT_U64_DIGITS + 6), *start = p;
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        *p++ = '-';
    p += tct_format_u64(p, mag / 1000);
    unsigned frac = (unsigned)(mag % 1000);
    p[0] = '.';
    p[1] = (char)('0' + frac / 100);
    p[2] = (char)('0' + frac / 10 % 10);
    p[3] = (char)('0' + frac % 10);
    p[4] = '0';
    p[5] = '1';
    w->len += (size_t)(p + 6 - start);
}
