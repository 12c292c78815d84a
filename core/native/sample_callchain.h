/* sample_callchain.h - callstacks of CPU samples without libdw: the kernel's frame-pointer
 * callchain (PERF_SAMPLE_CALLCHAIN), as upstream Tracy's client takes them, kept only as
 * far as each return address lies in the executable code of a loaded file. Code built
 * without frame pointers (most of a Debian system) leaves a garbage or empty chain past the
 * interrupted instruction; bench/sample_stacks.c measures what remains. Used by the sampler
 * thread only.
 */
#ifndef TRACYC_NATIVE_SAMPLE_CALLCHAIN_H
#define TRACYC_NATIVE_SAMPLE_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>

struct tcn_sample_callchain;

struct tcn_sample_callchain *tcn_sample_callchain_new(void);
void tcn_sample_callchain_free(struct tcn_sample_callchain *c);

/* Reads the executable segments again if libraries were loaded or unloaded since
 * (dl_iterate_phdr's counters); call once per batch of samples. */
void tcn_sample_callchain_sync(struct tcn_sample_callchain *c);

/* The user part of a sample's callchain (ips: nr entries as perf wrote them, context
 * markers included) into frames, at most max, innermost first: the interrupted
 * instruction, then each caller's return address minus one, up to the first that is in no
 * executable segment. Returns the count. */
int tcn_sample_callchain_frames(const struct tcn_sample_callchain *c, const uint8_t *ips, uint64_t nr, uint64_t *frames,
                                int max);

#endif
