/* ffi_table.h - append-only tables whose entries never move. Entries are added under a
 * mutex (adding may allocate) and read without any lock: a chunk is fully written
 * before the count that makes its entries visible is published with a release store,
 * so a reader that loads the count with acquire sees every entry below it. */
#ifndef TRACYC_FFI_TABLE_H
#define TRACYC_FFI_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TF_CHUNK_ENTRIES 256u
#define TF_CHUNKS 256u /* with 256-entry chunks: ids 1..65535 (TRACYC_FFI_MAX_IDS) */

struct tf_table {
    size_t entry_size;
    pthread_mutex_t lock;
    _Atomic uint32_t count;
    _Atomic(unsigned char *) chunks[TF_CHUNKS];
};

#define TF_TABLE_INIT(type)                                                                                            \
    {                                                                                                                  \
        sizeof(type), PTHREAD_MUTEX_INITIALIZER, 0,                                                                    \
        {                                                                                                              \
            0                                                                                                          \
        }                                                                                                              \
    }

/* Appends a copy of entry and returns its id (1-based); 0 when full or out of memory. */
uint32_t tf_table_add(struct tf_table *t, const void *entry);

/* The entry with this id, or NULL when no such entry was added. Lock-free. */
static inline const void *tf_table_get(struct tf_table *t, uint32_t id)
{
    uint32_t count = atomic_load_explicit(&t->count, memory_order_acquire);
    uint32_t index = id - 1; /* id 0 wraps to UINT32_MAX and fails the check */
    if (index >= count)
        return NULL;
    unsigned char *chunk = atomic_load_explicit(&t->chunks[index / TF_CHUNK_ENTRIES], memory_order_relaxed);
    return chunk + (size_t)(index % TF_CHUNK_ENTRIES) * t->entry_size;
}

#endif
