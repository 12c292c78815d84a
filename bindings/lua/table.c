/* table.c - growing the binding's open-addressing tables of interned entries. */
#include "binding.h"

#include <stdlib.h>

int tl_table_grow(void ***table, size_t *cap, size_t first_cap, uint64_t (*hash)(const void *entry))
{
    size_t new_cap = *cap ? *cap * 2 : first_cap;
    void **t = calloc(new_cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < *cap; i++) {
        if (!(*table)[i])
            continue;
        size_t j = hash((*table)[i]) & (new_cap - 1);
        while (t[j])
            j = (j + 1) & (new_cap - 1);
        t[j] = (*table)[i];
    }
    free(*table);
    *table = t;
    *cap = new_cap;
    return 0;
}
