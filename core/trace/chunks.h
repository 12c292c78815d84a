/* chunks.h - the two containers the trace model is built from.
 *
 * tct_chunks: an array of fixed-size elements stored in chunks of TCT_CHUNK_ELEMS, so
 * growing never copies what is already stored and a capture of 10 M zones never needs
 * one huge contiguous block. Element addresses are stable.
 *
 * tct_strpool: an append-only arena for the text of messages and zones, so a capture
 * with millions of messages does not make millions of small allocations.
 *
 * Allocation failure is reported (NULL / -1) and leaves the container unchanged.
 */
#ifndef TRACYC_TRACE_CHUNKS_H
#define TRACYC_TRACE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#define TCT_CHUNK_SHIFT 12
#define TCT_CHUNK_ELEMS ((size_t)1 << TCT_CHUNK_SHIFT)

struct tct_chunks {
    char **chunks;
    size_t chunk_slots; /* capacity of `chunks` */
    size_t count;       /* elements stored */
    size_t elem_size;
};

void tct_chunks_init(struct tct_chunks *c, size_t elem_size);
void tct_chunks_free(struct tct_chunks *c);
size_t tct_chunks_memory(const struct tct_chunks *c);

static inline void *tct_chunks_at(const struct tct_chunks *c, size_t i)
{
    return c->chunks[i >> TCT_CHUNK_SHIFT] + (i & (TCT_CHUNK_ELEMS - 1)) * c->elem_size;
}

/* Starts a new chunk, then pushes; the slow path of tct_chunks_push. */
void *tct_chunks_push_chunk(struct tct_chunks *c);

/* A zero-filled new element at index c->count (then count + 1), or NULL when out of memory. */
static inline void *tct_chunks_push(struct tct_chunks *c)
{
    if ((c->count & (TCT_CHUNK_ELEMS - 1)) == 0)
        return tct_chunks_push_chunk(c);
    return tct_chunks_at(c, c->count++);
}

struct tct_strpool {
    struct tct_strblock *blocks;
    size_t memory;
};

void tct_strpool_init(struct tct_strpool *p);
void tct_strpool_free(struct tct_strpool *p);
/* A NUL-terminated copy of s[0..len), or NULL when out of memory. */
char *tct_strpool_add(struct tct_strpool *p, const char *s, size_t len);

/* Grows a malloc'd array to hold at least `need` elements (doubling). Returns the array,
 * possibly moved, or NULL when out of memory (the old array is then left as it was). */
void *tct_grow(void *array, size_t *cap, size_t need, size_t elem_size);

#endif
