/* ffi_table.c - appending to the tables of ffi_table.h. */
#include "ffi_table.h"

#include <stdlib.h>
#include <string.h>

/* One id fewer than the chunks hold, so the largest id fits TRACYC_FFI_MAX_IDS. */
#define TF_MAX_ENTRIES (TF_CHUNKS * TF_CHUNK_ENTRIES - 1u)

uint32_t tf_table_add(struct tf_table *t, const void *entry)
{
    uint32_t id = 0;
    pthread_mutex_lock(&t->lock);
    uint32_t index = atomic_load_explicit(&t->count, memory_order_relaxed);
    if (index < TF_MAX_ENTRIES) {
        unsigned char *chunk = atomic_load_explicit(&t->chunks[index / TF_CHUNK_ENTRIES], memory_order_relaxed);
        if (!chunk) {
            chunk = calloc(TF_CHUNK_ENTRIES, t->entry_size);
            if (chunk)
                atomic_store_explicit(&t->chunks[index / TF_CHUNK_ENTRIES], chunk, memory_order_relaxed);
        }
        if (chunk) {
            memcpy(chunk + (size_t)(index % TF_CHUNK_ENTRIES) * t->entry_size, entry, t->entry_size);
            atomic_store_explicit(&t->count, index + 1, memory_order_release);
            id = index + 1;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return id;
}
