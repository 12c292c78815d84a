/* frame_stats.h - an aggregator (sink.h): frames per frame set, and how long they took.
 * Memory: one entry per frame set. */
#ifndef TRACYC_TRACE_FRAME_STATS_H
#define TRACYC_TRACE_FRAME_STATS_H

#include <stdint.h>

#include "trace/trace.h"

struct tct_frame_set_stats {
    uint64_t frames;         /* begun */
    uint64_t timed;          /* ended: the last frame of a continuous set never is */
    int64_t total, min, max; /* of the timed ones */
};

struct tct_frame_stats;

/* The trace's frame statistics, added to it on first use; NULL when out of memory. */
struct tct_frame_stats *tct_frame_stats_of(struct tct_trace *tr);
/* Those of the frame set with this index (tct_trace_frame_set_at); zero when none came. */
struct tct_frame_set_stats tct_frame_stats_get(const struct tct_frame_stats *fs, uint32_t index);

#endif
