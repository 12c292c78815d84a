/* map.h - a hash map from uint64_t keys to uint64_t values.
 *
 * Open addressing with linear probing in a power-of-two table kept at most half full;
 * removal shifts the rest of the probe run back, so no tombstones build up. Any key is
 * allowed: 0 marks a free slot, so key 0 itself is kept apart, in one extra slot after
 * the table. The slot is picked from the high bits of (key ^ seed) times a 64-bit odd
 * constant; give each map that holds identifiers chosen by someone else (a decoded
 * stream) its own unpredictable seed, so crafted keys cannot aim at one probe run.
 * Values that do not fit 64 bits live elsewhere and the map holds their index or address;
 * for keys that are hashes of content (tcu_hash_bytes), chain the entries that share one.
 *
 * Allocation goes through an optional budget (budget.h). A failed put leaves the map as
 * it was. A zero-filled struct tcu_map is an empty map with seed 0 and no budget.
 */
#ifndef TRACYC_UTIL_MAP_H
#define TRACYC_UTIL_MAP_H

#include <stddef.h>
#include <stdint.h>

struct tcu_budget;

struct tcu_map_slot {
    uint64_t key; /* 0: free */
    uint64_t value;
};

struct tcu_map {
    /* mask + 2 slots: the table, then key 0's slot (its key 1 when key 0 is present) */
    struct tcu_map_slot *slots;
    size_t mask;    /* table size - 1 */
    size_t count;   /* keys present, key 0 included */
    unsigned shift; /* 64 - log2(table size) */
    uint64_t seed;
    struct tcu_budget *budget;
};

void tcu_map_init(struct tcu_map *m, uint64_t seed, struct tcu_budget *budget);
void tcu_map_free(struct tcu_map *m);

static inline size_t tcu_map_home(const struct tcu_map *m, uint64_t key)
{
    return (size_t)(((key ^ m->seed) * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* The value stored under key, or NULL. Valid until the next put, remove or clear. */
static inline uint64_t *tcu_map_get(const struct tcu_map *m, uint64_t key)
{
    if (!m->slots)
        return NULL;
    if (key == 0) {
        struct tcu_map_slot *zero = &m->slots[m->mask + 1];
        return zero->key ? &zero->value : NULL;
    }
    for (size_t i = tcu_map_home(m, key);; i = (i + 1) & m->mask) {
        struct tcu_map_slot *s = &m->slots[i];
        if (s->key == key)
            return &s->value;
        if (s->key == 0)
            return NULL;
    }
}

/* Stores key -> value. 1 when the key is new, 0 when its value was replaced, -1 when
 * memory was refused (the map unchanged). */
int tcu_map_put(struct tcu_map *m, uint64_t key, uint64_t value);
/* 1 when key was present (its value in *value unless value is NULL), now removed; else 0. */
int tcu_map_remove(struct tcu_map *m, uint64_t key, uint64_t *value);
/* Removes every key, keeping the table. */
void tcu_map_clear(struct tcu_map *m);
/* Bytes allocated. */
size_t tcu_map_memory(const struct tcu_map *m);

static inline size_t tcu_map_count(const struct tcu_map *m)
{
    return m->count;
}

/* A key for content: FNV-1a over data, then its length, continuing from h (start from
 * TCU_HASH_INIT), so successive calls hash a sequence of byte strings unambiguously. */
#define TCU_HASH_INIT 0xcbf29ce484222325ull
static inline uint64_t tcu_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return (h ^ len) * 0x100000001b3ull;
}

#endif
