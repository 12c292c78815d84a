/* plot_stats.c - each plot's values (plot_stats.h). */
#include "trace/plot_stats.h"
#include "util/array.h"

#include <math.h>
#include <stdlib.h>

struct tct_plot_stats {
    struct tct_sink sink;
    struct tct_plot_values *plots; /* by plot index */
    size_t count, cap;
};

static struct tct_plot_values empty(void)
{
    return (struct tct_plot_values){
        .is_int = 1, .min = INFINITY, .max = -INFINITY, .imin = INT64_MAX, .imax = INT64_MIN};
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_plot_stats *ps = (struct tct_plot_stats *)sink;
    const struct tct_plot_record *p = &rec->u.plot;
    size_t i = p->plot->index;
    if (i >= ps->count) {
        struct tct_plot_values *grown = tcu_grow(NULL, ps->plots, &ps->cap, i + 1, sizeof *grown);
        if (!grown)
            return;
        ps->plots = grown;
        for (; ps->count <= i; ps->count++)
            ps->plots[ps->count] = empty();
    }
    struct tct_plot_values *v = &ps->plots[i];
    v->points++;
    if (!p->is_int)
        v->is_int = 0;
    v->min = p->value < v->min ? p->value : v->min;
    v->max = p->value > v->max ? p->value : v->max;
    v->last = p->value;
    v->imin = p->ivalue < v->imin ? p->ivalue : v->imin;
    v->imax = p->ivalue > v->imax ? p->ivalue : v->imax;
    v->ilast = p->ivalue;
}

static void stats_free(struct tct_sink *sink)
{
    free(((struct tct_plot_stats *)sink)->plots);
    free(sink);
}

static const struct tct_sink_ops ops = {"plot statistics", TCT_REC_BIT(TCT_REC_PLOT), on_record, stats_free, NULL};

struct tct_plot_stats *tct_plot_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_plot_stats *)found;
    struct tct_plot_stats *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->sink.ops = &ops;
    return tct_trace_add_sink(tr, &ps->sink) == 0 ? ps : NULL;
}

struct tct_plot_values tct_plot_stats_get(const struct tct_plot_stats *ps, uint32_t index)
{
    return ps && index < ps->count ? ps->plots[index] : empty();
}
