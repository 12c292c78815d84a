/* arena.c - an append-only arena of strings. */
#include "util/arena.h"

#include <string.h>

#include "util/budget.h"

struct tcu_arena_block {
    struct tcu_arena_block *next;
    size_t used, size;
    char data[];
};

void tcu_arena_init(struct tcu_arena *a, struct tcu_budget *budget)
{
    a->blocks = NULL;
    a->memory = 0;
    a->budget = budget;
}

void tcu_arena_free(struct tcu_arena *a)
{
    while (a->blocks) {
        struct tcu_arena_block *next = a->blocks->next;
        tcu_free(a->budget, a->blocks, sizeof *a->blocks + a->blocks->size);
        a->blocks = next;
    }
    a->memory = 0;
}

char *tcu_arena_strdup(struct tcu_arena *a, const void *s, size_t len)
{
    struct tcu_arena_block *b = a->blocks;
    if (!b || b->size - b->used < len + 1) {
        size_t size = len + 1 > TCU_ARENA_BLOCK_SIZE ? len + 1 : TCU_ARENA_BLOCK_SIZE;
        if (size < len || size > (size_t)-1 - sizeof *b) {
            tcu_budget_refuse(a->budget, tcu_budget_over_limit);
            return NULL;
        }
        struct tcu_arena_block *nb = tcu_alloc(a->budget, sizeof *nb + size);
        if (!nb)
            return NULL;
        nb->size = size;
        a->memory += sizeof *nb + size;
        if (b && size > TCU_ARENA_BLOCK_SIZE) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->blocks = nb;
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
