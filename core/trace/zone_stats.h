/* zone_stats.h - per-source-location zone statistics, shared by the CSV and summary
 * exporters. Computed from a finished trace model. */
#ifndef TRACYC_TRACE_ZONE_STATS_H
#define TRACYC_TRACE_ZONE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "util/map.h"
#include "trace/model.h"

enum tct_stats_rule {
    TCT_STATS_ALL,      /* every zone, unfinished ones closed at the trace end */
    TCT_STATS_UPSTREAM, /* as Tracy's server counts them: finished zones with a span > 0 */
};

/* Welford's running mean and sum of squared deviations: numerically sound where a sum of
 * squares minus the squared sum cancels out (or, in integers, overflows). */
struct tct_spread {
    uint64_t n;
    double mean, m2;
};

static inline void tct_spread_add(struct tct_spread *s, int64_t x)
{
    double delta = (double)x - s->mean;
    s->n++;
    s->mean += delta / (double)s->n;
    s->m2 += delta * ((double)x - s->mean);
}

/* The sample standard deviation about center (not necessarily the mean):
 * sqrt(sum((x - center)^2) / (n - 1)); 0 for fewer than two values. */
double tct_spread_std_about(const struct tct_spread *s, double center);

struct tct_srcloc_stats {
    uint32_t srcloc;
    uint64_t count;
    int64_t total, min, max;
    struct tct_spread spread; /* of the spans */
    int64_t self_total, self_min, self_max;
    struct tct_spread self_spread; /* of the self times */
};

struct tct_zone_stats {
    struct tct_srcloc_stats *entries; /* ordered by source location index */
    size_t count;
    struct tcu_map by_srcloc; /* srcloc -> index in entries */
};

/* Returns 0, or -1 when out of memory. */
int tct_zone_stats_compute(struct tct_zone_stats *out, const struct tct_trace *trace, enum tct_stats_rule rule);
void tct_zone_stats_free(struct tct_zone_stats *stats);

/* Whether a zone counts under the rule. */
static inline int tct_zone_counts(const struct tct_zone *z, enum tct_stats_rule rule)
{
    return rule == TCT_STATS_ALL || (!(z->flags & TCT_ZONE_UNFINISHED) && z->end > z->begin);
}

#endif
