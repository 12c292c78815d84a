/* plot_stats.h - an aggregator (sink.h): each plot's values, counted, with their range and
 * the last one. Memory: one entry per plot. */
#ifndef TRACYC_TRACE_PLOT_STATS_H
#define TRACYC_TRACE_PLOT_STATS_H

#include <stdint.h>

#include "trace/trace.h"

struct tct_plot_values {
    uint64_t points;
    uint8_t is_int;        /* every value came as an integer: the i fields are exact */
    double min, max, last; /* every value as a double */
    int64_t imin, imax, ilast;
};

struct tct_plot_stats;

/* The trace's plot statistics, added to it on first use; NULL when out of memory. */
struct tct_plot_stats *tct_plot_stats_of(struct tct_trace *tr);
/* Those of the plot with this index (tct_trace_plot_at); points = 0 when none came. */
struct tct_plot_values tct_plot_stats_get(const struct tct_plot_stats *ps, uint32_t index);

#endif
