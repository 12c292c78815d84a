/* api_memory.h - the memory events behind the ___tracy_emit_memory_* functions.
 *
 * Six of those functions changed their signature in Tracy 0.14: 0.10 to 0.13 pass an
 * `int32_t secure` before the name (or before the depth of a discard). On the calling
 * conventions where every argument of them travels in a 64-bit register, x86-64 SysV and
 * AArch64 (TC_MEMORY_ABI_DUAL), one definition serves both forms and tells them apart at
 * run time (api_memory_dual.c); elsewhere the build option TRACYC_MEMORY_ABI_0_13 picks
 * one (api_memory.c). include/tracyc.h documents the rule and its limits. */
#ifndef TRACYC_CLIENT_API_MEMORY_H
#define TRACYC_CLIENT_API_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(_WIN32) && !defined(__ILP32__)
#define TC_MEMORY_ABI_DUAL 1
#else
#define TC_MEMORY_ABI_DUAL 0
#endif

/* name: the pool (NULL: the default one); the string must outlive the connection.
 * frames, n: the event's callstack (native/callstack.h; n = 0: none). */
void tc_mem_alloc(const void *ptr, size_t size, const char *name, const uint64_t *frames, int n);
void tc_mem_free(const void *ptr, const char *name, const uint64_t *frames, int n);
void tc_mem_discard(const char *name, const uint64_t *frames, int n);

#endif
