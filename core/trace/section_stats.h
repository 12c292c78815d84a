/* section_stats.h - an aggregator (sink.h): sections grouped by source, category and name,
 * with how often they were entered and how long they lasted. Memory: one entry (and its
 * name) per group. */
#ifndef TRACYC_TRACE_SECTION_STATS_H
#define TRACYC_TRACE_SECTION_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct tct_section_group {
    uint32_t source;
    uint16_t category;
    char *name; /* name_len bytes, NULs included (one more ends it) */
    size_t name_len;
    uint64_t count;
    int64_t total, max;
    uint32_t same_hash; /* internal: an older group with the same key hash, + 1 */
};

struct tct_section_stats;

/* The trace's section statistics, added to it on first use; NULL when out of memory. */
struct tct_section_stats *tct_section_stats_of(struct tct_trace *tr);
/* The groups, in the order they first appeared; sections seen in all. */
size_t tct_section_group_count(const struct tct_section_stats *ss);
const struct tct_section_group *tct_section_group_at(const struct tct_section_stats *ss, size_t index);
uint64_t tct_section_stats_entered(const struct tct_section_stats *ss);

#endif
