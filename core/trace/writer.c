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

/* Two digits at a time: half the divisions of one at a time. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

size_t tct_format_u64(char *p, uint64_t v)
{
    char tmp[TCT_U64_DIGITS], *d = tmp + sizeof tmp;
    while (v >= 100) {
        d -= 2;
        memcpy(d, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        d -= 2;
        memcpy(d, digit_pairs + 2 * v, 2);
    } else {
        *--d = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - d);
    memcpy(p, d, n);
    return n;
}

void tct_write_u64(struct tct_writer *w, uint64_t v)
{
    w->len += tct_format_u64(tct_write_room(w, TCT_U64_DIGITS), v);
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
