/* sample_unwind.h - callstacks of CPU samples: DWARF call frame information applied to the
 * user stack the kernel copied with the sample (PERF_SAMPLE_STACK_USER + REGS_USER), by
 * elfutils' libdwfl, so code built without frame pointers (most of a Linux system) unwinds
 * as well as code built with them (libdw is loaded at run time: libdw.h). Used by the
 * sampler thread only.
 */
#ifndef TRACYC_NATIVE_SAMPLE_UNWIND_H
#define TRACYC_NATIVE_SAMPLE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* The user registers a sample asks for, in perf's numbering (PERF_SAMPLE_REGS_USER). */
uint64_t tcn_sample_regs_mask(void);

struct tcn_sample_unwinder;

/* NULL when libdw cannot be loaded (libdw.h) or the architecture is not supported. */
struct tcn_sample_unwinder *tcn_sample_unwinder_new(void);
void tcn_sample_unwinder_free(struct tcn_sample_unwinder *u);

/* Reads the module list again if libraries were loaded or unloaded since (dl_iterate_phdr's
 * counters); call once per batch of samples. */
void tcn_sample_unwinder_sync(struct tcn_sample_unwinder *u);

/* Unwinds one sample of thread tid: regs as perf wrote them (one per bit of the mask),
 * stack the bytes copied from the stack pointer up. Fills frames with at most max
 * addresses, innermost first: the interrupted instruction, then each caller's return
 * address minus one (inside its call instruction). Returns the count (0 when even the
 * first is unknown). */
int tcn_sample_unwind(struct tcn_sample_unwinder *u, uint32_t tid, const uint64_t *regs, const uint8_t *stack,
                      size_t stack_len, uint64_t *frames, int max);

/* On x86-64 tcn_sample_unwind applies the call frame information's rules itself where they
 * are the common kind (a CFA on RSP or RBP; return address, RBP and RSP saved at or equal to
 * CFA+N), cached by address until the next sync that finds libraries changed; a sample with
 * any other frame goes to libdw whole. The frames are libdw's in every case. Tests: the
 * same, by libdw alone, and how many samples went each way. */
int tcn_sample_unwind_libdw(struct tcn_sample_unwinder *u, uint32_t tid, const uint64_t *regs, const uint8_t *stack,
                            size_t stack_len, uint64_t *frames, int max);
void tcn_sample_unwinder_counts(const struct tcn_sample_unwinder *u, unsigned long *fast, unsigned long *slow);

#endif
