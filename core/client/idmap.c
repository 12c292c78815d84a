/* idmap.c - linear probing, power-of-two capacity, grown at 50 % load. */
#include "client/idmap.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void tc_idmap_clear(struct tc_idmap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = m->values = NULL;
    m->cap = m->len = 0;
}

static int grow(struct tc_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    uint64_t *keys = calloc(cap, sizeof *keys), *values = malloc(cap * sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t s = slot_of(m->keys[i], cap);
        while (keys[s])
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        values[s] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    return 0;
}

int tc_idmap_put(struct tc_idmap *m, uint64_t key, uint64_t value)
{
    if (!key)
        return 0;
    if ((m->len + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    size_t s = slot_of(key, m->cap);
    while (m->keys[s]) {
        if (m->keys[s] == key)
            return 0;
        s = (s + 1) & (m->cap - 1);
    }
    m->keys[s] = key;
    m->values[s] = value;
    m->len++;
    return 1;
}

int tc_idmap_get(const struct tc_idmap *m, uint64_t key, uint64_t *value)
{
    if (!key || !m->cap)
        return 0;
    size_t s = slot_of(key, m->cap);
    while (m->keys[s]) {
        if (m->keys[s] == key) {
            *value = m->values[s];
            return 1;
        }
        s = (s + 1) & (m->cap - 1);
    }
    return 0;
}
