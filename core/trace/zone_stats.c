/* zone_stats.c - per-source-location zone statistics.
 *
 * Spans are accumulated thread by thread, each thread's zones in pre-order: the order in
 * which Tracy's server rebuilds its statistics when it loads a trace (the way
 * tracy-csvexport sees it). */
#include "trace/zone_stats.h"
#include "util/array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double tct_spread_std_about(const struct tct_spread *s, double center)
{
    if (s->n < 2)
        return 0;
    /* sum((x - c)^2) = sum((x - mean)^2) + n (mean - c)^2 */
    double offset = s->mean - center;
    return sqrt((s->m2 + (double)s->n * offset * offset) / (double)(s->n - 1));
}

static struct tct_srcloc_stats *entry_for(struct tct_zone_stats *s, uint32_t srcloc, size_t *cap)
{
    uint64_t *slot = tcu_map_get(&s->by_srcloc, srcloc);
    if (slot)
        return &s->entries[*slot];
    struct tct_srcloc_stats *grown = tcu_grow(NULL, s->entries, cap, s->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    s->entries = grown;
    if (tcu_map_put(&s->by_srcloc, srcloc, s->count) < 0)
        return NULL;
    struct tct_srcloc_stats *e = &s->entries[s->count++];
    *e = (struct tct_srcloc_stats){
        .srcloc = srcloc,
        .min = INT64_MAX,
        .max = INT64_MIN,
        .self_min = INT64_MAX,
        .self_max = INT64_MIN,
    };
    return e;
}

struct self_pass {
    struct tct_zone_stats *stats;
    enum tct_stats_rule rule;
};

static int add_self_time(void *user, size_t index, const struct tct_zone *z, int64_t self)
{
    (void)index;
    struct self_pass *p = user;
    if (!tct_zone_counts(z, p->rule))
        return 0;
    struct tct_srcloc_stats *e = &p->stats->entries[*tcu_map_get(&p->stats->by_srcloc, z->srcloc)];
    e->self_total = tct_time_add(e->self_total, self);
    tct_spread_add(&e->self_spread, self);
    if (self < e->self_min)
        e->self_min = self;
    if (self > e->self_max)
        e->self_max = self;
    return 0;
}

static int by_srcloc(const void *a, const void *b)
{
    uint32_t sa = ((const struct tct_srcloc_stats *)a)->srcloc;
    uint32_t sb = ((const struct tct_srcloc_stats *)b)->srcloc;
    return sa < sb ? -1 : sa > sb;
}

int tct_zone_stats_compute(struct tct_zone_stats *s, const struct tct_trace *tr, enum tct_stats_rule rule)
{
    memset(s, 0, sizeof *s);
    tcu_map_init(&s->by_srcloc, 0, NULL);
    size_t cap = 0;
    for (size_t t = 0; t < tr->thread_count; t++) {
        const struct tct_thread *th = tr->threads[t];
        for (size_t i = 0; i < th->zones.count; i++) {
            const struct tct_zone *z = tct_thread_zone(th, i);
            if (!tct_zone_counts(z, rule))
                continue;
            struct tct_srcloc_stats *e = entry_for(s, z->srcloc, &cap);
            if (!e)
                goto fail;
            int64_t span = z->end - z->begin;
            e->count++;
            e->total = tct_time_add(e->total, span);
            if (span < e->min)
                e->min = span;
            if (span > e->max)
                e->max = span;
            tct_spread_add(&e->spread, span);
        }
    }
    if (s->count) /* entries is NULL when no zone counts: qsort must not see it */
        qsort(s->entries, s->count, sizeof *s->entries, by_srcloc);
    for (size_t i = 0; i < s->count; i++)
        if (tcu_map_put(&s->by_srcloc, s->entries[i].srcloc, i) < 0)
            goto fail;
    struct self_pass pass = {s, rule};
    for (size_t t = 0; t < tr->thread_count; t++)
        if (tct_thread_walk(tr->threads[t], add_self_time, &pass) != 0)
            goto fail;
    return 0;
fail:
    tct_zone_stats_free(s);
    return -1;
}

void tct_zone_stats_free(struct tct_zone_stats *s)
{
    free(s->entries);
    tcu_map_free(&s->by_srcloc);
    memset(s, 0, sizeof *s);
}
