/* map.h - an open-addressing hash map from uint64_t keys to uint64_t values.
 *
 * Used by the trace model to find threads, plots, frame sets, pools, locks and GPU
 * contexts by id, and live allocations by address. Linear probing with backward-shift
 * deletion, so removing (a freed allocation) leaves no tombstones behind.
 */
#ifndef TRACYC_TRACE_MAP_H
#define TRACYC_TRACE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct tct_map_slot {
    uint64_t key;
    uint64_t value;
};

struct tct_map {
    struct tct_map_slot *slots;
    uint8_t *used;
    size_t mask; /* capacity - 1; capacity is a power of two */
    size_t count;
};

void tct_map_init(struct tct_map *m);
void tct_map_free(struct tct_map *m);
/* Pointer to the value stored under key, or NULL. Valid until the next put or remove. */
uint64_t *tct_map_get(const struct tct_map *m, uint64_t key);
/* Stores key -> value (replacing any previous value). Returns 0, or -1 when out of memory. */
int tct_map_put(struct tct_map *m, uint64_t key, uint64_t value);
/* Removes key. Returns 1 and sets *value when it was present, 0 otherwise. */
int tct_map_remove(struct tct_map *m, uint64_t key, uint64_t *value);
void tct_map_clear(struct tct_map *m);
size_t tct_map_memory(const struct tct_map *m);

#endif
