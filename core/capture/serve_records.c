/* serve_records.c - the proxy's sink: each record of the trace, from whichever process,
 * re-encoded as the items of one client (docs/capture.md, "One Tracy server for every
 * process").
 *
 * Records come with their times on the trace's clock and their ids the process's own; the
 * server is given the proxy's ids (serve_ids.c). A record goes out as soon as it comes, so
 * the server sees each process as it runs: a zone's begin when its thread goes on (the
 * text set right after it with it), its end, and text added in between, with the end.
 * Each process keeps the clock it had at its first record (serve_time). Times never go back
 * on one thread, frame set, plot, pool, lock or GPU context (the server expects them in
 * order): one that would (the origin moved back at the capture's end) is given as the
 * latest one.
 */
#include "capture/serve_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define MAX_FRAMES 255 /* of a callstack sent */

/* Keys of serve_monotonic, apart per kind. */
#define KEY_FRAME_SET(id) ((uint64_t)1 << 40 | (id))
#define KEY_PLOT(id) ((uint64_t)2 << 40 | (id))
#define KEY_POOL(id) ((uint64_t)3 << 40 | (id))
#define KEY_LOCK(id) ((uint64_t)4 << 40 | (id))
#define KEY_GPU(id) ((uint64_t)5 << 40 | (id))

struct serve_sink {
    struct tct_sink base;
    struct tcs_serve *s; /* NULL once the proxy is freed */
};

static int64_t thread_time(struct serve_thread *t, int64_t time)
{
    if (time < t->last)
        return t->last;
    t->last = time;
    return time;
}

/* The callstack as the proxy's addresses (one per frame of the process), sent for the
 * next event: 1, or 0 when there is none to send. */
static int send_callstack(struct tcs_serve *s, const struct tct_source *src, uint32_t id, uint8_t type)
{
    uint32_t depth = 0;
    const uint32_t *frames = id && src->names.callstack ? src->names.callstack(src->names.ctx, id, &depth) : NULL;
    if (!frames || depth == 0)
        return 0;
    uint64_t addresses[MAX_FRAMES];
    size_t n = depth < MAX_FRAMES ? depth : MAX_FRAMES;
    for (size_t i = 0; i < n; i++)
        addresses[i] = SERVE_ID(SK_FRAME, src->index, frames[i]);
    tcw_enc_callstack(&s->enc, type, addresses, n);
    return 1;
}

static struct serve_thread *thread_context(struct tcs_serve *s, const struct tct_record *rec)
{
    struct serve_thread *t = serve_thread_of(s, rec->source->index, rec->thread->id);
    if (t)
        tcw_enc_thread(&s->enc, t->tid);
    return t;
}

static void zone_text(struct tcs_serve *s, struct serve_thread *t, const struct tct_zone_record *z)
{
    uint32_t *sent = &t->sent_text[t->depth - 1];
    if (!z->text || z->text_len <= *sent)
        return;
    /* Texts added later were joined to the first with '\n', as the server joins them. */
    size_t from = *sent ? *sent + 1 : 0;
    if (from < z->text_len)
        tcw_enc_zone_text(&s->enc, TCW_ZoneText, z->text + from,
                          z->text_len - from > TCW_MAX_STRING ? TCW_MAX_STRING : z->text_len - from);
    *sent = (uint32_t)(z->text_len > UINT32_MAX ? UINT32_MAX : z->text_len);
}

static void zone_begin(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_zone_record *z = &rec->u.zone;
    struct serve_thread *t = thread_context(s, rec);
    uint32_t *stack = t ? tcu_grow(NULL, t->sent_text, &t->cap, t->depth + 1, sizeof *stack) : NULL;
    if (!stack)
        return;
    t->sent_text = stack;
    stack[t->depth++] = 0;
    int64_t time = thread_time(t, serve_time(s, rec->source, z->begin));
    uint64_t srcloc = SERVE_ID(SK_SRCLOC, rec->source->index, z->srcloc);
    if (send_callstack(s, rec->source, z->callstack, TCW_Callstack))
        tcw_enc_zone_begin_callstack(&s->enc, time, srcloc);
    else
        tcw_enc_zone_begin(&s->enc, time, srcloc);
    if (z->name)
        tcw_enc_zone_text(&s->enc, TCW_ZoneName, z->name, z->name_len > TCW_MAX_STRING ? TCW_MAX_STRING : z->name_len);
    if (z->has_color)
        tcw_enc_zone_color(&s->enc, z->color);
    zone_text(s, t, z);
}

static void zone_end(struct tcs_serve *s, const struct tct_record *rec)
{
    struct serve_thread *t = thread_context(s, rec);
    if (!t || !t->depth)
        return; /* its begin never went out */
    zone_text(s, t, &rec->u.zone);
    tcw_enc_zone_end(&s->enc, thread_time(t, serve_time(s, rec->source, rec->u.zone.end)));
    t->depth--;
}

static void message(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_message_record *m = &rec->u.message;
    struct serve_thread *t = thread_context(s, rec);
    if (!t)
        return;
    int64_t time = thread_time(t, serve_time(s, rec->source, m->time));
    int cs = send_callstack(s, rec->source, m->callstack, TCW_Callstack);
    uint8_t meta = TCW_MESSAGE_META(m->severity);
    if (m->text_len == 0 && m->string) /* its text not known yet: the server will ask */
        (cs ? tcw_enc_message_literal_callstack : tcw_enc_message_literal)(
            &s->enc, time, SERVE_ID(SK_STRING, rec->source->index, m->string), m->color, meta);
    else
        (cs ? tcw_enc_message_callstack : tcw_enc_message)(
            &s->enc, time, m->text, m->text_len > TCW_MAX_STRING ? TCW_MAX_STRING : m->text_len, m->color, meta);
}

/* Each process's frame sets are its own: one mark per frame of a continuous set (at its
 * start, sent once the frame has ended), a start and an end for a discontinuous one. */
static void frame(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_frame_record *f = &rec->u.frame;
    uint32_t source = rec->source->index;
    uint64_t name = SERVE_ID(SK_FRAME_SET, source, f->set->id), key = KEY_FRAME_SET(f->set->id);
    int64_t start = serve_monotonic(s, source, key, serve_time(s, rec->source, f->start));
    if (f->set->continuous) {
        tcw_enc_frame_mark(&s->enc, TCW_FrameMarkMsg, start, name);
        return;
    }
    tcw_enc_frame_mark(&s->enc, TCW_FrameMarkMsgStart, start, name);
    if (f->end != TCT_TIME_NONE)
        tcw_enc_frame_mark(&s->enc, TCW_FrameMarkMsgEnd,
                           serve_monotonic(s, source, key, serve_time(s, rec->source, f->end)), name);
}

/* Plots are thread-bound items: any thread context will do. */
static void plot(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_plot_record *p = &rec->u.plot;
    uint32_t source = rec->source->index;
    struct serve_source *src = serve_source(s, source);
    uint64_t name = SERVE_ID(SK_PLOT, source, p->plot->id);
    if (!src)
        return;
    if (!tcu_map_get(&src->plots, p->plot->id) && tcu_map_put(&src->plots, p->plot->id, 1) >= 0)
        tcw_enc_plot_config(&s->enc, name, p->plot->format, p->plot->flags & 1, (p->plot->flags >> 1) & 1,
                            p->plot->color);
    if (!s->enc.thread) {
        struct serve_thread *any = s->thread_count ? &s->threads[0] : NULL;
        tcw_enc_thread(&s->enc, any ? any->tid : 1);
    }
    int64_t time = serve_monotonic(s, source, KEY_PLOT(p->plot->id), serve_time(s, rec->source, p->time));
    uint64_t bits;
    if (p->is_int) {
        memcpy(&bits, &p->ivalue, 8);
        tcw_enc_plot(&s->enc, TCW_PlotDataInt, name, time, bits);
    } else {
        memcpy(&bits, &p->value, 8);
        tcw_enc_plot(&s->enc, TCW_PlotDataDouble, name, time, bits);
    }
}

static uint32_t tid_of(struct tcs_serve *s, uint32_t source, uint32_t thread)
{
    struct serve_thread *t = serve_thread_of(s, source, thread);
    return t ? t->tid : 0;
}

/* Each process's memory is its own pool ("program[pid]" for its default one): two
 * processes' addresses are not one heap's. */
static void memory(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tcd_event *ev = rec->u.event;
    uint32_t source = rec->source->index;
    uint64_t pool = SERVE_ID(SK_POOL, source, ev->id);
    int64_t time = serve_monotonic(s, source, KEY_POOL(ev->id), serve_time(s, rec->source, ev->time));
    uint32_t tid = tid_of(s, source, ev->thread);
    if (ev->kind == TCD_MEM_DISCARD && !tcw_enc_has(&s->enc, TCW_MemDiscard))
        return; /* the server's version has no discards */
    int cs = send_callstack(s, rec->source, ev->callstack, TCW_CallstackSerial);
    if (ev->kind == TCD_MEM_ALLOC)
        tcw_enc_mem_alloc(&s->enc, time, tid, ev->address, ev->value, pool, cs);
    else if (ev->kind == TCD_MEM_FREE)
        tcw_enc_mem_free(&s->enc, time, tid, ev->address, pool, cs);
    else
        tcw_enc_mem_discard(&s->enc, time, tid, pool, cs);
}

static void lock(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tcd_event *ev = rec->u.event;
    uint32_t source = rec->source->index;
    int64_t known = serve_lock(s, source, ev->id, ev->kind == TCD_LOCK_ANNOUNCE);
    if (known < 0)
        return; /* the server knows only announced locks */
    uint32_t id = (uint32_t)known;
    int64_t time = 0;
    if (ev->kind != TCD_LOCK_MARK && ev->kind != TCD_LOCK_NAME)
        time = serve_monotonic(s, source, KEY_LOCK(ev->id), serve_time(s, rec->source, ev->time));
    static const uint8_t items[2][3] = {{TCW_LockWait, TCW_LockObtain, TCW_LockRelease},
                                        {TCW_LockSharedWait, TCW_LockSharedObtain, TCW_LockSharedRelease}};
    switch (ev->kind) {
    case TCD_LOCK_ANNOUNCE:
        tcw_enc_lock_announce(&s->enc, id, time, SERVE_ID(SK_SRCLOC, source, ev->srcloc), ev->format);
        break;
    case TCD_LOCK_TERMINATE:
        tcw_enc_lock_terminate(&s->enc, id, time);
        break;
    case TCD_LOCK_WAIT:
    case TCD_LOCK_OBTAIN:
    case TCD_LOCK_RELEASE:
        tcw_enc_lock_event(&s->enc, items[ev->format == 1][ev->kind - TCD_LOCK_WAIT], id, time,
                           tid_of(s, source, ev->thread));
        break;
    case TCD_LOCK_MARK:
        tcw_enc_lock_mark(&s->enc, id, tid_of(s, source, ev->thread), SERVE_ID(SK_SRCLOC, source, ev->srcloc));
        break;
    case TCD_LOCK_NAME: {
        char name[TCT_SOURCE_LABEL + 16 + 256];
        int n = snprintf(name, sizeof name, "%s %.*s", serve_label(s, source),
                         (int)(ev->text_len > 255 ? 255 : ev->text_len), ev->text);
        tcw_enc_lock_name(&s->enc, id, name, n < (int)sizeof name ? (size_t)n : sizeof name - 1);
        break;
    }
    default:
        break;
    }
}

/* The proxy's context for a process's, created (its GPU clock the trace's: period 1 ns,
 * the same origin) at its first zone: -1 when none is left. */
static int gpu_context(struct tcs_serve *s, const struct tct_source *src, const struct tct_gpu_record *g, int64_t at)
{
    int is_new;
    int ctx = serve_gpu_context(s, src->index, g->context->id, &is_new);
    if (ctx < 0 || !is_new)
        return ctx;
    uint8_t type = g->context->type; /* a type the server's version lacks shows as OpenGL's */
    if (type == 0 || type > tcw_versions[s->vi].max_gpu_type)
        type = 1;
    tcw_enc_gpu_new_context(&s->enc, at, at, 0, 1.0f, (uint8_t)ctx, 0, type);
    char name[TCT_SOURCE_LABEL + 16 + 256];
    int n =
        snprintf(name, sizeof name, "%s %s", serve_label(s, src->index), g->context->name ? g->context->name : "GPU");
    tcw_enc_gpu_context_name(&s->enc, (uint8_t)ctx, name, n < (int)sizeof name ? (size_t)n : sizeof name - 1);
    return ctx;
}

/* A zone's begin or end with its GPU time right after it (the server takes a zone's first
 * time as its start). */
static void gpu_item(struct tcs_serve *s, const struct tct_source *src, const struct tct_gpu_record *g, int ctx,
                     int is_end)
{
    uint32_t source = src->index;
    int64_t cpu =
        serve_monotonic(s, source, KEY_GPU(g->context->id), serve_time(s, src, is_end ? g->cpu_end : g->cpu_begin));
    int64_t gpu = is_end ? g->gpu_end : g->gpu_begin;
    gpu = gpu != TCT_TIME_NONE ? serve_time(s, src, gpu) : cpu;
    uint32_t tid = tid_of(s, source, g->thread);
    uint16_t query = s->gpu_queries[ctx]++;
    if (is_end) {
        tcw_enc_gpu_zone_end(&s->enc, TCW_GpuZoneEndSerial, cpu, tid, query, (uint8_t)ctx, 1);
    } else {
        int cs = send_callstack(s, src, g->callstack, TCW_CallstackSerial);
        tcw_enc_gpu_zone_begin(&s->enc, cs ? TCW_GpuZoneBeginCallstackSerial : TCW_GpuZoneBeginSerial, cpu, tid, query,
                               (uint8_t)ctx, SERVE_ID(SK_SRCLOC, source, g->srcloc), 1);
    }
    tcw_enc_gpu_time(&s->enc, gpu, query, (uint8_t)ctx);
}

static int by_seq(const void *a, const void *b)
{
    const struct serve_gpu_held *x = a, *y = b;
    return x->rec.seq < y->rec.seq ? -1 : x->rec.seq > y->rec.seq;
}

/* Zones of one context and thread, sorted by when they began: out nested as they were. */
static void gpu_tree(struct tcs_serve *s, struct serve_gpu_held *zones, size_t n)
{
    qsort(zones, n, sizeof *zones, by_seq);
    size_t *open = malloc((n ? n : 1) * sizeof *open), depth = 0;
    if (!open)
        return;
    int ctx = gpu_context(s, zones[0].source, &zones[0].rec, serve_time(s, zones[0].source, zones[0].rec.cpu_begin));
    for (size_t i = 0; ctx >= 0 && i < n; i++) {
        while (depth && zones[open[depth - 1]].rec.depth >= zones[i].rec.depth) {
            depth--;
            gpu_item(s, zones[open[depth]].source, &zones[open[depth]].rec, ctx, 1);
        }
        gpu_item(s, zones[i].source, &zones[i].rec, ctx, 0);
        open[depth++] = i;
    }
    while (ctx >= 0 && depth) {
        depth--;
        gpu_item(s, zones[open[depth]].source, &zones[open[depth]].rec, ctx, 1);
    }
    free(open);
}

/* A GPU zone comes from the trace once all its times are known, its children (which end
 * first) before it: a nested zone waits for its parent, and the whole tree goes out with
 * the outermost one, nested as it ran. */
static void gpu_zone(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_gpu_record *g = &rec->u.gpu;
    struct serve_gpu_held *held = tcu_grow(NULL, s->gpu_held, &s->gpu_held_cap, s->gpu_held_count + 1, sizeof *held);
    if (!held)
        return;
    s->gpu_held = held;
    held[s->gpu_held_count++] = (struct serve_gpu_held){rec->source, *g};
    if (g->depth > 0)
        return;
    /* this zone and the waiting ones of its context and thread to the end of the array */
    size_t tree = s->gpu_held_count;
    for (size_t i = s->gpu_held_count; i-- > 0;) {
        struct serve_gpu_held *h = &held[i];
        if (h->source == rec->source && h->rec.context == g->context && h->rec.thread == g->thread) {
            struct serve_gpu_held keep = *h;
            memmove(h, h + 1, (tree - 1 - i) * sizeof *h);
            held[--tree] = keep;
        }
    }
    gpu_tree(s, held + tree, s->gpu_held_count - tree);
    s->gpu_held_count = tree;
}

void serve_records_flush(struct tcs_serve *s)
{
    while (s->gpu_held_count) { /* zones whose parent never came: each with its own kin */
        struct serve_gpu_held *h = &s->gpu_held[0];
        h->rec.depth = 0;
        struct tct_record rec = {.kind = TCT_REC_GPU_ZONE, .source = h->source};
        rec.u.gpu = h->rec;
        memmove(s->gpu_held, s->gpu_held + 1, (s->gpu_held_count - 1) * sizeof *s->gpu_held);
        s->gpu_held_count--;
        gpu_zone(s, &rec);
    }
}

static void sample(struct tcs_serve *s, const struct tct_record *rec)
{
    const struct tct_sample_record *smp = &rec->u.sample;
    uint32_t depth = 0;
    const struct tct_source *src = rec->source;
    const uint32_t *frames =
        smp->callstack && src->names.callstack ? src->names.callstack(src->names.ctx, smp->callstack, &depth) : NULL;
    struct serve_thread *t = serve_thread_of(s, src->index, rec->thread->id);
    if (!t || !frames || !depth || smp->time == 0 || smp->switched_out)
        return;
    uint64_t addresses[MAX_FRAMES];
    size_t n = depth < MAX_FRAMES ? depth : MAX_FRAMES;
    for (size_t i = 0; i < n; i++)
        addresses[i] = SERVE_ID(SK_FRAME, src->index, frames[i]);
    int64_t time = serve_time(s, src, smp->time);
    if (time < t->last_sample)
        time = t->last_sample;
    t->last_sample = time;
    tcw_enc_callstack_sample(&s->enc, t->tid, time, addresses, n);
}

static void on_record(struct tct_sink *base, const struct tct_record *rec)
{
    struct tcs_serve *s = ((struct serve_sink *)base)->s;
    if (!s || !s->enc_ready || s->state != SERVE_RUNNING)
        return;
    serve_welcome(s);
    switch (rec->kind) {
    case TCT_REC_ZONE_BEGIN:
        zone_begin(s, rec);
        break;
    case TCT_REC_ZONE:
        zone_end(s, rec);
        break;
    case TCT_REC_MESSAGE:
        message(s, rec);
        break;
    case TCT_REC_FRAME:
        frame(s, rec);
        break;
    case TCT_REC_PLOT:
        plot(s, rec);
        break;
    case TCT_REC_MEMORY:
        memory(s, rec);
        break;
    case TCT_REC_LOCK:
        lock(s, rec);
        break;
    case TCT_REC_GPU_ZONE:
        gpu_zone(s, rec);
        break;
    case TCT_REC_SAMPLE:
        sample(s, rec);
        break;
    default:
        break;
    }
}

static void sink_free(struct tct_sink *base)
{
    struct serve_sink *sink = (struct serve_sink *)base;
    if (sink->s)
        sink->s->sink = NULL;
    free(sink);
}

static const struct tct_sink_ops serve_sink_ops = {
    .name = "Tracy server proxy",
    .kinds = TCT_REC_BIT(TCT_REC_ZONE_BEGIN) | TCT_REC_BIT(TCT_REC_ZONE) | TCT_REC_BIT(TCT_REC_MESSAGE) |
             TCT_REC_BIT(TCT_REC_FRAME) | TCT_REC_BIT(TCT_REC_PLOT) | TCT_REC_BIT(TCT_REC_MEMORY) |
             TCT_REC_BIT(TCT_REC_LOCK) | TCT_REC_BIT(TCT_REC_GPU_ZONE) | TCT_REC_BIT(TCT_REC_SAMPLE),
    .record = on_record,
    .free = sink_free,
};

struct serve_sink *serve_sink_new(struct tcs_serve *s)
{
    struct serve_sink *sink = calloc(1, sizeof *sink);
    if (!sink)
        return NULL;
    sink->base.ops = &serve_sink_ops;
    sink->s = s;
    return sink;
}

void serve_sink_detach(struct serve_sink *sink)
{
    sink->s = NULL;
}
