/* sample_stats.h - an aggregator (sink.h): the CPU samples of each thread counted per
 * distinct callstack, what the folded stacks, the flame graph and the summary's function
 * tables are made of. Memory: one entry per thread and callstack seen. Samples taken when
 * a thread was switched out are not CPU samples and are left out. */
#ifndef TRACYC_TRACE_SAMPLE_STATS_H
#define TRACYC_TRACE_SAMPLE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct tct_stack_count {
    const struct tct_thread *thread;
    uint32_t callstack; /* for its source's names.callstack */
    uint64_t count;
};

struct tct_sample_stats;

/* The trace's sample counts, added to it on first use; NULL when out of memory. */
struct tct_sample_stats *tct_sample_stats_of(struct tct_trace *tr);

/* The counts, threads in the trace's order and each thread's callstacks by id: a malloc'd
 * array (the caller frees it) and its length in *n; NULL with *n = 0 when there are no
 * samples, NULL with *n = 1 when memory ran out. */
struct tct_stack_count *tct_sample_counts(const struct tct_sample_stats *ss, size_t *n);

#endif
