/* api_memory_dual.c - the six memory functions whose signature changed in Tracy 0.14,
 * serving the 0.10-0.13 form and the 0.14 form from one definition (x86-64 SysV and
 * AArch64; api_memory.h).
 *
 *   0.14:       alloc_named(ptr, size, name)       free_named(ptr, name)
 *   0.10-0.13:  alloc_named(ptr, size, secure, name)  free_named(ptr, secure, name)
 *   (the callstack forms have a depth before that argument; discard_callstack's second
 *   argument is secure in 0.13 and the depth in 0.14)
 *
 * On both conventions each of these arguments occupies one 64-bit register, whatever its
 * C type. Where the forms differ, one register holds either the name pointer (0.14) or
 * `int32_t secure` (0 or 1 in the low 32 bits; the upper 32 bits are unspecified by the
 * ABI, so a caller may leave anything there). The definitions below take that register
 * whole, as `arg`, and the next one, as `next`:
 *
 *   - low 32 bits of arg 0 or 1 -> the 0.13 form: the name is in `next`;
 *   - anything else             -> the 0.14 form: arg is the name.
 *
 * A name pointer is never below 4096 and is 0 or 1 in its low 32 bits only when the string
 * starts exactly at a multiple of 4 GiB, or one byte past one. The limits, and what a
 * caller must avoid, are in include/tracyc.h.
 *
 * This file does not include tracyc.h: its declarations are one of the two forms. */
#include "client/api_memory.h"
#include "client/api_callstack.h"

#if TC_MEMORY_ABI_DUAL

#define EXPORT __attribute__((visibility("default")))

static inline int is_secure_flag(uint64_t arg)
{
    return (uint32_t)arg <= 1;
}

/* What a 0.13-form call passes as its name. A 0.14 call with a NULL name is read as the
 * 0.13 form with secure = 0 and leaves whatever was in the next register there: a value
 * that cannot be a user-space address is taken as no name. */
static inline const char *next_name(uint64_t next)
{
#if defined(__x86_64__)
    const int plausible = next >= 4096 && next >> 56 == 0; /* user space, 5-level paging included */
#else
    const int plausible = (next & 0x00ffffffffffffffull) >= 4096; /* the top byte may carry a tag */
#endif
    return plausible ? (const char *)(uintptr_t)next : NULL;
}

static inline const char *name_of(uint64_t arg, uint64_t next)
{
    return is_secure_flag(arg) ? next_name(next) : (const char *)(uintptr_t)arg;
}

/* Declared here for the definitions only: callers use either form of include/tracyc.h. */
EXPORT void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, uint64_t arg, uint64_t next);
EXPORT void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, uint64_t arg,
                                                       uint64_t next);
EXPORT void ___tracy_emit_memory_free_named(const void *ptr, uint64_t arg, uint64_t next);
EXPORT void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, uint64_t arg, uint64_t next);
EXPORT void ___tracy_emit_memory_discard(const char *name);
EXPORT void ___tracy_emit_memory_discard_callstack(const char *name, int32_t depth);

void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, uint64_t arg, uint64_t next)
{
    tc_mem_alloc(ptr, size, name_of(arg, next), NULL, 0);
}

/* The depth is in the same place in both forms. */
void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, uint64_t arg,
                                                uint64_t next)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_alloc(ptr, size, name_of(arg, next), frames, n);
}

void ___tracy_emit_memory_free_named(const void *ptr, uint64_t arg, uint64_t next)
{
    tc_mem_free(ptr, name_of(arg, next), NULL, 0);
}

void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, uint64_t arg, uint64_t next)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    tc_mem_free(ptr, name_of(arg, next), frames, n);
}

/* 0.13's trailing `secure` is simply not read. */
void ___tracy_emit_memory_discard(const char *name)
{
    tc_mem_discard(name, NULL, 0);
}

/* 0.13: (name, secure, depth); 0.14: (name, depth). A 0.13 caller's depth is not read:
 * what arrives as the depth is its secure flag, 0 or 1, so it gets a callstack of at most
 * one frame. */
void ___tracy_emit_memory_discard_callstack(const char *name, int32_t depth)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = name ? TC_CAPTURE_CALLSTACK(frames, depth) : 0;
    tc_mem_discard(name, frames, n);
}

#endif
