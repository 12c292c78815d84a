/* map.c - open-addressing uint64 -> uint64 hash map, linear probing. */
#include "trace/map.h"

#include <stdlib.h>
#include <string.h>

static size_t map_hash(uint64_t key)
{
    /* splitmix64 finaliser: thread ids and addresses are far from uniform. */
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return (size_t)key;
}

void tct_map_init(struct tct_map *m)
{
    memset(m, 0, sizeof *m);
}

void tct_map_free(struct tct_map *m)
{
    free(m->slots);
    free(m->used);
    tct_map_init(m);
}

uint64_t *tct_map_get(const struct tct_map *m, uint64_t key)
{
    if (!m->slots)
        return NULL;
    for (size_t i = map_hash(key) & m->mask; m->used[i]; i = (i + 1) & m->mask)
        if (m->slots[i].key == key)
            return &m->slots[i].value;
    return NULL;
}

static int map_grow(struct tct_map *m)
{
    size_t capacity = m->slots ? (m->mask + 1) * 2 : 16;
    struct tct_map grown = {
        .slots = malloc(capacity * sizeof *grown.slots),
        .used = calloc(capacity, 1),
        .mask = capacity - 1,
    };
    if (!grown.slots || !grown.used) {
        free(grown.slots);
        free(grown.used);
        return -1;
    }
    for (size_t i = 0; m->slots && i <= m->mask; i++) {
        if (!m->used[i])
            continue;
        size_t j = map_hash(m->slots[i].key) & grown.mask;
        while (grown.used[j])
            j = (j + 1) & grown.mask;
        grown.used[j] = 1;
        grown.slots[j] = m->slots[i];
    }
    grown.count = m->count;
    free(m->slots);
    free(m->used);
    *m = grown;
    return 0;
}

int tct_map_put(struct tct_map *m, uint64_t key, uint64_t value)
{
    uint64_t *existing = tct_map_get(m, key);
    if (existing) {
        *existing = value;
        return 0;
    }
    /* Keep the load factor at or below 3/4. */
    if (!m->slots || (m->count + 1) * 4 > (m->mask + 1) * 3)
        if (map_grow(m) != 0)
            return -1;
    size_t i = map_hash(key) & m->mask;
    while (m->used[i])
        i = (i + 1) & m->mask;
    m->used[i] = 1;
    m->slots[i].key = key;
    m->slots[i].value = value;
    m->count++;
    return 0;
}

int tct_map_remove(struct tct_map *m, uint64_t key, uint64_t *value)
{
    if (!m->slots)
        return 0;
    size_t i = map_hash(key) & m->mask;
    while (m->used[i] && m->slots[i].key != key)
        i = (i + 1) & m->mask;
    if (!m->used[i])
        return 0;
    if (value)
        *value = m->slots[i].value;
    /* Backward-shift: move later members of the probe run into the hole when their
     * home slot does not lie cyclically between the hole and their position. */
    size_t hole = i;
    for (size_t j = (i + 1) & m->mask; m->used[j]; j = (j + 1) & m->mask) {
        size_t home = map_hash(m->slots[j].key) & m->mask;
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays)
            continue;
        m->slots[hole] = m->slots[j];
        hole = j;
    }
    m->used[hole] = 0;
    m->count--;
    return 1;
}

void tct_map_clear(struct tct_map *m)
{
    if (m->used)
        memset(m->used, 0, m->mask + 1);
    m->count = 0;
}

size_t tct_map_memory(const struct tct_map *m)
{
    return m->slots ? (m->mask + 1) * (sizeof *m->slots + 1) : 0;
}
