/* writer.c - the exporters' output buffer. */
#include "trace/writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

int tct_writer_init(struct tct_writer *w, FILE *out)
{
    *w = (struct tct_writer){.out = out, .buf = malloc(TCT_WRITER_SIZE)};
    if (!w->buf) {
        errno = ENOMEM;
        return -1;
    }
    w->cap = TCT_WRITER_SIZE;
    return 0;
}

int tct_writer_flush(struct tct_writer *w)
{
    if (w->len)
        fwrite(w->buf, 1, w->len, w->out);
    w->len = 0;
    return ferror(w->out);
}

int tct_writer_finish(struct tct_writer *w)
{
    int failed = tct_writer_flush(w);
    free(w->buf);
    *w = (struct tct_writer){.out = w->out};
    return failed;
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

/* The number of decimal digits of v (> 0): log10 from log2, then one comparison. */
static size_t decimal_digits(uint64_t v)
{
    static const uint64_t powers[20] = {1u,
                                        10u,
                                        100u,
                                        1000u,
                                        10000u,
                                        100000u,
                                        1000000u,
                                        10000000u,
                                        100000000u,
                                        1000000000u,
                                        10000000000u,
                                        100000000000u,
                                        1000000000000u,
                                        10000000000000u,
                                        100000000000000u,
                                        1000000000000000u,
                                        10000000000000000u,
                                        100000000000000000u,
                                        1000000000000000000u,
                                        10000000000000000000u};
    size_t t = (size_t)(64 - __builtin_clzll(v)) * 1233 >> 12; /* log10(2) ~ 1233 / 4096 */
    return t + (v >= powers[t]);
}

size_t tct_format_u64(char *p, uint64_t v)
{
    if (v < 10) {
        *p = (char)('0' + v);
        return 1;
    }
    size_t n = decimal_digits(v);
    char *d = p + n; /* filled from the end, in place */
    while (v >= 100) {
        d -= 2;
        memcpy(d, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(d - 2, digit_pairs + 2 * v, 2);
    else
        d[-1] = (char)('0' + v);
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
