/* stream.h - a chunked single-producer single-consumer byte stream, and the memory
 * budget of everything the profiler keeps for events (TRACYC_BUFFER_LIMIT).
 *
 * The producer (an application thread) appends records into the tail chunk and
 * publishes them with a release store of the chunk's committed size; the consumer (the
 * worker) reads up to that size with an acquire load. Full chunks are linked to a new
 * one; the consumer hands drained chunks back through an atomic list the producer takes
 * whole, so in steady state no memory is allocated.
 *
 * The budget: chunks, and the heap data records point to (allocated source locations,
 * frame images), are charged to tc_buffer_bytes, which never exceeds the limit plus
 * TC_BUFFER_RESERVE. Past the limit tc_stream_reserve returns NULL (the caller drops the
 * event and counts it), except with `force`, used for records that complete one already
 * recorded (zone ends) and must not be lost: they take the last TC_FORCED_HEADROOM bytes
 * of every chunk, which other records may not use, and past those a small chunk from
 * the reserve. Only when the reserve too is spent is a forced record dropped.
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
    /* consumer side (atomic only so that the producer may ask tc_stream_drained) */
    _Alignas(64) _Atomic(struct tc_chunk *) head;
    _Atomic size_t read;
    /* drained chunks on their way back to the producer */
    _Alignas(64) _Atomic(struct tc_chunk *) recycled;
    _Atomic int recycled_count;
};

/* Where a consumer may read up to, taken before draining another stream. */
struct tc_stream_mark {
    struct tc_chunk *chunk;
    size_t end;
};

/* Room past the limit for forced records, shared by all threads: the worst case of the
 * memory kept for events is tc_buffer_limit + TC_BUFFER_RESERVE (README:
 * TRACYC_BUFFER_LIMIT). */
#define TC_BUFFER_RESERVE ((size_t)64 << 10)
/* The end of each chunk kept for forced records: 128 zone ends. */
#define TC_FORCED_HEADROOM 2048

extern _Atomic size_t tc_buffer_bytes;
extern _Atomic size_t tc_buffer_peak; /* the highest tc_buffer_bytes so far */
extern size_t tc_buffer_limit;

/* Charges n bytes to the budget: up to the limit, or with force up to the limit plus
 * the reserve. 0 when charged. */
int tc_buffer_charge(size_t n, int force);
void tc_buffer_release(size_t n);
/* Whether the memory kept for events is past half its limit: the worker drains at a
 * quicker pace then (worker.c), as records' heap data is released only by their drain. */
int tc_buffer_pressed(void);
/* Whether a stream's next chunk would be refused: the memory kept for events is within a
 * chunk of its limit. */
int tc_buffer_full(void);
/* malloc charged to the budget (not forced): NULL past the limit. */
void *tc_buffer_alloc(size_t n);
/* Frees what tc_buffer_alloc(n) returned. */
void tc_buffer_free(void *p, size_t n);

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
 * mark is NULL); returns the bytes drained. fn returns the bytes it consumed, from the
 * start of the run: fewer than offered stops the drain there (the rest waits). */
typedef size_t (*tc_range_fn)(void *user, const uint8_t *begin, const uint8_t *end);
size_t tc_stream_drain(struct tc_stream *s, const struct tc_stream_mark *m, tc_range_fn fn, void *user);
int tc_stream_empty(struct tc_stream *s);

/* Producer side: whether the consumer has drained everything this thread committed (how a
 * test waits for its records to be handed to the connection). */
int tc_stream_drained(struct tc_stream *s);

#endif
