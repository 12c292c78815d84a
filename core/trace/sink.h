/* sink.h - what consumes a trace's records.
 *
 * A sink is a struct that starts with struct tct_sink; its ops say which record kinds it
 * wants (kinds, a mask of TCT_REC_BIT) and take them one at a time, in the order the
 * trace completes them. Two kinds of sink exist, and each output (export.h) is made of
 * them:
 *
 *   aggregators  keep a statistic: per source location (zone_stats.h), per thread and
 *                callstack (sample_stats.h), per frame set, plot, pool, lock or GPU
 *                context (summary_stats.h), ...; their memory is bounded by what they
 *                aggregate, never by the number of records;
 *   writers      keep the records of a sequential format in the order the format needs,
 *                in a spill (util/spill.h): bounded memory, the rest on disk, written out
 *                once the capture has ended.
 *
 * The trace owns its sinks once added (tct_trace_add_sink) and frees them with itself. An
 * aggregator two outputs need is added once: tct_trace_find_sink finds it by its ops.
 * A sink never fails the capture: what it cannot keep (memory, disk) it counts or
 * remembers, and its output reports it.
 */
#ifndef TRACYC_TRACE_SINK_H
#define TRACYC_TRACE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"

struct tct_sink;

struct tct_sink_ops {
    const char *name; /* for messages: "zone statistics", "Chrome JSON writer" */
    uint32_t kinds;   /* TCT_REC_BIT of each record kind it wants */
    void (*record)(struct tct_sink *sink, const struct tct_record *rec);
    void (*free)(struct tct_sink *sink);
    /* Bytes of memory it holds (NULL: too few to count), for status lines and benchmarks. */
    size_t (*memory)(const struct tct_sink *sink);
};

struct tct_sink {
    const struct tct_sink_ops *ops;
};

#endif
