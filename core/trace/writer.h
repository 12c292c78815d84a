/* writer.h - a small output buffer in front of a FILE*, for exporters that write millions
 * of short fields: memcpy and hand-made integers instead of a printf per field. */
#ifndef TRACYC_TRACE_WRITER_H
#define TRACYC_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A JSON of 10 M zones is 1.6 GB: a write(2) every 64 KiB. */
#define TCT_WRITER_SIZE ((size_t)65536)

/* The buffer is on the heap: the in-process capture writes at the program's exit, on the
 * exiting thread, whose stack may be a 64 KiB fiber's. */
struct tct_writer {
    FILE *out;
    size_t len, cap;
    char *buf;
};

/* 0, or -1 (errno ENOMEM) with nothing to finish. */
int tct_writer_init(struct tct_writer *w, FILE *out);
/* Hands the buffered bytes to the FILE*. Returns ferror() of the stream. */
int tct_writer_flush(struct tct_writer *w);
/* Flushes and frees the buffer. Returns ferror() of the stream. */
int tct_writer_finish(struct tct_writer *w);

static inline void tct_write(struct tct_writer *w, const char *p, size_t n)
{
    if (!n)
        return;
    if (n > w->cap - w->len) {
        tct_writer_flush(w);
        if (n > w->cap) {
            fwrite(p, 1, n, w->out);
            return;
        }
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

/* Room for n more bytes (n <= TCT_WRITER_SIZE), flushing if need be: where to put them.
 * The caller adds what it put there to len. */
static inline char *tct_write_room(struct tct_writer *w, size_t n)
{
    if (n > w->cap - w->len)
        tct_writer_flush(w);
    return w->buf + w->len;
}

static inline void tct_write_str(struct tct_writer *w, const char *s)
{
    tct_write(w, s, strlen(s));
}

static inline void tct_write_char(struct tct_writer *w, char c)
{
    if (w->len == w->cap)
        tct_writer_flush(w);
    w->buf[w->len++] = c;
}

/* s[0..len) as text: a NUL byte is written as the two characters \0 (CSV, summary). */
void tct_write_text(struct tct_writer *w, const char *s, size_t len);
/* v's decimal digits at p, which has room for TCT_U64_DIGITS: how many. */
#define TCT_U64_DIGITS 20
size_t tct_format_u64(char *p, uint64_t v);
void tct_write_u64(struct tct_writer *w, uint64_t v);
void tct_write_i64(struct tct_writer *w, int64_t v);
/* printf into the buffer, for the rare fields that need a format (doubles). */
void tct_write_fmt(struct tct_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
