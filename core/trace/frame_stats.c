/* frame_stats.c - frames per frame set (frame_stats.h). */
#include "trace/frame_stats.h"
#include "util/array.h"

#include <stdlib.h>

struct tct_frame_stats {
    struct tct_sink sink;
    struct tct_frame_set_stats *sets; /* by frame set index */
    size_t count, cap;
};

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_frame_stats *fs = (struct tct_frame_stats *)sink;
    const struct tct_frame_record *f = &rec->u.frame;
    size_t i = f->set->index;
    if (i >= fs->count) {
        struct tct_frame_set_stats *grown = tcu_grow(NULL, fs->sets, &fs->cap, i + 1, sizeof *grown);
        if (!grown)
            return;
        fs->sets = grown;
        for (; fs->count <= i; fs->count++)
            fs->sets[fs->count] = (struct tct_frame_set_stats){.min = INT64_MAX};
    }
    struct tct_frame_set_stats *s = &fs->sets[i];
    s->frames++;
    if (f->end == TCT_TIME_NONE)
        return;
    int64_t len = f->end - f->start;
    s->timed++;
    s->total = tct_time_add(s->total, len);
    s->min = len < s->min ? len : s->min;
    s->max = len > s->max ? len : s->max;
}

static void stats_free(struct tct_sink *sink)
{
    free(((struct tct_frame_stats *)sink)->sets);
    free(sink);
}

static const struct tct_sink_ops ops = {"frame statistics", TCT_REC_BIT(TCT_REC_FRAME), on_record, stats_free, NULL};

struct tct_frame_stats *tct_frame_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_frame_stats *)found;
    struct tct_frame_stats *fs = calloc(1, sizeof *fs);
    if (!fs)
        return NULL;
    fs->sink.ops = &ops;
    return tct_trace_add_sink(tr, &fs->sink) == 0 ? fs : NULL;
}

struct tct_frame_set_stats tct_frame_stats_get(const struct tct_frame_stats *fs, uint32_t index)
{
    if (fs && index < fs->count)
        return fs->sets[index];
    return (struct tct_frame_set_stats){.min = INT64_MAX};
}
