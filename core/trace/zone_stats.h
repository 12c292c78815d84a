/* zone_stats.h - an aggregator (sink.h): zone statistics per source location, as the CSV
 * and the summary show them. Memory: one entry per source location that had a zone. */
#ifndef TRACYC_TRACE_ZONE_STATS_H
#define TRACYC_TRACE_ZONE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/spread.h"
#include "trace/trace.h"

enum tct_stats_rule {
    TCT_STATS_ALL,      /* every zone, unfinished ones closed at the trace end */
    TCT_STATS_UPSTREAM, /* as Tracy's server counts them: finished zones with a span > 0 */
    TCT_STATS_RULES
};

/* Spans and self times of the zones of one source location under one rule. */
struct tct_span_stats {
    uint64_t count;
    int64_t total, min, max;
    struct tct_spread spread;
    int64_t self_total, self_min, self_max;
    struct tct_spread self_spread;
};

struct tct_srcloc_stats {
    uint32_t source, srcloc;
    struct tct_span_stats rule[TCT_STATS_RULES];
};

struct tct_zone_stats;

/* The trace's zone statistics, added to it on first use; NULL when out of memory. */
struct tct_zone_stats *tct_zone_stats_of(struct tct_trace *tr);

/* Every source location with a zone, ordered by source and source location index: a
 * malloc'd array of pointers into the statistics (the caller frees the array), its length
 * in *n; NULL with *n = 0 when there are none, NULL with *n = 1 when memory ran out. */
const struct tct_srcloc_stats **tct_zone_stats_sorted(struct tct_zone_stats *zs, size_t *n);

/* The zones of one place (name, file and line) summed over the processes of the trace
 * that have it (one source location of each): the first names it. */
struct tct_place_stats {
    const struct tct_srcloc_stats *first;
    struct tct_span_stats sum;
    uint32_t processes; /* how many had it */
    /* internal */
    uint32_t last_source;
    uint64_t hash;
    size_t same_hash;
};

/* entries (tct_zone_stats_sorted's) summed by place under the rule, in the order each place
 * first appears among them, leaving out the places without a zone under it: a malloc'd
 * array (the caller frees it) and its length in *n; NULL when out of memory. */
struct tct_place_stats *tct_zone_stats_by_place(const struct tct_trace *tr, const struct tct_srcloc_stats **entries,
                                                size_t count, enum tct_stats_rule rule, size_t *n);

/* Adds b's zones to a's. */
void tct_span_merge(struct tct_span_stats *a, const struct tct_span_stats *b);

/* Whether a zone counts under the rule. */
static inline int tct_zone_counts(const struct tct_zone_record *z, enum tct_stats_rule rule)
{
    return rule == TCT_STATS_ALL || (!(z->flags & TCT_ZONE_UNFINISHED) && z->end > z->begin);
}

#endif
