/* pb_writer.h - Protocol Buffers wire format, written: varints, fixed 64-bit values and
 * length-delimited fields (bytes, strings, nested messages, packed repeated fields), into
 * a buffer that goes to a FILE* between messages.
 *
 * A nested message reserves one byte for its length and writes its fields after it; when
 * it ends, a length of 128 bytes or more moves the body up by the extra bytes of its
 * varint. Most messages of a trace are shorter than that, so lengths take one byte and
 * nothing moves; the encoding is the minimal one, as protoc's.
 *
 *   struct tct_pb pb;
 *   tct_pb_init(&pb, out);
 *   size_t m = tct_pb_begin(&pb, 1);        // field 1, a message
 *   tct_pb_varint(&pb, 8, timestamp);
 *   tct_pb_string(&pb, 2, "name");
 *   tct_pb_end(&pb, m);
 *   tct_pb_flush_if_full(&pb);              // between top-level messages only
 *   ...
 *   int failed = tct_pb_finish(&pb);        // -1 with errno: memory, or the FILE's error
 */
#ifndef TRACYC_TRACE_PB_WRITER_H
#define TRACYC_TRACE_PB_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TCT_PB_FLUSH_AT 65536 /* bytes held before tct_pb_flush_if_full writes them */

struct tct_pb {
    uint8_t *buf;
    size_t len, cap;
    FILE *out;
    int failed; /* memory ran out: everything after is dropped */
};

enum tct_pb_wire { TCT_PB_VARINT = 0, TCT_PB_FIXED64 = 1, TCT_PB_LEN = 2 };

void tct_pb_init(struct tct_pb *pb, FILE *out);
/* Room for n more bytes; 0, or -1 (and failed set) when memory ran out. */
int tct_pb_grow(struct tct_pb *pb, size_t n);

static inline int tct_pb_room(struct tct_pb *pb, size_t n)
{
    return pb->cap - pb->len >= n ? 0 : tct_pb_grow(pb, n);
}

static inline size_t tct_pb_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* A bare varint: an element of a packed repeated field. */
static inline void tct_pb_raw_varint(struct tct_pb *pb, uint64_t v)
{
    if (tct_pb_room(pb, 10) == 0)
        pb->len += tct_pb_put_varint(pb->buf + pb->len, v);
}

static inline void tct_pb_varint(struct tct_pb *pb, uint32_t field, uint64_t v)
{
    if (tct_pb_room(pb, 15) != 0)
        return;
    pb->len += tct_pb_put_varint(pb->buf + pb->len, (uint64_t)field << 3 | TCT_PB_VARINT);
    pb->len += tct_pb_put_varint(pb->buf + pb->len, v);
}

/* int32/int64 fields: a negative value is its 64-bit two's complement (ten bytes). */
static inline void tct_pb_int(struct tct_pb *pb, uint32_t field, int64_t v)
{
    tct_pb_varint(pb, field, (uint64_t)v);
}

static inline void tct_pb_double(struct tct_pb *pb, uint32_t field, double v)
{
    if (tct_pb_room(pb, 13) != 0)
        return;
    pb->len += tct_pb_put_varint(pb->buf + pb->len, (uint64_t)field << 3 | TCT_PB_FIXED64);
    memcpy(pb->buf + pb->len, &v, 8); /* little-endian, as the wire format */
    pb->len += 8;
}

void tct_pb_bytes(struct tct_pb *pb, uint32_t field, const void *data, size_t len);

static inline void tct_pb_string(struct tct_pb *pb, uint32_t field, const char *s)
{
    tct_pb_bytes(pb, field, s, strlen(s));
}

/* A length-delimited field whose contents follow (a message, a packed repeated field):
 * returns what tct_pb_end needs. Inline, as a trace has several per zone. */
static inline size_t tct_pb_begin(struct tct_pb *pb, uint32_t field)
{
    if (tct_pb_room(pb, 6) != 0)
        return 0;
    pb->len += tct_pb_put_varint(pb->buf + pb->len, (uint64_t)field << 3 | TCT_PB_LEN);
    pb->buf[pb->len++] = 0; /* the length's first byte, for now */
    return pb->len;
}

/* tct_pb_end of a body of 128 bytes or more: its length takes more than the byte reserved. */
void tct_pb_end_long(struct tct_pb *pb, size_t mark);

static inline void tct_pb_end(struct tct_pb *pb, size_t mark)
{
    if (pb->failed)
        return;
    size_t body = pb->len - mark;
    if (body < 0x80)
        pb->buf[mark - 1] = (uint8_t)body;
    else
        tct_pb_end_long(pb, mark);
}

/* Writes what the buffer holds to the FILE when it holds TCT_PB_FLUSH_AT bytes or more;
 * call it only between top-level messages. */
void tct_pb_flush_if_full(struct tct_pb *pb);
/* Writes the rest, frees the buffer: 0, or -1 with errno set (ENOMEM, or the FILE's error). */
int tct_pb_finish(struct tct_pb *pb);

#endif
