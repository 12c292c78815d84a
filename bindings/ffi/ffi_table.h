/* ffi_table.h - append-only tables whose entries never move, read without a lock.
 *
 * A thin wrapper on util/chunks.h. Entries are added under a mutex (adding may allocate)
 * and read without any lock: an entry is fully written before the count that makes it
 * visible is published with a release store, so a reader that loads the count with
 * acquire sees every entry below it. The chunk directory is reserved for the most
 * entries a table may hold when the first entry is added, so it never moves under a
 * reader. */
#ifndef TRACYC_FFI_TABLE_H
#define TRACYC_FFI_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tracyc_ffi.h"
#include "util/chunks.h"

#define TF_CHUNK_SHIFT 8                  /* 256 entries a chunk */
#define TF_MAX_ENTRIES TRACYC_FFI_MAX_IDS /* ids 1..TRACYC_FFI_MAX_IDS */

struct tf_table {
    pthread_mutex_t lock;
    _Atomic uint32_t count; /* entries published to readers */
    struct tcu_chunks entries;
};

#define TF_TABLE_INIT(type)                                                                                            \
    {                                                                                                                  \
        PTHREAD_MUTEX_INITIALIZER, 0, TCU_CHUNKS_INIT(sizeof(type), TF_CHUNK_SHIFT)                                    \
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
    return tcu_chunks_at(&t->entries, index);
}

#endif
