/* gpu_stats.h - an aggregator (sink.h): GPU zones per context, and the GPU time of the
 * top-level ones. Memory: one entry per GPU context. */
#ifndef TRACYC_TRACE_GPU_STATS_H
#define TRACYC_TRACE_GPU_STATS_H

#include <stdint.h>

#include "trace/trace.h"

struct tct_gpu_context_stats {
    uint64_t zones; /* begun */
    uint64_t timed; /* whose GPU times both came */
    int64_t busy;   /* GPU time of the timed top-level zones */
};

struct tct_gpu_stats;

/* The trace's GPU statistics, added to it on first use; NULL when out of memory. */
struct tct_gpu_stats *tct_gpu_stats_of(struct tct_trace *tr);
/* Those of the context with this index (tct_trace_gpu_context_at); zero when none came. */
struct tct_gpu_context_stats tct_gpu_stats_get(const struct tct_gpu_stats *gs, uint32_t index);

#endif
