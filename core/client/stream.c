/* stream.c - the event memory budget, and chunk allocation, recycling and draining of a
 * tc_stream. */
#include "client/stream.h"

#include "client/wake.h"

#include <stdlib.h>

#define CHUNK_BYTES (128 * 1024)
#define FORCED_CHUNK_BYTES 4096
#define MAX_RECYCLED 4

_Atomic size_t tc_buffer_bytes;
_Atomic size_t tc_buffer_peak;
size_t tc_buffer_limit = (size_t)256 << 20;

static size_t pressure_mark(void)
{
    return tc_buffer_limit / 2;
}

int tc_buffer_pressed(void)
{
    return atomic_load_explicit(&tc_buffer_bytes, memory_order_relaxed) > pressure_mark();
}

int tc_buffer_full(void)
{
    size_t used = atomic_load_explicit(&tc_buffer_bytes, memory_order_relaxed);
    return used + CHUNK_BYTES > tc_buffer_limit;
}

/* A compare-and-swap rather than add-then-undo, so that even a failed charge never
 * shows above the bound. The charge that takes the memory past the pressure mark wakes the
 * worker (tc_buffer_pressed). */
int tc_buffer_charge(size_t n, int force)
{
    size_t cap = tc_buffer_limit + (force ? TC_BUFFER_RESERVE : 0), mark = pressure_mark();
    size_t used = atomic_load_explicit(&tc_buffer_bytes, memory_order_relaxed);
    do {
        if (used > cap || n > cap - used)
            return -1;
    } while (!atomic_compare_exchange_weak_explicit(&tc_buffer_bytes, &used, used + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    if (used <= mark && used + n > mark)
        tc_wake_worker();
    size_t peak = atomic_load_explicit(&tc_buffer_peak, memory_order_relaxed);
    while (used + n > peak && !atomic_compare_exchange_weak_explicit(&tc_buffer_peak, &peak, used + n,
                                                                     memory_order_relaxed, memory_order_relaxed))
        ;
    return 0;
}

void tc_buffer_release(size_t n)
{
    atomic_fetch_sub_explicit(&tc_buffer_bytes, n, memory_order_relaxed);
}

void *tc_buffer_alloc(size_t n)
{
    if (tc_buffer_charge(n, 0) != 0)
        return NULL;
    void *p = malloc(n);
    if (!p)
        tc_buffer_release(n);
    return p;
}

void tc_buffer_free(void *p, size_t n)
{
    if (!p)
        return;
    free(p);
    tc_buffer_release(n);
}

static struct tc_chunk *chunk_init(struct tc_chunk *c, size_t data_size, size_t open_size)
{
    atomic_init(&c->next, NULL);
    atomic_init(&c->committed, 0);
    c->size = data_size;
    c->open_size = open_size;
    c->spare_next = NULL;
    return c;
}

/* A chunk of which other records may use open_size bytes and forced ones all. */
static struct tc_chunk *chunk_new(size_t data_size, size_t open_size, int force)
{
    size_t total = sizeof(struct tc_chunk) + data_size;
    if (tc_buffer_charge(total, force) != 0)
        return NULL;
    struct tc_chunk *c = malloc(total);
    if (!c) {
        tc_buffer_release(total);
        return NULL;
    }
    return chunk_init(c, data_size, open_size);
}

static void chunk_free(struct tc_chunk *c)
{
    if (c->size) /* the empty first chunk is not charged */
        tc_buffer_release(sizeof(struct tc_chunk) + c->size);
    free(c);
}

/* A stream starts with an empty chunk, part of the thread's bookkeeping rather than of
 * the budget: its first record takes a real chunk, under the limit like any other, so a
 * thread that starts past the limit takes no memory for events. */
int tc_stream_init(struct tc_stream *s)
{
    struct tc_chunk *c = malloc(sizeof *c);
    if (!c)
        return -1;
    chunk_init(c, 0, 0);
    s->tail = c;
    atomic_init(&s->head, c);
    s->pos = 0;
    atomic_init(&s->read, 0);
    s->spare = NULL;
    atomic_init(&s->recycled, NULL);
    atomic_init(&s->recycled_count, 0);
    return 0;
}

void tc_stream_destroy(struct tc_stream *s)
{
    struct tc_chunk *c = atomic_load_explicit(&s->head, memory_order_relaxed);
    while (c) {
        struct tc_chunk *next = atomic_load_explicit(&c->next, memory_order_relaxed);
        chunk_free(c);
        c = next;
    }
    for (c = s->spare; c;) {
        struct tc_chunk *next = c->spare_next;
        chunk_free(c);
        c = next;
    }
    for (c = atomic_exchange(&s->recycled, NULL); c;) {
        struct tc_chunk *next = c->spare_next;
        chunk_free(c);
        c = next;
    }
    atomic_store_explicit(&s->head, NULL, memory_order_relaxed);
    s->tail = NULL;
}

static struct tc_chunk *take_spare(struct tc_stream *s, size_t n, int force)
{
    if (!s->spare) {
        s->spare = atomic_exchange_explicit(&s->recycled, NULL, memory_order_acquire);
        atomic_store_explicit(&s->recycled_count, 0, memory_order_relaxed);
    }
    struct tc_chunk *c = s->spare;
    if (!c || (force ? c->size : c->open_size) < n)
        return NULL;
    s->spare = c->spare_next;
    atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&c->committed, 0, memory_order_relaxed);
    return c;
}

void *tc_stream_reserve_slow(struct tc_stream *s, size_t n, int force)
{
    struct tc_chunk *c = take_spare(s, n, force);
    if (!c) {
        size_t want = CHUNK_BYTES - sizeof(struct tc_chunk);
        if (want < n + TC_FORCED_HEADROOM)
            want = n + TC_FORCED_HEADROOM;
        c = chunk_new(want, want - TC_FORCED_HEADROOM, 0);
        /* Past the limit and the tail's headroom, a forced record gets a small chunk from
         * the reserve that other records may not use. */
        if (!c && force)
            c = chunk_new(n > FORCED_CHUNK_BYTES ? n : FORCED_CHUNK_BYTES, 0, 1);
        if (!c)
            return NULL;
    }
    /* Publish everything written to the old tail (a zone begin may not be published
     * yet): once the consumer sees next, it takes the old chunk's size as final. */
    atomic_store_explicit(&s->tail->committed, s->pos, memory_order_release);
    atomic_store_explicit(&s->tail->next, c, memory_order_release);
    s->tail = c;
    s->pos = n;
    tc_wake_worker(); /* a chunk's worth is waiting: worth draining now */
    return c->data;
}

void tc_stream_mark(struct tc_stream *s, struct tc_stream_mark *m)
{
    struct tc_chunk *c = atomic_load_explicit(&s->head, memory_order_relaxed), *next;
    while ((next = atomic_load_explicit(&c->next, memory_order_acquire)))
        c = next;
    m->chunk = c;
    m->end = atomic_load_explicit(&c->committed, memory_order_acquire);
}

static void recycle(struct tc_stream *s, struct tc_chunk *c)
{
    if (c->size < CHUNK_BYTES - sizeof(struct tc_chunk) || c->open_size == 0 ||
        atomic_load_explicit(&s->recycled_count, memory_order_relaxed) >= MAX_RECYCLED) {
        chunk_free(c);
        return;
    }
    atomic_fetch_add_explicit(&s->recycled_count, 1, memory_order_relaxed);
    struct tc_chunk *top = atomic_load_explicit(&s->recycled, memory_order_relaxed);
    do {
        c->spare_next = top;
    } while (!atomic_compare_exchange_weak_explicit(&s->recycled, &top, c, memory_order_release, memory_order_relaxed));
}

size_t tc_stream_drain(struct tc_stream *s, const struct tc_stream_mark *m, tc_range_fn fn, void *user)
{
    size_t bytes = 0;
    for (;;) {
        struct tc_chunk *c = atomic_load_explicit(&s->head, memory_order_relaxed);
        size_t end = (m && m->chunk == c) ? m->end : atomic_load_explicit(&c->committed, memory_order_acquire);
        size_t read = atomic_load_explicit(&s->read, memory_order_relaxed);
        if (read < end) {
            size_t used = fn(user, c->data + read, c->data + end);
            bytes += used;
            read += used;
            atomic_store_explicit(&s->read, read, memory_order_relaxed);
            if (read < end)
                return bytes;
        }
        if (m && m->chunk == c)
            return bytes;
        struct tc_chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        if (!next)
            return bytes;
        /* Committed may have grown before next was linked. */
        if (atomic_load_explicit(&c->committed, memory_order_acquire) > read)
            continue;
        /* read first: a producer that sees the new head sees its read (tc_stream_drained) */
        atomic_store_explicit(&s->read, 0, memory_order_relaxed);
        atomic_store_explicit(&s->head, next, memory_order_release);
        recycle(s, c);
    }
}

int tc_stream_empty(struct tc_stream *s)
{
    struct tc_chunk *c = atomic_load_explicit(&s->head, memory_order_relaxed);
    return atomic_load_explicit(&c->next, memory_order_acquire) == NULL &&
           atomic_load_explicit(&c->committed, memory_order_acquire) ==
               atomic_load_explicit(&s->read, memory_order_relaxed);
}

/* The tail is this thread's, never freed under it: only compared with head, not read
 * through it, which the consumer may recycle meanwhile. */
int tc_stream_drained(struct tc_stream *s)
{
    return atomic_load_explicit(&s->head, memory_order_acquire) == s->tail &&
           atomic_load_explicit(&s->read, memory_order_relaxed) ==
               atomic_load_explicit(&s->tail->committed, memory_order_relaxed);
}
