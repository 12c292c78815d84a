/* tape.c - bytes appended, then read back in order (tape.h). */
#include "util/tape.h"
#include "util/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITE_BUFFER TCU_TAPE_READ      /* holds the largest reserve */
#define READ_BUFFER (2 * TCU_TAPE_READ) /* a peek's TCU_TAPE_READ bytes and the next read */

struct tcu_tape {
    size_t budget;
    int error;
    uint64_t size;
    /* in memory, until the budget is full */
    char *mem;
    size_t cap;
    /* then in a file, through a write buffer */
    int fd; /* -1: none yet */
    char *wbuf;
    size_t wlen;
};

static int fail(struct tcu_tape *t, int err)
{
    if (!t->error)
        t->error = err ? err : EIO;
    return -1;
}

struct tcu_tape *tcu_tape_new(size_t memory)
{
    struct tcu_tape *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->budget = memory ? memory : TCU_TAPE_MEMORY;
    t->fd = -1;
    return t;
}

void tcu_tape_free(struct tcu_tape *t)
{
    if (!t)
        return;
    if (t->fd >= 0)
        close(t->fd);
    free(t->mem);
    free(t->wbuf);
    free(t);
}

static int write_all(struct tcu_tape *t, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(t->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(t, n < 0 ? errno : ENOSPC);
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int flush(struct tcu_tape *t)
{
    if (t->fd < 0 || !t->wlen)
        return 0;
    int rc = write_all(t, t->wbuf, t->wlen);
    t->wlen = 0;
    return rc;
}

/* Moves the tape from memory to a file: the budget is full. */
static int to_file(struct tcu_tape *t)
{
    t->fd = tcu_tempfile();
    if (t->fd < 0)
        return fail(t, errno);
    if (!(t->wbuf = malloc(WRITE_BUFFER)))
        return fail(t, ENOMEM);
    if (write_all(t, t->mem, (size_t)t->size) != 0)
        return -1;
    free(t->mem);
    t->mem = NULL;
    t->cap = 0;
    return 0;
}

void *tcu_tape_reserve(struct tcu_tape *t, size_t n)
{
    if (t->error || n > TCU_TAPE_READ)
        return NULL;
    if (t->fd < 0 && t->size + n <= t->budget) {
        if (t->size + n > t->cap) {
            size_t cap = t->cap ? t->cap : 4096;
            while (cap < t->size + n)
                cap *= 2;
            if (cap > t->budget)
                cap = t->budget;
            char *grown = realloc(t->mem, cap);
            if (!grown) {
                fail(t, ENOMEM);
                return NULL;
            }
            t->mem = grown;
            t->cap = cap;
        }
        return t->mem + t->size;
    }
    if (t->fd < 0 && to_file(t) != 0)
        return NULL;
    if (n > WRITE_BUFFER - t->wlen && flush(t) != 0)
        return NULL;
    return t->wbuf + t->wlen;
}

void tcu_tape_commit(struct tcu_tape *t, size_t k)
{
    t->size += k;
    if (t->fd >= 0)
        t->wlen += k;
}

int tcu_tape_rewind(struct tcu_tape *t, struct tcu_tape_reader *r)
{
    tcu_tape_reader_free(r);
    if (t->error || flush(t) != 0)
        return -1;
    if (t->fd >= 0 && !(r->buf = malloc(READ_BUFFER)))
        return fail(t, ENOMEM);
    return 0;
}

const void *tcu_tape_peek(struct tcu_tape *t, struct tcu_tape_reader *r, size_t *avail)
{
    *avail = 0;
    if (t->error)
        return NULL;
    if (t->fd < 0) { /* in memory: no copy */
        *avail = (size_t)(t->size - r->at);
        return *avail ? t->mem + r->at : "";
    }
    uint64_t file_at = r->at + (r->len - r->pos);               /* the first byte not yet in the buffer */
    if (r->len - r->pos < TCU_TAPE_READ && file_at < t->size) { /* refill: keep the unread tail, read after it */
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        size_t want = READ_BUFFER - r->len;
        if (t->size - file_at < want)
            want = (size_t)(t->size - file_at);
        while (want) {
            ssize_t got = pread(t->fd, r->buf + r->len, want, (off_t)file_at);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                fail(t, got < 0 ? errno : EIO);
                return NULL;
            }
            r->len += (size_t)got;
            file_at += (uint64_t)got;
            want -= (size_t)got;
        }
    }
    *avail = r->len - r->pos;
    return r->buf + r->pos;
}

void tcu_tape_skip(struct tcu_tape_reader *r, size_t n)
{
    r->at += n;
    if (r->buf)
        r->pos += n;
}

void tcu_tape_reader_free(struct tcu_tape_reader *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

uint64_t tcu_tape_size(const struct tcu_tape *t)
{
    return t->size;
}

int tcu_tape_error(const struct tcu_tape *t)
{
    return t->error;
}

size_t tcu_tape_memory(const struct tcu_tape *t)
{
    return t->cap + (t->wbuf ? WRITE_BUFFER : 0);
}
