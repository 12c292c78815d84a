/* gpu_stats.c - GPU zones per context (gpu_stats.h). */
#include "trace/gpu_stats.h"
#include "util/array.h"

#include <stdlib.h>

struct tct_gpu_stats {
    struct tct_sink sink;
    struct tct_gpu_context_stats *contexts; /* by context index */
    size_t count, cap;
};

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_gpu_stats *gs = (struct tct_gpu_stats *)sink;
    const struct tct_gpu_record *g = &rec->u.gpu;
    size_t i = g->context->index;
    if (i >= gs->count) {
        struct tct_gpu_context_stats *grown = tcu_grow(NULL, gs->contexts, &gs->cap, i + 1, sizeof *grown);
        if (!grown)
            return;
        gs->contexts = grown;
        for (; gs->count <= i; gs->count++)
            gs->contexts[gs->count] = (struct tct_gpu_context_stats){0};
    }
    struct tct_gpu_context_stats *c = &gs->contexts[i];
    c->zones++;
    if (g->gpu_begin == TCT_TIME_NONE || g->gpu_end == TCT_TIME_NONE)
        return;
    c->timed++;
    if (g->depth == 0)
        c->busy = tct_time_add(c->busy, g->gpu_end - g->gpu_begin);
}

static void stats_free(struct tct_sink *sink)
{
    free(((struct tct_gpu_stats *)sink)->contexts);
    free(sink);
}

static const struct tct_sink_ops ops = {"GPU statistics", TCT_REC_BIT(TCT_REC_GPU_ZONE), on_record, stats_free, NULL};

struct tct_gpu_stats *tct_gpu_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_gpu_stats *)found;
    struct tct_gpu_stats *gs = calloc(1, sizeof *gs);
    if (!gs)
        return NULL;
    gs->sink.ops = &ops;
    return tct_trace_add_sink(tr, &gs->sink) == 0 ? gs : NULL;
}

struct tct_gpu_context_stats tct_gpu_stats_get(const struct tct_gpu_stats *gs, uint32_t index)
{
    return gs && index < gs->count ? gs->contexts[index] : (struct tct_gpu_context_stats){0};
}
