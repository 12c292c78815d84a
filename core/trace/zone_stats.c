/* zone_stats.c - zone statistics per source location (zone_stats.h). */
#include "trace/zone_stats.h"
#include "trace/names.h"
#include "util/array.h"
#include "util/map.h"

#include <stdlib.h>
#include <string.h>

/* A source's entries by source location index (dense: the decoder numbers them from 0). */
struct source_index {
    uint32_t *entry; /* + 1; 0: none yet */
    size_t cap;
};

/* An entry keeps the zones Tracy's server counts under TCT_STATS_UPSTREAM and the others
 * (unfinished, or of no span) apart: one sum per zone, not one per rule. TCT_STATS_ALL is
 * their merge, made when the entries are read (tct_zone_stats_sorted): the sums are exact
 * integers and min/max, the same whatever way they are grouped. */
struct entry {
    struct tct_srcloc_stats pub;
    struct tct_span_stats rest; /* the zones outside TCT_STATS_UPSTREAM */
};

struct tct_zone_stats {
    struct tct_sink sink;
    struct entry *entries; /* in order of first appearance */
    size_t count, cap;
    struct source_index *sources;
    size_t source_cap;
};

static void span_init(struct tct_span_stats *s)
{
    s->min = s->self_min = INT64_MAX;
    s->max = s->self_max = INT64_MIN;
}

static struct entry *entry_for(struct tct_zone_stats *zs, uint32_t source, uint32_t srcloc)
{
    if (source >= zs->source_cap) {
        size_t old = zs->source_cap;
        struct source_index *grown = tcu_grow(NULL, zs->sources, &zs->source_cap, (size_t)source + 1, sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + old, 0, (zs->source_cap - old) * sizeof *grown);
        zs->sources = grown;
    }
    struct source_index *si = &zs->sources[source];
    if (srcloc < si->cap && si->entry[srcloc])
        return &zs->entries[si->entry[srcloc] - 1];
    if (srcloc >= si->cap) {
        size_t old = si->cap;
        uint32_t *grown = tcu_grow(NULL, si->entry, &si->cap, (size_t)srcloc + 1, sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + old, 0, (si->cap - old) * sizeof *grown);
        si->entry = grown;
    }
    struct entry *grown = tcu_grow(NULL, zs->entries, &zs->cap, zs->count + 1, sizeof *grown);
    if (!grown || zs->count >= UINT32_MAX - 1)
        return NULL;
    zs->entries = grown;
    si->entry[srcloc] = (uint32_t)zs->count + 1;
    struct entry *e = &zs->entries[zs->count++];
    *e = (struct entry){.pub = {.source = source, .srcloc = srcloc}};
    for (int r = 0; r < TCT_STATS_RULES; r++)
        span_init(&e->pub.rule[r]);
    span_init(&e->rest);
    return e;
}

static void add(struct tct_span_stats *s, int64_t span, int64_t self)
{
    s->count++;
    s->total = tct_time_add(s->total, span);
    s->min = span < s->min ? span : s->min;
    s->max = span > s->max ? span : s->max;
    tct_spread_add(&s->spread, span);
    s->self_total = tct_time_add(s->self_total, self);
    s->self_min = self < s->self_min ? self : s->self_min;
    s->self_max = self > s->self_max ? self : s->self_max;
    tct_spread_add(&s->self_spread, self);
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_zone_stats *zs = (struct tct_zone_stats *)sink;
    const struct tct_zone_record *z = &rec->u.zone;
    struct entry *e = entry_for(zs, rec->source->index, z->srcloc);
    if (!e)
        return; /* out of memory: the statistic misses the zone (the trace is not told) */
    add(tct_zone_counts(z, TCT_STATS_UPSTREAM) ? &e->pub.rule[TCT_STATS_UPSTREAM] : &e->rest, z->end - z->begin,
        z->self);
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_zone_stats *zs = (struct tct_zone_stats *)sink;
    free(zs->entries);
    for (size_t i = 0; i < zs->source_cap; i++)
        free(zs->sources[i].entry);
    free(zs->sources);
    free(zs);
}

static size_t stats_memory(const struct tct_sink *sink)
{
    const struct tct_zone_stats *zs = (const struct tct_zone_stats *)sink;
    size_t bytes = sizeof *zs + zs->cap * sizeof *zs->entries + zs->source_cap * sizeof *zs->sources;
    for (size_t i = 0; i < zs->source_cap; i++)
        bytes += zs->sources[i].cap * sizeof *zs->sources[i].entry;
    return bytes;
}

static const struct tct_sink_ops ops = {"zone statistics", TCT_REC_BIT(TCT_REC_ZONE), on_record, stats_free,
                                        stats_memory};

struct tct_zone_stats *tct_zone_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_zone_stats *)found;
    struct tct_zone_stats *zs = calloc(1, sizeof *zs);
    if (!zs)
        return NULL;
    zs->sink.ops = &ops;
    return tct_trace_add_sink(tr, &zs->sink) == 0 ? zs : NULL;
}

static int by_source_srcloc(const void *pa, const void *pb)
{
    const struct tct_srcloc_stats *a = *(const struct tct_srcloc_stats *const *)pa;
    const struct tct_srcloc_stats *b = *(const struct tct_srcloc_stats *const *)pb;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    return a->srcloc < b->srcloc ? -1 : a->srcloc > b->srcloc;
}

const struct tct_srcloc_stats **tct_zone_stats_sorted(struct tct_zone_stats *zs, size_t *n)
{
    *n = 0;
    if (!zs || !zs->count)
        return NULL;
    const struct tct_srcloc_stats **out = malloc(zs->count * sizeof *out);
    if (!out) {
        *n = 1;
        return NULL;
    }
    for (size_t i = 0; i < zs->count; i++) {
        struct entry *e = &zs->entries[i];
        e->pub.rule[TCT_STATS_ALL] = e->pub.rule[TCT_STATS_UPSTREAM];
        tct_span_merge(&e->pub.rule[TCT_STATS_ALL], &e->rest);
        out[i] = &e->pub;
    }
    qsort(out, zs->count, sizeof *out, by_source_srcloc);
    *n = zs->count;
    return out;
}

/* Adds b's zones to a's. */
void tct_span_merge(struct tct_span_stats *a, const struct tct_span_stats *b)
{
    a->count += b->count;
    a->total = tct_time_add(a->total, b->total);
    a->min = b->min < a->min ? b->min : a->min;
    a->max = b->max > a->max ? b->max : a->max;
    tct_spread_merge(&a->spread, &b->spread);
    a->self_total = tct_time_add(a->self_total, b->self_total);
    a->self_min = b->self_min < a->self_min ? b->self_min : a->self_min;
    a->self_max = b->self_max > a->self_max ? b->self_max : a->self_max;
    tct_spread_merge(&a->self_spread, &b->self_spread);
}

static const struct tct_names *names_of(const struct tct_trace *tr, uint32_t source)
{
    return &tct_trace_source(tr, source)->names;
}

static uint64_t place_key(const struct tct_trace *tr, const struct tct_srcloc_stats *e)
{
    const struct tct_names *names = names_of(tr, e->source);
    const struct tcd_srcloc *sl = names->srcloc(names->ctx, e->srcloc);
    const char *label = tct_srcloc_label(names, e->srcloc), *file = sl && sl->file ? sl->file : "";
    uint32_t line = sl ? sl->line : 0;
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, label, strlen(label) + 1);
    h = tcu_hash_bytes(h, file, strlen(file) + 1);
    return tcu_hash_bytes(h, &line, sizeof line);
}

static int same_place(const struct tct_trace *tr, const struct tct_srcloc_stats *a, const struct tct_srcloc_stats *b)
{
    const struct tct_names *na = names_of(tr, a->source), *nb = names_of(tr, b->source);
    const struct tcd_srcloc *sa = na->srcloc(na->ctx, a->srcloc), *sb = nb->srcloc(nb->ctx, b->srcloc);
    return !strcmp(tct_srcloc_label(na, a->srcloc), tct_srcloc_label(nb, b->srcloc)) &&
           !strcmp(sa && sa->file ? sa->file : "", sb && sb->file ? sb->file : "") &&
           (sa ? sa->line : 0) == (sb ? sb->line : 0);
}

struct tct_place_stats *tct_zone_stats_by_place(const struct tct_trace *tr, const struct tct_srcloc_stats **entries,
                                                size_t count, enum tct_stats_rule rule, size_t *n)
{
    struct tct_place_stats *out = malloc((count ? count : 1) * sizeof *out);
    struct tcu_map by_hash;
    tcu_map_init(&by_hash, 0, NULL);
    *n = 0;
    for (size_t i = 0; out && i < count; i++) {
        const struct tct_srcloc_stats *e = entries[i];
        if (!e->rule[rule].count)
            continue;
        uint64_t h = place_key(tr, e);
        const uint64_t *newest = tcu_map_get(&by_hash, h);
        struct tct_place_stats *place = NULL;
        /* Two source locations of one process stay apart, as Tracy keeps them. */
        for (size_t k = newest ? (size_t)*newest : 0; k && !place; k = out[k - 1].same_hash)
            if (out[k - 1].last_source != e->source && same_place(tr, out[k - 1].first, e))
                place = &out[k - 1];
        if (place) {
            tct_span_merge(&place->sum, &e->rule[rule]);
            place->processes += place->last_source != e->source; /* entries come by source */
            place->last_source = e->source;
            continue;
        }
        out[*n] = (struct tct_place_stats){e, e->rule[rule], 1, e->source, h, newest ? (size_t)*newest : 0};
        if (tcu_map_put(&by_hash, h, ++*n) < 0) {
            free(out);
            out = NULL;
        }
    }
    tcu_map_free(&by_hash);
    return out;
}
