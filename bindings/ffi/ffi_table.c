/* ffi_table.c - appending to the tables of ffi_table.h. */
#include "ffi_table.h"

#include <string.h>

uint32_t tf_table_add(struct tf_table *t, const void *entry)
{
    uint32_t id = 0;
    pthread_mutex_lock(&t->lock);
    size_t index = t->entries.count;
    void *slot = NULL;
    if (index < TF_MAX_ENTRIES && tcu_chunks_reserve(&t->entries, TF_MAX_ENTRIES) == 0)
        slot = tcu_chunks_push(&t->entries);
    if (slot) {
        memcpy(slot, entry, t->entries.elem_size);
        id = (uint32_t)index + 1;
        atomic_store_explicit(&t->count, id, memory_order_release);
    }
    pthread_mutex_unlock(&t->lock);
    return id;
}
