/* stream.h - a chunked single-producer single-consumer byte stream.
 *
 * The producer (an application thread) appends records into the tail chunk and
 * publishes them with a release store of the chunk's committed size; the consumer (the
 * worker) reads up to that size with an acquire load. Full chunks are linked to a new
 * one; the consumer hands drained chunks back through an atomic list the producer takes
 * whole, so in steady state no memory is allocated. All chunk memory counts against the
 * process-wide buffer limit: past it tc_stream_reserve returns NULL (the caller drops the
 * event and counts it), except with `force`, used for zone ends that must not be lost.
 */
#ifndef TRACYC_CLIENT_STREAM_H
#define TRACYC_CLIENT_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct tc_chunk {
    _Atomic(struct tc_chunk *) next;
    _Atomic size_t committed;
    size_t size;      /* bytes of data */
    size_t open_size; /* bytes any record may use; a chunk taken past the limit is for
                       * forced records only and has 0 here */
    struct tc_chunk *spare_next;
    _Alignas(8) uint8_t data[];
};

/* Producer, consumer and shared fields sit on separate cache lines: both sides write
 * theirs on every record, and sharing a line would bounce it between cores. */
struct tc_stream {
    /* producer side */
    _Alignas(64) struct tc_chunk *tail;
    size_t pos;
    struct tc_chunk *spare;
    /* consumer side */
    _Alignas(64) struct tc_chunk *head;
    size_t read;
    /* drained chunks on their way back to the producer */
    _Alignas(64) _Atomic(struct tc_chunk *) recycled;
    _Atomic int recycled_count;
};

/* Where a consumer may read up to, taken before draining another stream. */
struct tc_stream_mark {
    struct tc_chunk *chunk;
    size_t end;
};

extern _Atomic size_t tc_buffer_bytes;
extern size_t tc_buffer_limit;

int tc_stream_init(struct tc_stream *s);
void tc_stream_destroy(struct tc_stream *s);
void *tc_stream_reserve_slow(struct tc_stream *s, size_t n, int force);

static inline void *tc_stream_reserve(struct tc_stream *s, size_t n, int force)
{
    struct tc_chunk *c = s->tail;
    if (__builtin_expect(s->pos + n <= (force ? c->size : c->open_size), 1)) {
        void *p = c->data + s->pos;
        s->pos += n;
        return p;
    }
    return tc_stream_reserve_slow(s, n, force);
}

static inline void tc_stream_commit(struct tc_stream *s)
{
    atomic_store_explicit(&s->tail->committed, s->pos, memory_order_release);
}

/* Consumer side. */
void tc_stream_mark(struct tc_stream *s, struct tc_stream_mark *m);
/* Calls fn on each contiguous run of whole records up to the mark (or everything when
 * mark is NULL); returns the bytes drained. */
typedef void (*tc_range_fn)(void *user, const uint8_t *begin, const uint8_t *end);
size_t tc_stream_drain(struct tc_stream *s, const struct tc_stream_mark *m, tc_range_fn fn, void *user);
int tc_stream_empty(struct tc_stream *s);

#endif
