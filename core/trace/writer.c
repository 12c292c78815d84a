/* writer.c - the exporters' output buffer. */
#include "trace/writer.h"

#include <stdarg.h>

int tct_writer_flush(struct tct_writer *w)
{
    if (w->len)
        fwrite(w->buf, 1, w->len, w->out);
    w->len = 0;
    return ferror(w->out);
}

void tct_write_text(struct tct_writer *w, const char *s, size_t len)
{
    if (len == 0)
        return; /* s may be NULL then: no pointer arithmetic on it */
    const char *end = s + len;
    while (s < end) {
        const char *nul = memchr(s, 0, (size_t)(end - s));
        const char *stop = nul ? nul : end;
        tct_write(w, s, (size_t)(stop - s));
        if (!nul)
            break;
        tct_write(w, "\\0", 2);
        s = nul + 1;
    }
}

void tct_write_u64(struct tct_writer *w, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tct_write(w, digits + sizeof digits - n, n);
}

void tct_write_i64(struct tct_writer *w, int64_t v)
{
    if (v < 0) {
        tct_write_char(w, '-');
        tct_write_u64(w, 0 - (uint64_t)v);
    } else {
        tct_write_u64(w, (uint64_t)v);
    }
}

void tct_write_fmt(struct tct_writer *w, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        tct_write(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
