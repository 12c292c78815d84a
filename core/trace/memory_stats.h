/* memory_stats.h - an aggregator (sink.h): allocations per memory pool: how many, how much
 * is live and was at its peak, and which callstacks allocated most. Memory: the live
 * allocations of each pool (address -> size) and one entry per allocating callstack. */
#ifndef TRACYC_TRACE_MEMORY_STATS_H
#define TRACYC_TRACE_MEMORY_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"
#include "util/map.h"

/* Allocations made from one callstack (MemAllocCallstack). */
struct tct_alloc_site {
    uint32_t callstack; /* for its source's names.callstack */
    uint64_t count, bytes;
};

struct tct_mem_pool {
    uint32_t source, id; /* id for names.pool; 0 = the default pool */
    uint64_t allocs, frees, discards;
    uint64_t unmatched_frees; /* frees of addresses not known as live */
    uint64_t live_bytes, peak_bytes, total_bytes;
    struct tct_alloc_site *sites; /* in order of first appearance */
    size_t site_count;
    uint64_t frees_with_callstack;
    /* internal */
    struct tcu_map live;       /* address -> size */
    struct tcu_map site_index; /* callstack -> index in sites */
    size_t site_cap;
};

struct tct_memory_stats;

/* The trace's memory statistics, added to it on first use; NULL when out of memory. */
struct tct_memory_stats *tct_memory_stats_of(struct tct_trace *tr);
/* The pools, in the order they first appeared. */
size_t tct_memory_pool_count(const struct tct_memory_stats *ms);
const struct tct_mem_pool *tct_memory_pool_at(const struct tct_memory_stats *ms, size_t index);
/* Events the statistics could not keep (memory ran out). */
uint64_t tct_memory_stats_lost(const struct tct_memory_stats *ms);

#endif
