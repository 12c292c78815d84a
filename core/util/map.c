/* map.c - uint64 -> uint64 hash map: linear probing, backward-shift removal. */
#include "util/map.h"

#include <string.h>

#include "util/budget.h"

#define MAP_FIRST_SIZE 16

void tcu_map_init(struct tcu_map *m, uint64_t seed, struct tcu_budget *budget)
{
    memset(m, 0, sizeof *m);
    m->seed = seed;
    m->budget = budget;
}

static size_t table_bytes(size_t size)
{
    return (size + 1) * sizeof(struct tcu_map_slot);
}

void tcu_map_free(struct tcu_map *m)
{
    if (m->slots)
        tcu_free(m->budget, m->slots, table_bytes(m->mask + 1));
    tcu_map_init(m, m->seed, m->budget);
}

/* Doubles the table (or makes the first one) and moves every key into it. */
static int map_grow(struct tcu_map *m)
{
    size_t old_size = m->slots ? m->mask + 1 : 0;
    size_t size = old_size ? old_size * 2 : MAP_FIRST_SIZE;
    if (size > (SIZE_MAX / sizeof(struct tcu_map_slot)) / 2) {
        tcu_budget_refuse(m->budget, tcu_budget_over_limit);
        return -1;
    }
    struct tcu_map_slot *slots = tcu_alloc(m->budget, table_bytes(size));
    if (!slots)
        return -1;
    struct tcu_map grown = *m;
    grown.slots = slots;
    grown.mask = size - 1;
    grown.shift = 64;
    for (size_t s = size; s > 1; s >>= 1)
        grown.shift--;
    for (size_t i = 0; i < old_size; i++) {
        const struct tcu_map_slot *from = &m->slots[i];
        if (from->key == 0)
            continue;
        size_t j = tcu_map_home(&grown, from->key);
        while (slots[j].key)
            j = (j + 1) & grown.mask;
        slots[j] = *from;
    }
    if (m->slots) {
        slots[size] = m->slots[old_size];
        tcu_free(m->budget, m->slots, table_bytes(old_size));
    }
    *m = grown;
    return 0;
}

int tcu_map_put(struct tcu_map *m, uint64_t key, uint64_t value)
{
    uint64_t *existing = tcu_map_get(m, key);
    if (existing) {
        *existing = value;
        return 0;
    }
    if ((!m->slots || (m->count + 1) * 2 > m->mask + 1) && map_grow(m) != 0)
        return -1;
    struct tcu_map_slot *s = &m->slots[m->mask + 1];
    if (key != 0) {
        size_t i = tcu_map_home(m, key);
        while (m->slots[i].key)
            i = (i + 1) & m->mask;
        s = &m->slots[i];
    }
    s->key = key ? key : 1;
    s->value = value;
    m->count++;
    return 1;
}

int tcu_map_remove(struct tcu_map *m, uint64_t key, uint64_t *value)
{
    if (!m->slots)
        return 0;
    size_t hole = m->mask + 1; /* key 0's slot */
    if (key != 0) {
        hole = tcu_map_home(m, key);
        while (m->slots[hole].key != key) {
            if (m->slots[hole].key == 0)
                return 0;
            hole = (hole + 1) & m->mask;
        }
    } else if (!m->slots[hole].key) {
        return 0;
    }
    if (value)
        *value = m->slots[hole].value;
    m->count--;
    /* Backward shift: a later member of the probe run moves into the hole unless its
     * home lies cyclically in (hole, its position], where it is still reachable. */
    for (size_t j = (hole + 1) & m->mask; key != 0 && m->slots[j].key; j = (j + 1) & m->mask) {
        size_t home = tcu_map_home(m, m->slots[j].key);
        int reachable = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (reachable)
            continue;
        m->slots[hole] = m->slots[j];
        hole = j;
    }
    m->slots[hole].key = 0;
    return 1;
}

void tcu_map_clear(struct tcu_map *m)
{
    if (m->slots)
        memset(m->slots, 0, table_bytes(m->mask + 1));
    m->count = 0;
}

size_t tcu_map_memory(const struct tcu_map *m)
{
    return m->slots ? table_bytes(m->mask + 1) : 0;
}
