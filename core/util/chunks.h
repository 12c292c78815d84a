/* chunks.h - an array whose elements never move.
 *
 * Elements live in chunks of 2^shift elements, reached through a directory of chunk
 * pointers, so growing never copies what is stored, pointers to elements stay valid, and
 * a large array (10 M zones) never needs one huge block. New elements are zero-filled.
 * Allocation goes through an optional budget (budget.h); a failed push leaves the array
 * as it was.
 *
 * Readers on other threads: tcu_chunks_at reads only the directory, which moves only
 * when a push needs more chunks than it holds; reserve it up front (tcu_chunks_reserve)
 * and publish the count yourself (see bindings/ffi/ffi_table.h).
 */
#ifndef TRACYC_UTIL_CHUNKS_H
#define TRACYC_UTIL_CHUNKS_H

#include <stddef.h>

struct tcu_budget;

struct tcu_chunks {
    char **chunks;      /* the directory */
    size_t chunk_slots; /* capacity of the directory */
    size_t count;       /* elements stored */
    size_t elem_size;
    unsigned shift; /* log2 of the elements in a chunk */
    struct tcu_budget *budget;
};

/* For a static struct tcu_chunks; tcu_chunks_init does the same at run time. */
#define TCU_CHUNKS_INIT(elem_size, shift)                                                                              \
    {                                                                                                                  \
        NULL, 0, 0, (elem_size), (shift), NULL                                                                         \
    }

void tcu_chunks_init(struct tcu_chunks *c, size_t elem_size, unsigned shift, struct tcu_budget *budget);
void tcu_chunks_free(struct tcu_chunks *c);
/* 0 when the directory has room for the chunks of `count` elements (allocating no
 * chunk), -1 when refused. */
int tcu_chunks_reserve(struct tcu_chunks *c, size_t count);
/* Bytes allocated. */
size_t tcu_chunks_memory(const struct tcu_chunks *c);

static inline void *tcu_chunks_at(const struct tcu_chunks *c, size_t i)
{
    return c->chunks[i >> c->shift] + (i & (((size_t)1 << c->shift) - 1)) * c->elem_size;
}

/* Starts a new chunk, then pushes: the slow path of tcu_chunks_push. */
void *tcu_chunks_push_chunk(struct tcu_chunks *c);

/* A zero-filled new element at index count (then count + 1), or NULL when refused. */
static inline void *tcu_chunks_push(struct tcu_chunks *c)
{
    if ((c->count & (((size_t)1 << c->shift) - 1)) == 0)
        return tcu_chunks_push_chunk(c);
    return tcu_chunks_at(c, c->count++);
}

#endif
