/* trace_events.c - a capture's trace: its sources, the events handed to the parts that
 * assemble them (trace_zones.c, trace_records.c). */
#include "trace/trace_internal.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

/* ---- the trace --------------------------------------------------------------------------- */

struct tct_trace *tct_trace_new(void)
{
    return calloc(1, sizeof(struct tct_trace));
}

static void source_free(struct tct_source_state *s)
{
    tct_trace_free_sections(s);
    tcu_map_free(&s->threads);
    tcu_map_free(&s->plots);
    tcu_map_free(&s->frame_sets);
    tcu_map_free(&s->gpu_contexts);
    for (size_t i = 0; i < s->pub.app_info_count; i++)
        free(s->pub.app_info[i]);
    free(s->pub.app_info);
    free(s->pub.crash.text);
    free(s);
}

void tct_trace_free(struct tct_trace *tr)
{
    if (!tr)
        return;
    for (size_t i = 0; i < tr->sink_count && !tr->sinks_borrowed; i++)
        tr->sinks[i]->ops->free(tr->sinks[i]);
    free(tr->sinks);
    tcu_tape_free(tr->kept);
    for (int k = 0; k < TCT_REC_KIND_COUNT; k++)
        free(tr->wants[k]);
    for (size_t i = 0; i < tr->thread_count; i++)
        tct_trace_free_thread(tr->threads[i]);
    free(tr->threads);
    tct_trace_free_records(tr);
    for (size_t i = 0; i < tr->source_count; i++)
        source_free(tr->sources[i]);
    free(tr->sources);
    free(tr);
}

int tct_trace_add_source(struct tct_trace *tr, const struct tct_names *names, int64_t offset)
{
    struct tct_source_state **grown =
        tcu_grow(NULL, tr->sources, &tr->source_cap, tr->source_count + 1, sizeof *tr->sources);
    struct tct_source_state *s = grown ? calloc(1, sizeof *s) : NULL;
    if (grown)
        tr->sources = grown;
    if (!s || tr->source_count >= UINT32_MAX)
        return free(s), -1;
    s->pub.index = (uint32_t)tr->source_count;
    s->pub.names = *names;
    s->pub.offset = offset;
    s->pub.scale = 1.0;
    s->pub.clock_error = tr->source_count ? -1 : 0; /* the first source's clock is the trace's */
    tcu_map_init(&s->threads, 0, NULL);
    tcu_map_init(&s->plots, 0, NULL);
    tcu_map_init(&s->frame_sets, 0, NULL);
    tcu_map_init(&s->gpu_contexts, 0, NULL);
    tcu_map_init(&s->sections_left, 0, NULL);
    tr->sources[tr->source_count++] = s;
    return (int)s->pub.index;
}

void tct_trace_set_source_clock(struct tct_trace *tr, uint32_t source, int64_t offset, double scale, int64_t error)
{
    if (source >= tr->source_count || !(scale > 0))
        return;
    struct tct_source_state *s = tr->sources[source];
    struct tct_remap m = {s->pub.offset, offset, s->pub.scale, scale};
    if (s->pub.events && !tr->finished && (offset != m.old_offset || scale != m.old_scale)) {
        tct_trace_remap_zones(tr, source, &m);
        tct_trace_remap_records(tr, source, &m);
        tct_trace_remap_sections(s, &m);
        s->pub.last_time = tct_remap_time(&m, s->pub.last_time);
    }
    s->pub.offset = offset;
    s->pub.scale = scale;
    s->pub.clock_error = error;
}

void tct_trace_set_source_names(struct tct_trace *tr, uint32_t source, const struct tct_names *names)
{
    if (source < tr->source_count)
        tr->sources[source]->pub.names = *names;
}

void tct_trace_source_incomplete(struct tct_trace *tr, uint32_t source, const char *why)
{
    if (source < tr->source_count)
        tr->sources[source]->pub.incomplete = why;
}

/* ---- events --------------------------------------------------------------------------------- */

/* The time an event moves the trace's end to: Tracy's server counts zones, messages,
 * frames, plots, memory, lock waits/obtains/releases, GPU zones and times, fibers, sections; not
 * lock announcements, terminations or marks, GPU contexts or crashes. */
static int64_t event_time(const struct tcd_event *ev)
{
    switch (ev->kind) {
    case TCD_ZONE_BEGIN:
    case TCD_ZONE_END:
    case TCD_MESSAGE:
    case TCD_APP_INFO:
    case TCD_FRAME_MARK:
    case TCD_FRAME_START:
    case TCD_FRAME_END:
    case TCD_PLOT:
    case TCD_MEM_ALLOC:
    case TCD_MEM_FREE:
    case TCD_MEM_DISCARD:
    case TCD_LOCK_WAIT:
    case TCD_LOCK_OBTAIN:
    case TCD_LOCK_RELEASE:
    case TCD_GPU_ZONE_BEGIN:
    case TCD_GPU_ZONE_END:
    case TCD_FIBER_ENTER:
    case TCD_FIBER_LEAVE:
    case TCD_SECTION_ENTER:
    case TCD_SECTION_LEAVE:
        return ev->time;
    case TCD_SAMPLE:
    case TCD_CONTEXT_SWITCH:
    case TCD_THREAD_WAKEUP:
        return ev->time ? ev->time : TCT_TIME_NONE; /* 0: the client gave no time */
    case TCD_GPU_TIME:
        return ev->time2;
    default:
        return TCT_TIME_NONE;
    }
}

/* Times a capture can hold: about 104 days either side of the trace origin. A hostile
 * stream's times are pulled into this range, so that the difference of two times (a
 * zone's span, a wait) never overflows, nor a source's offset added to them. */
#define TIME_LIMIT ((int64_t)1 << 53)

static int64_t clamp_time(int64_t t)
{
    return t < -TIME_LIMIT ? -TIME_LIMIT : t > TIME_LIMIT ? TIME_LIMIT : t;
}

/* A source's time on the trace's clock. */
static int64_t on_clock(const struct tct_source *src, int64_t t)
{
    return src->offset + (src->scale == 1.0 ? t : (int64_t)((double)t * src->scale));
}

static int out_of_range(int64_t t)
{
    return t < -TIME_LIMIT || t > TIME_LIMIT;
}

/* Zone begins and ends, most events by far, from a source on the trace's clock: they go
 * straight to the zones (what on_any_event does for them, without its tests and switches). */
static inline int is_zone_on_clock(const struct tct_source_state *src, const struct tcd_event *in)
{
    return (in->kind == TCD_ZONE_BEGIN || in->kind == TCD_ZONE_END) && !src->pub.offset && src->pub.scale == 1.0 &&
           !out_of_range(in->time);
}

static inline void zone_on_clock(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *in)
{
    src->pub.events++;
    if (in->time > src->pub.last_time)
        src->pub.last_time = in->time;
    tct_trace_zone_event(tr, src, in);
}

/* Keeps the largest of the running totals a client reports. */
static void running_total(uint64_t *total, uint64_t value)
{
    if (value > *total)
        *total = value;
}

/* Every event but the zones of tct_trace_on_event's short way. Out of line: the short way
 * then makes no frame of its own, its one call a jump where the compiler optimizes sibling
 * calls. */
__attribute__((noinline)) static void on_any_event(struct tct_trace *tr, uint32_t source, struct tct_source_state *src,
                                                   const struct tcd_event *in)
{
    if (tr->kept)
        tct_trace_log_event(tr, source, in);
    if (is_zone_on_clock(src, in)) {
        zone_on_clock(tr, src, in);
        return;
    }
    /* The event as the trace takes it: times pulled into range and put on the trace's
     * clock (0 stays 0 for the kinds where it means "no time"). A copy only when it differs. */
    struct tcd_event copy;
    const struct tcd_event *ev = in;
    if (src->pub.offset || src->pub.scale != 1.0 || out_of_range(in->time) || out_of_range(in->time2)) {
        copy = *in;
        int untimed =
            (in->kind == TCD_SAMPLE || in->kind == TCD_CONTEXT_SWITCH || in->kind == TCD_THREAD_WAKEUP) && !in->time;
        copy.time = untimed ? 0 : on_clock(&src->pub, clamp_time(in->time));
        copy.time2 = on_clock(&src->pub, clamp_time(in->time2));
        ev = &copy;
    }
    src->pub.events++;
    int64_t time = event_time(ev);
    if (time != TCT_TIME_NONE && time > src->pub.last_time)
        src->pub.last_time = time;
    switch (ev->kind) {
    case TCD_ZONE_BEGIN:
    case TCD_ZONE_END:
    case TCD_ZONE_TEXT:
    case TCD_ZONE_NAME:
    case TCD_ZONE_COLOR:
    case TCD_ZONE_VALUE:
        tct_trace_zone_event(tr, src, ev);
        break;
    case TCD_MESSAGE:
        tct_trace_message(tr, src, ev);
        break;
    case TCD_APP_INFO:
        tct_trace_app_info(src, ev);
        break;
    case TCD_FRAME_MARK:
    case TCD_FRAME_START:
    case TCD_FRAME_END:
        tct_trace_frame(tr, src, ev);
        break;
    case TCD_PLOT:
    case TCD_PLOT_CONFIG:
        tct_trace_plot(tr, src, ev);
        break;
    case TCD_MEM_ALLOC:
    case TCD_MEM_FREE:
    case TCD_MEM_DISCARD:
        tct_trace_memory_event(tr, src, ev);
        break;
    case TCD_LOCK_ANNOUNCE:
    case TCD_LOCK_TERMINATE:
    case TCD_LOCK_WAIT:
    case TCD_LOCK_OBTAIN:
    case TCD_LOCK_RELEASE:
    case TCD_LOCK_MARK:
    case TCD_LOCK_NAME:
        tct_trace_lock_event(tr, src, ev);
        break;
    case TCD_GPU_CONTEXT:
    case TCD_GPU_CONTEXT_NAME:
    case TCD_GPU_ZONE_BEGIN:
    case TCD_GPU_ZONE_END:
    case TCD_GPU_TIME:
        tct_trace_gpu(tr, src, ev);
        break;
    case TCD_FIBER_ENTER:
        tct_trace_fiber_enter(tr, src, ev);
        break;
    case TCD_CRASH:
        tct_trace_crash(src, ev);
        break;
    case TCD_DROPPED:
        running_total(&src->pub.dropped, ev->value);
        break;
    case TCD_PLOT_SKIPPED:
        running_total(&src->pub.plot_skipped, ev->value);
        break;
    case TCD_SAMPLES_LOST:
        running_total(&src->pub.samples_lost, ev->value);
        break;
    case TCD_SAMPLE:
        tct_trace_sample(tr, src, ev);
        break;
    case TCD_CONTEXT_SWITCH:
    case TCD_THREAD_WAKEUP:
        tct_trace_system(tr, src, ev);
        break;
    case TCD_FRAME_IMAGE: /* images are not part of any output */
    case TCD_FIBER_LEAVE: /* the decoder already moved the thread's events back */
    case TCD_SECTION_ENTER:
    case TCD_SECTION_LEAVE:
    case TCD_SECTION_SETUP:
        tct_trace_section(tr, src, ev);
        break;
    case TCD_CALLSTACK_FRAME: /* frames stay in the decoder's tables */
    case TCD_THREAD_NAME:     /* names too (left above) */
    case TCD_CLOCK_SYNC:      /* the collector's, to put the source on the trace's clock */
        break;
    case TCD_EVENT_KIND_COUNT:
        src->pub.ignored_events++;
        break;
    }
}

void tct_trace_on_event(struct tct_trace *tr, uint32_t source, const struct tcd_event *in)
{
    /* Names stay in the decoder's tables: no event of the trace. */
    if (source >= tr->source_count || tr->finished || in->kind == TCD_THREAD_NAME)
        return;
    struct tct_source_state *src = tr->sources[source];
    if (!tr->kept && is_zone_on_clock(src, in))
        zone_on_clock(tr, src, in);
    else
        on_any_event(tr, source, src, in);
}

void tct_trace_finish(struct tct_trace *tr)
{
    if (tr->finished)
        return;
    tct_trace_finish_zones(tr);
    tct_trace_finish_sections(tr);
    tct_trace_finish_records(tr);
    tr->finished = 1;
}

int tct_trace_finished(const struct tct_trace *tr)
{
    return tr->finished;
}

/* ---- reading ------------------------------------------------------------------------------ */

size_t tct_trace_source_count(const struct tct_trace *tr)
{
    return tr->source_count;
}
const struct tct_source *tct_trace_source(const struct tct_trace *tr, uint32_t source)
{
    return source < tr->source_count ? &tr->sources[source]->pub : NULL;
}
size_t tct_trace_thread_count(const struct tct_trace *tr)
{
    return tr->thread_count;
}
const struct tct_thread *tct_trace_thread_at(const struct tct_trace *tr, size_t index)
{
    return index < tr->thread_count ? &tr->threads[index]->pub : NULL;
}
const struct tct_thread *tct_trace_thread(const struct tct_trace *tr, uint32_t source, uint32_t id)
{
    if (source >= tr->source_count)
        return NULL;
    const uint64_t *slot = tcu_map_get(&tr->sources[source]->threads, id);
    return slot ? &tr->threads[*slot]->pub : NULL;
}
size_t tct_trace_plot_count(const struct tct_trace *tr)
{
    return tr->plot_count;
}
const struct tct_plot *tct_trace_plot_at(const struct tct_trace *tr, size_t index)
{
    return index < tr->plot_count ? &tr->plots[index]->pub : NULL;
}
size_t tct_trace_frame_set_count(const struct tct_trace *tr)
{
    return tr->frame_set_count;
}
const struct tct_frame_set *tct_trace_frame_set_at(const struct tct_trace *tr, size_t index)
{
    return index < tr->frame_set_count ? &tr->frame_sets[index]->pub : NULL;
}
size_t tct_trace_gpu_context_count(const struct tct_trace *tr)
{
    return tr->gpu_context_count;
}
const struct tct_gpu_context *tct_trace_gpu_context_at(const struct tct_trace *tr, size_t index)
{
    return index < tr->gpu_context_count ? &tr->gpu_contexts[index]->pub : NULL;
}

int64_t tct_source_end(const struct tct_source *src)
{
    int64_t last = src->last_time;
    const struct tcd_welcome *w = src->names.welcome;
    if (w) {
        /* the welcome is the client's word: its difference taken in double, kept in range */
        double init = ((double)w->init_end - (double)w->init_begin) * w->timer_mul;
        int64_t init_end = on_clock(src, init > (double)TIME_LIMIT    ? TIME_LIMIT
                                         : init < -(double)TIME_LIMIT ? -TIME_LIMIT
                                                                      : (int64_t)init);
        if (init_end > last)
            last = init_end;
    }
    return last;
}

int64_t tct_trace_end(const struct tct_trace *tr)
{
    int64_t end = 0;
    for (size_t i = 0; i < tr->source_count; i++) {
        int64_t e = tct_source_end(&tr->sources[i]->pub);
        if (i == 0 || e > end)
            end = e;
    }
    return end;
}

size_t tct_trace_memory(const struct tct_trace *tr)
{
    size_t bytes = sizeof *tr + tr->thread_cap * sizeof *tr->threads + tr->source_cap * sizeof *tr->sources;
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread_state *t = tr->threads[i];
        bytes += sizeof *t + t->open_cap * sizeof *t->open;
        for (size_t k = 0; k < t->open_count; k++)
            if (t->open[k].extras)
                bytes += t->open[k].text_len + t->open[k].name_len;
    }
    for (size_t i = 0; i < tr->source_count; i++) {
        const struct tct_source_state *s = tr->sources[i];
        bytes += sizeof *s + tcu_map_memory(&s->threads) + tcu_map_memory(&s->plots) + tcu_map_memory(&s->frame_sets) +
                 tcu_map_memory(&s->gpu_contexts);
    }
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        const struct tct_gpu_context_state *c = tr->gpu_contexts[i];
        bytes += c->pending_cap * sizeof *c->pending + (c->query_slot ? 65536 * sizeof *c->query_slot : 0);
    }
    if (tr->kept)
        bytes += tcu_tape_memory(tr->kept);
    for (size_t i = 0; i < tr->sink_count; i++)
        if (tr->sinks[i]->ops->memory)
            bytes += tr->sinks[i]->ops->memory(tr->sinks[i]);
    return bytes + (tr->plot_count + tr->frame_set_count) * 64;
}
