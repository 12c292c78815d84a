/* sample_stats.c - CPU samples per thread and callstack (sample_stats.h). */
#include "trace/sample_stats.h"
#include "util/array.h"
#include "util/map.h"

#include <stdlib.h>

struct tct_sample_stats {
    struct tct_sink sink;
    struct tct_stack_count *counts; /* in order of first appearance */
    size_t count, cap;
    struct tcu_map index; /* thread index << 32 | callstack -> index in counts */
};

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_sample_stats *ss = (struct tct_sample_stats *)sink;
    if (rec->u.sample.switched_out)
        return;
    uint64_t key = (uint64_t)rec->thread->index << 32 | rec->u.sample.callstack;
    const uint64_t *slot = tcu_map_get(&ss->index, key);
    if (slot) {
        ss->counts[*slot].count++;
        return;
    }
    struct tct_stack_count *grown = tcu_grow(NULL, ss->counts, &ss->cap, ss->count + 1, sizeof *grown);
    if (!grown)
        return;
    ss->counts = grown;
    if (tcu_map_put(&ss->index, key, ss->count) < 0)
        return;
    ss->counts[ss->count++] = (struct tct_stack_count){rec->thread, rec->u.sample.callstack, 1};
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_sample_stats *ss = (struct tct_sample_stats *)sink;
    free(ss->counts);
    tcu_map_free(&ss->index);
    free(ss);
}

static size_t stats_memory(const struct tct_sink *sink)
{
    const struct tct_sample_stats *ss = (const struct tct_sample_stats *)sink;
    return sizeof *ss + ss->cap * sizeof *ss->counts + tcu_map_memory(&ss->index);
}

static const struct tct_sink_ops ops = {"sample counts", TCT_REC_BIT(TCT_REC_SAMPLE), on_record, stats_free,
                                        stats_memory};

struct tct_sample_stats *tct_sample_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_sample_stats *)found;
    struct tct_sample_stats *ss = calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    ss->sink.ops = &ops;
    tcu_map_init(&ss->index, 0, NULL);
    return tct_trace_add_sink(tr, &ss->sink) == 0 ? ss : NULL;
}

static int by_thread_callstack(const void *pa, const void *pb)
{
    const struct tct_stack_count *a = pa, *b = pb;
    if (a->thread->index != b->thread->index)
        return a->thread->index < b->thread->index ? -1 : 1;
    return a->callstack < b->callstack ? -1 : a->callstack > b->callstack;
}

struct tct_stack_count *tct_sample_counts(const struct tct_sample_stats *ss, size_t *n)
{
    *n = 0;
    if (!ss || !ss->count)
        return NULL;
    struct tct_stack_count *out = malloc(ss->count * sizeof *out);
    if (!out) {
        *n = 1;
        return NULL;
    }
    for (size_t i = 0; i < ss->count; i++)
        out[i] = ss->counts[i];
    qsort(out, ss->count, sizeof *out, by_thread_callstack);
    *n = ss->count;
    return out;
}
