/* chunks.c - an array whose elements never move. */
#include "util/chunks.h"

#include <stdint.h>
#include <string.h>

#include "util/budget.h"

#define FIRST_CHUNK_SLOTS 8

void tcu_chunks_init(struct tcu_chunks *c, size_t elem_size, unsigned shift, struct tcu_budget *budget)
{
    memset(c, 0, sizeof *c);
    c->elem_size = elem_size;
    c->shift = shift;
    c->budget = budget;
}

static size_t chunk_bytes(const struct tcu_chunks *c)
{
    return c->elem_size << c->shift;
}

static size_t chunks_used(const struct tcu_chunks *c)
{
    return (c->count + ((size_t)1 << c->shift) - 1) >> c->shift;
}

void tcu_chunks_free(struct tcu_chunks *c)
{
    for (size_t i = chunks_used(c); i-- > 0;)
        tcu_free(c->budget, c->chunks[i], chunk_bytes(c));
    tcu_free(c->budget, c->chunks, c->chunk_slots * sizeof *c->chunks);
    tcu_chunks_init(c, c->elem_size, c->shift, c->budget);
}

int tcu_chunks_reserve(struct tcu_chunks *c, size_t count)
{
    size_t need = (count >> c->shift) + ((count & (((size_t)1 << c->shift) - 1)) != 0);
    if (need <= c->chunk_slots)
        return 0;
    size_t slots = c->chunk_slots ? c->chunk_slots : FIRST_CHUNK_SLOTS;
    while (slots < need)
        slots *= 2;
    if (slots > SIZE_MAX / sizeof *c->chunks) {
        tcu_budget_refuse(c->budget, tcu_budget_over_limit);
        return -1;
    }
    char **grown = tcu_realloc(c->budget, c->chunks, c->chunk_slots * sizeof *c->chunks, slots * sizeof *c->chunks);
    if (!grown)
        return -1;
    c->chunks = grown;
    c->chunk_slots = slots;
    return 0;
}

void *tcu_chunks_push_chunk(struct tcu_chunks *c)
{
    if (tcu_chunks_reserve(c, c->count + 1) != 0)
        return NULL;
    char *chunk = tcu_alloc(c->budget, chunk_bytes(c));
    if (!chunk)
        return NULL;
    c->chunks[c->count >> c->shift] = chunk;
    return tcu_chunks_at(c, c->count++);
}

size_t tcu_chunks_memory(const struct tcu_chunks *c)
{
    return chunks_used(c) * chunk_bytes(c) + c->chunk_slots * sizeof *c->chunks;
}
