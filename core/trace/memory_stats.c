/* memory_stats.c - allocations per memory pool (memory_stats.h). */
#include "trace/memory_stats.h"
#include "util/array.h"

#include <stdlib.h>

struct tct_memory_stats {
    struct tct_sink sink;
    struct tct_mem_pool **pools; /* in order of first appearance */
    size_t count, cap;
    struct tcu_map index; /* source << 32 | pool id -> index in pools */
    uint64_t lost;
};

static struct tct_mem_pool *pool_for(struct tct_memory_stats *ms, uint32_t source, uint32_t id)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *slot = tcu_map_get(&ms->index, key);
    if (slot)
        return ms->pools[*slot];
    struct tct_mem_pool **grown = tcu_grow(NULL, ms->pools, &ms->cap, ms->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    ms->pools = grown;
    struct tct_mem_pool *p = calloc(1, sizeof *p);
    if (!p || tcu_map_put(&ms->index, key, ms->count) < 0) {
        free(p);
        return NULL;
    }
    p->source = source;
    p->id = id;
    tcu_map_init(&p->live, 0, NULL);
    tcu_map_init(&p->site_index, 0, NULL);
    ms->pools[ms->count++] = p;
    return p;
}

/* Counts an allocation against the callstack it was made from. */
static int alloc_site(struct tct_mem_pool *p, uint32_t callstack, uint64_t size)
{
    const uint64_t *index = tcu_map_get(&p->site_index, callstack);
    if (!index) {
        struct tct_alloc_site *grown = tcu_grow(NULL, p->sites, &p->site_cap, p->site_count + 1, sizeof *grown);
        if (!grown)
            return -1;
        p->sites = grown;
        if (tcu_map_put(&p->site_index, callstack, p->site_count) < 0)
            return -1;
        p->sites[p->site_count] = (struct tct_alloc_site){.callstack = callstack};
        index = tcu_map_get(&p->site_index, callstack);
        p->site_count++;
    }
    struct tct_alloc_site *site = &p->sites[*index];
    site->count++;
    site->bytes += size;
    return 0;
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_memory_stats *ms = (struct tct_memory_stats *)sink;
    const struct tcd_event *ev = rec->u.event;
    struct tct_mem_pool *p = pool_for(ms, rec->source->index, ev->id);
    if (!p) {
        ms->lost++;
        return;
    }
    uint64_t size;
    switch (ev->kind) {
    case TCD_MEM_ALLOC:
        if (tcu_map_remove(&p->live, ev->address, &size))
            p->live_bytes -= size; /* allocated twice without a free: keep the newer */
        if (tcu_map_put(&p->live, ev->address, ev->value) < 0) {
            ms->lost++;
            return;
        }
        p->allocs++;
        p->live_bytes += ev->value;
        p->total_bytes = tct_bytes_add(p->total_bytes, ev->value);
        if (p->live_bytes > p->peak_bytes)
            p->peak_bytes = p->live_bytes;
        if (ev->callstack && alloc_site(p, ev->callstack, ev->value) != 0)
            ms->lost++;
        break;
    case TCD_MEM_FREE:
        if (ev->address == 0)
            break; /* free(NULL) */
        p->frees++;
        if (ev->callstack)
            p->frees_with_callstack++;
        if (tcu_map_remove(&p->live, ev->address, &size))
            p->live_bytes -= size;
        else
            p->unmatched_frees++;
        break;
    default: /* TCD_MEM_DISCARD: everything in the pool is gone */
        p->discards++;
        tcu_map_clear(&p->live);
        p->live_bytes = 0;
        break;
    }
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_memory_stats *ms = (struct tct_memory_stats *)sink;
    for (size_t i = 0; i < ms->count; i++) {
        tcu_map_free(&ms->pools[i]->live);
        tcu_map_free(&ms->pools[i]->site_index);
        free(ms->pools[i]->sites);
        free(ms->pools[i]);
    }
    free(ms->pools);
    tcu_map_free(&ms->index);
    free(ms);
}

static size_t stats_memory(const struct tct_sink *sink)
{
    const struct tct_memory_stats *ms = (const struct tct_memory_stats *)sink;
    size_t bytes = sizeof *ms + ms->cap * sizeof *ms->pools + tcu_map_memory(&ms->index);
    for (size_t i = 0; i < ms->count; i++)
        bytes += sizeof *ms->pools[i] + tcu_map_memory(&ms->pools[i]->live) +
                 tcu_map_memory(&ms->pools[i]->site_index) + ms->pools[i]->site_cap * sizeof *ms->pools[i]->sites;
    return bytes;
}

static const struct tct_sink_ops ops = {"memory statistics", TCT_REC_BIT(TCT_REC_MEMORY), on_record, stats_free,
                                        stats_memory};

struct tct_memory_stats *tct_memory_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_memory_stats *)found;
    struct tct_memory_stats *ms = calloc(1, sizeof *ms);
    if (!ms)
        return NULL;
    ms->sink.ops = &ops;
    tcu_map_init(&ms->index, 0, NULL);
    return tct_trace_add_sink(tr, &ms->sink) == 0 ? ms : NULL;
}

size_t tct_memory_pool_count(const struct tct_memory_stats *ms)
{
    return ms ? ms->count : 0;
}

const struct tct_mem_pool *tct_memory_pool_at(const struct tct_memory_stats *ms, size_t index)
{
    return ms && index < ms->count ? ms->pools[index] : NULL;
}

uint64_t tct_memory_stats_lost(const struct tct_memory_stats *ms)
{
    return ms ? ms->lost : 0;
}
