/* chunks.c - chunked arrays and the string arena of the trace model. */
#include "trace/chunks.h"

#include <stdlib.h>
#include <string.h>

void tct_chunks_init(struct tct_chunks *c, size_t elem_size)
{
    memset(c, 0, sizeof *c);
    c->elem_size = elem_size;
}

void tct_chunks_free(struct tct_chunks *c)
{
    size_t used = (c->count + TCT_CHUNK_ELEMS - 1) >> TCT_CHUNK_SHIFT;
    for (size_t i = 0; i < used; i++)
        free(c->chunks[i]);
    free(c->chunks);
    tct_chunks_init(c, c->elem_size);
}

void *tct_chunks_push_chunk(struct tct_chunks *c)
{
    size_t chunk = c->count >> TCT_CHUNK_SHIFT;
    if (chunk == c->chunk_slots) {
        size_t slots = c->chunk_slots ? c->chunk_slots * 2 : 8;
        char **grown = realloc(c->chunks, slots * sizeof *grown);
        if (!grown)
            return NULL;
        c->chunks = grown;
        c->chunk_slots = slots;
    }
    c->chunks[chunk] = calloc(TCT_CHUNK_ELEMS, c->elem_size);
    if (!c->chunks[chunk])
        return NULL;
    return tct_chunks_at(c, c->count++);
}

size_t tct_chunks_memory(const struct tct_chunks *c)
{
    size_t used = (c->count + TCT_CHUNK_ELEMS - 1) >> TCT_CHUNK_SHIFT;
    return used * TCT_CHUNK_ELEMS * c->elem_size + c->chunk_slots * sizeof(char *);
}

#define TCT_STRBLOCK_SIZE ((size_t)64 * 1024)

struct tct_strblock {
    struct tct_strblock *next;
    size_t used, size;
    char data[];
};

void tct_strpool_init(struct tct_strpool *p)
{
    p->blocks = NULL;
    p->memory = 0;
}

void tct_strpool_free(struct tct_strpool *p)
{
    while (p->blocks) {
        struct tct_strblock *next = p->blocks->next;
        free(p->blocks);
        p->blocks = next;
    }
    p->memory = 0;
}

char *tct_strpool_add(struct tct_strpool *p, const char *s, size_t len)
{
    struct tct_strblock *b = p->blocks;
    if (!b || b->size - b->used < len + 1) {
        /* A string longer than a block gets a block of its own, kept behind the current
         * one so the current block's free space is not lost. */
        size_t size = len + 1 > TCT_STRBLOCK_SIZE ? len + 1 : TCT_STRBLOCK_SIZE;
        struct tct_strblock *nb = malloc(sizeof *nb + size);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->size = size;
        p->memory += sizeof *nb + size;
        if (b && size > TCT_STRBLOCK_SIZE) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            p->blocks = nb;
        }
        b = nb;
    }
    char *out = b->data + b->used;
    if (len)
        memcpy(out, s, len);
    out[len] = '\0';
    b->used += len + 1;
    return out;
}

void *tct_grow(void *array, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap)
        return array;
    size_t grown = *cap ? *cap : 4;
    while (grown < need)
        grown *= 2;
    if (grown > SIZE_MAX / elem_size)
        return NULL;
    void *p = realloc(array, grown * elem_size);
    if (p)
        *cap = grown;
    return p;
}
