/* pb_writer.c - Protocol Buffers wire format, written (pb_writer.h). */
#include "trace/pb_writer.h"

#include <errno.h>
#include <stdlib.h>

void tct_pb_init(struct tct_pb *pb, FILE *out)
{
    *pb = (struct tct_pb){.out = out};
}

int tct_pb_grow(struct tct_pb *pb, size_t n)
{
    if (pb->failed)
        return -1;
    size_t cap = pb->cap ? pb->cap : TCT_PB_FLUSH_AT * 2;
    while (cap && cap - pb->len < n)
        cap = cap > SIZE_MAX / 2 ? 0 : cap * 2;
    uint8_t *grown = cap ? realloc(pb->buf, cap) : NULL;
    if (!grown) {
        /* Everything from here on is dropped: the output reports it (tct_pb_finish). */
        free(pb->buf);
        *pb = (struct tct_pb){.out = pb->out, .failed = 1};
        return -1;
    }
    pb->buf = grown;
    pb->cap = cap;
    return 0;
}

void tct_pb_bytes(struct tct_pb *pb, uint32_t field, const void *data, size_t len)
{
    if (tct_pb_room(pb, 20 + len) != 0)
        return;
    pb->len += tct_pb_put_varint(pb->buf + pb->len, (uint64_t)field << 3 | TCT_PB_LEN);
    pb->len += tct_pb_put_varint(pb->buf + pb->len, len);
    if (len)
        memcpy(pb->buf + pb->len, data, len);
    pb->len += len;
}

void tct_pb_end_long(struct tct_pb *pb, size_t mark)
{
    size_t body = pb->len - mark;
    uint8_t len[10];
    size_t n = tct_pb_put_varint(len, body);
    if (tct_pb_room(pb, n - 1) != 0)
        return;
    memmove(pb->buf + mark + n - 1, pb->buf + mark, body);
    memcpy(pb->buf + mark - 1, len, n);
    pb->len += n - 1;
}

static void flush(struct tct_pb *pb)
{
    if (pb->len)
        fwrite(pb->buf, 1, pb->len, pb->out); /* a failure stays in ferror() */
    pb->len = 0;
}

void tct_pb_flush_if_full(struct tct_pb *pb)
{
    if (pb->len >= TCT_PB_FLUSH_AT)
        flush(pb);
}

int tct_pb_finish(struct tct_pb *pb)
{
    int failed = pb->failed;
    flush(pb);
    free(pb->buf);
    *pb = (struct tct_pb){.out = pb->out};
    if (failed) {
        errno = ENOMEM;
        return -1;
    }
    return ferror(pb->out) ? -1 : 0;
}
