/* api.h - helpers shared by the api_*.c files that implement the public functions. */
#ifndef TRACYC_CLIENT_API_H
#define TRACYC_CLIENT_API_H

#include "client/api_callstack.h"
#include "client/clock.h"
#include "client/lifecycle.h"
#include "client/record.h"
#include "tracyc.h"

#include <stddef.h>
#include <stdint.h>

/* Reserves a record in the calling thread's stream; NULL (counted as a drop) when the
 * library is inert or the buffer limit is reached. Commit with tc_thread_commit. */
static inline union tc_rec *tc_thread_reserve(struct tc_thread **out, unsigned type, size_t len, int force)
{
    struct tc_thread *t = tc_thread_get();
    if (__builtin_expect(!t, 0))
        return NULL;
    union tc_rec *r = tc_stream_reserve(&t->stream, tc_rec_size(type, len), force);
    if (__builtin_expect(!r, 0)) {
        tc_count_drop();
        return NULL;
    }
    r->any = (struct tc_rec_any){.type = (uint8_t)type, .len = (uint16_t)len};
    *out = t;
    return r;
}

static inline void tc_thread_commit(struct tc_thread *t)
{
    tc_stream_commit(&t->stream);
}

/* Before publishing a record that owns heap data: the worker walks t's records to
 * release such data only once t has written one. A load and, the first time, a store. */
static inline void tc_thread_owns_heap(struct tc_thread *t)
{
    if (!atomic_load_explicit(&t->owns_heap, memory_order_relaxed))
        atomic_store_explicit(&t->owns_heap, 1, memory_order_relaxed);
}

/* Serial stream: memory, locks, serial GPU events. Reserve under the lock, write,
 * then tc_serial_commit (which releases the lock). NULL: dropped, lock not held. */
union tc_rec *tc_serial_reserve(unsigned type, size_t len, int force);
/* The same with room for text, cut to the protocol's limit and copied in. */
union tc_rec *tc_serial_reserve_text(unsigned type, const char *text, size_t len, int force);
void tc_serial_commit(void);

/* Frees an allocated source location that will not be recorded (or NULL). */
static inline void tc_srcloc_payload_free(uint64_t srcloc)
{
    void *p = (void *)(uintptr_t)srcloc;
    if (p)
        tc_buffer_free(p, tc_srcloc_payload_size(p));
}

/* Like tc_thread_reserve, with the n frames of a captured callstack in a callstack record
 * written just before, in the same reservation (n = 0: no callstack record). */
union tc_rec *tc_thread_reserve_callstack(struct tc_thread **out, unsigned type, size_t len, const uint64_t *frames,
                                          int n);
/* The same with room for text cut to the protocol's limit and copied in (*len: kept). */
union tc_rec *tc_thread_reserve_text_callstack(struct tc_thread **out, unsigned type, const char *text, size_t *len,
                                               const uint64_t *frames, int n);
/* Like tc_serial_reserve, with a callstack record before (n = 0: none). */
union tc_rec *tc_serial_reserve_callstack(unsigned type, size_t len, int force, const uint64_t *frames, int n);

/* Length of text cut to at most max bytes without splitting a UTF-8 sequence. */
size_t tc_text_fit(const char *text, size_t len, size_t max);

/* Reserves a record with room for text cut to the protocol's limit and copies the text
 * in; *len receives the length kept. Commit with tc_thread_commit. */
union tc_rec *tc_thread_reserve_text(struct tc_thread **out, unsigned type, const char *text, size_t *len);

#endif
