/* api_memory.c - memory events. They go to the serial stream: the server needs all of
 * them, from every thread, in one time order. The six functions whose signature changed
 * in Tracy 0.14 are defined here only where one form must be chosen at build time; on
 * x86-64 and AArch64 api_memory_dual.c serves both. */
#include "client/api.h"
#include "client/api_memory.h"

void tc_mem_alloc(const void *ptr, size_t size, const char *name, const uint64_t *frames, int n)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    union tc_rec *r = tc_serial_reserve_callstack(TC_REC_MEM_ALLOC, 0, 0, frames, n);
    if (!r)
        return;
    r->mem_alloc.thread = t->tid;
    r->mem_alloc.time = tc_clock_now();
    r->mem_alloc.address = (uint64_t)(uintptr_t)ptr;
    r->mem_alloc.size = (uint64_t)size & 0xffffffffffffULL; /* the protocol carries 48 bits */
    r->mem_alloc.pool = name;
    tc_serial_commit();
}

void tc_mem_free(const void *ptr, const char *name, const uint64_t *frames, int n)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    union tc_rec *r = tc_serial_reserve_callstack(TC_REC_MEM_FREE, 0, 0, frames, n);
    if (!r)
        return;
    r->mem_free.thread = t->tid;
    r->mem_free.time = tc_clock_now();
    r->mem_free.address = (uint64_t)(uintptr_t)ptr;
    r->mem_free.pool = name;
    tc_serial_commit();
}

void tc_mem_discard(const char *name, const uint64_t *frames, int n)
{
    struct tc_thread *t = tc_thread_get();
    if (!t || !name)
        return;
    union tc_rec *r = tc_serial_reserve_callstack(TC_REC_MEM_DISCARD, 0, 0, frames, n);
    if (!r)
        return;
    r->mem_discard.thread = t->tid;
    r->mem_discard.time = tc_clock_now();
    r->mem_discard.pool = name;
    tc_serial_commit();
}

void ___tracy_emit_memory_alloc(const void *ptr, size_t size)
{
    tc_mem_alloc(ptr, size, NULL, NULL, 0);
}

void ___tracy_emit_memory_alloc_callstack(const void *ptr, size_t size, int32_t depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_alloc(ptr, size, NULL, frames, n);
}

void ___tracy_emit_memory_free(const void *ptr)
{
    tc_mem_free(ptr, NULL, NULL, 0);
}

void ___tracy_emit_memory_free_callstack(const void *ptr, int32_t depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_free(ptr, NULL, frames, n);
}

#if TC_MEMORY_ABI_DUAL
/* api_memory_dual.c */
#elif defined(TRACYC_MEMORY_ABI_0_13)
void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, int32_t secure, const char *name)
{
    (void)secure;
    tc_mem_alloc(ptr, size, name, NULL, 0);
}

void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, int32_t secure,
                                                const char *name)
{
    (void)secure;
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_alloc(ptr, size, name, frames, n);
}

void ___tracy_emit_memory_free_named(const void *ptr, int32_t secure, const char *name)
{
    (void)secure;
    tc_mem_free(ptr, name, NULL, 0);
}

void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, int32_t secure, const char *name)
{
    (void)secure;
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_free(ptr, name, frames, n);
}

void ___tracy_emit_memory_discard(const char *name, int32_t secure)
{
    (void)secure;
    tc_mem_discard(name, NULL, 0);
}

void ___tracy_emit_memory_discard_callstack(const char *name, int32_t secure, int32_t depth)
{
    (void)secure;
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = name ? TC_CAPTURE_CALLSTACK(frames, depth) : 0;
    tc_mem_discard(name, frames, n);
}
#else
void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, const char *name)
{
    tc_mem_alloc(ptr, size, name, NULL, 0);
}

void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, const char *name)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_alloc(ptr, size, name, frames, n);
}

void ___tracy_emit_memory_free_named(const void *ptr, const char *name)
{
    tc_mem_free(ptr, name, NULL, 0);
}

void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, const char *name)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_free(ptr, name, frames, n);
}

void ___tracy_emit_memory_discard(const char *name)
{
    tc_mem_discard(name, NULL, 0);
}

void ___tracy_emit_memory_discard_callstack(const char *name, int32_t depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = name ? TC_CAPTURE_CALLSTACK(frames, depth) : 0;
    tc_mem_discard(name, frames, n);
}
#endif
