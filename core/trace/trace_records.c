/* trace_records.c - everything but zones: messages, app info, the crash, plots, frames,
 * memory and lock events, GPU zones (held until their GPU times come), samples, context
 * switches and wakeups. */
#include "trace/trace_internal.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

#define GPU_QUERIES 65536 /* query ids are 16-bit on the wire */

/* A copy of ev's text up to its first NUL, in malloc'd memory (NULL when out of memory). */
static char *text_copy(const struct tcd_event *ev)
{
    size_t len = ev->text ? strnlen(ev->text, ev->text_len) : 0;
    char *s = malloc(len + 1);
    if (s) {
        if (len)
            memcpy(s, ev->text, len);
        s[len] = '\0';
    }
    return s;
}

/* Index of the entry for id in a source's map, appending a new entry (made by `make`) to
 * the trace's array when it is new; -1 when out of memory. */
static ptrdiff_t find_or_add(struct tcu_map *map, void ***array, size_t *count, size_t *cap, uint32_t id, size_t size,
                             int *created)
{
    const uint64_t *slot = tcu_map_get(map, id);
    *created = 0;
    if (slot)
        return (ptrdiff_t)*slot;
    void **grown = tcu_grow(NULL, *array, cap, *count + 1, sizeof *grown);
    if (!grown)
        return -1;
    *array = grown;
    void *entry = calloc(1, size);
    if (!entry || tcu_map_put(map, id, *count) < 0) {
        free(entry);
        return -1;
    }
    grown[*count] = entry;
    *created = 1;
    return (ptrdiff_t)(*count)++;
}

void tct_trace_message(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_thread_state *t = tct_trace_thread_of(tr, src, ev->thread);
    if (!t) {
        src->pub.lost_events++;
        return;
    }
    tct_trace_number_thread(tr, t);
    tct_trace_zone_settle(tr, src, t); /* a message inside a zone comes after its begin */
    t->pub.messages++;
    src->pub.messages++;
    struct tct_record rec = {.kind = TCT_REC_MESSAGE, .source = &src->pub, .thread = &t->pub};
    rec.u.message = (struct tct_message_record){
        .time = ev->time,
        .seq = src->next_message++,
        .text = ev->text ? ev->text : "",
        .text_len = ev->text ? ev->text_len : 0,
        .string = ev->id,
        .color = ev->color,
        .callstack = ev->callstack,
        .severity = ev->severity,
    };
    tct_trace_deliver(tr, &rec);
}

void tct_trace_app_info(struct tct_source_state *src, const struct tcd_event *ev)
{
    char **grown = tcu_grow(NULL, src->pub.app_info, &src->app_info_cap, src->pub.app_info_count + 1, sizeof *grown);
    char *text = grown ? text_copy(ev) : NULL;
    if (grown)
        src->pub.app_info = grown;
    if (!text) {
        src->pub.lost_events++;
        return;
    }
    src->pub.app_info[src->pub.app_info_count++] = text;
}

void tct_trace_crash(struct tct_source_state *src, const struct tcd_event *ev)
{
    char *text = text_copy(ev);
    if (!text) {
        src->pub.lost_events++;
        return;
    }
    free(src->pub.crash.text);
    src->pub.crash = (struct tct_crash){1, ev->thread, ev->time, text, ev->id, ev->callstack};
}

void tct_trace_plot(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    int created;
    ptrdiff_t i = find_or_add(&src->plots, (void ***)&tr->plots, &tr->plot_count, &tr->plot_cap, ev->id,
                              sizeof **tr->plots, &created);
    if (i < 0) {
        src->pub.lost_events++;
        return;
    }
    struct tct_plot_state *p = tr->plots[i];
    if (created)
        p->pub = (struct tct_plot){.source = src->pub.index, .id = ev->id, .index = (uint32_t)i};
    if (ev->kind == TCD_PLOT_CONFIG) {
        p->pub.format = ev->format;
        p->pub.flags = ev->flags;
        p->pub.color = ev->color;
        return;
    }
    src->pub.plot_points++;
    struct tct_record rec = {.kind = TCT_REC_PLOT, .source = &src->pub};
    rec.u.plot = (struct tct_plot_record){
        .plot = &p->pub,
        .seq = p->points++,
        .time = ev->time,
        .is_int = ev->is_int,
        .ivalue = ev->is_int ? (int64_t)ev->value : 0,
        .value = ev->is_int ? (double)(int64_t)ev->value : ev->dvalue,
    };
    tct_trace_deliver(tr, &rec);
}

static void frame_out(struct tct_trace *tr, struct tct_frame_set_state *fs, int64_t end)
{
    struct tct_record rec = {.kind = TCT_REC_FRAME, .source = &tr->sources[fs->pub.source]->pub};
    rec.u.frame = (struct tct_frame_record){&fs->pub, fs->frames - 1, fs->open_start, end};
    fs->open = 0;
    tct_trace_deliver(tr, &rec);
}

void tct_trace_frame(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    int created;
    ptrdiff_t i = find_or_add(&src->frame_sets, (void ***)&tr->frame_sets, &tr->frame_set_count, &tr->frame_set_cap,
                              ev->id, sizeof **tr->frame_sets, &created);
    if (i < 0) {
        src->pub.lost_events++;
        return;
    }
    struct tct_frame_set_state *fs = tr->frame_sets[i];
    if (created)
        fs->pub = (struct tct_frame_set){
            .source = src->pub.index, .id = ev->id, .index = (uint32_t)i, .continuous = ev->kind == TCD_FRAME_MARK};
    if (ev->kind == TCD_FRAME_END) {
        if (fs->open)
            frame_out(tr, fs, ev->time);
        else
            src->pub.ignored_events++;
        return;
    }
    /* A mark ends the previous frame of a continuous set; a frame start leaves an open one
     * unended for good (only an end can end the newest). */
    if (fs->open)
        frame_out(tr, fs, ev->kind == TCD_FRAME_MARK ? ev->time : TCT_TIME_NONE);
    fs->frames++;
    fs->open = 1;
    fs->open_start = ev->time;
}

void tct_trace_memory_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_thread_state *t = tct_trace_thread_of(tr, src, ev->thread);
    if (!t) {
        src->pub.lost_events++;
        return;
    }
    if (ev->kind != TCD_MEM_FREE || ev->address != 0) /* free(NULL) does not count */
        tct_trace_number_thread(tr, t);
    struct tct_record rec = {.kind = TCT_REC_MEMORY, .source = &src->pub, .thread = &t->pub};
    rec.u.event = ev;
    tct_trace_deliver(tr, &rec);
}

void tct_trace_lock_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_record rec = {.kind = TCT_REC_LOCK, .source = &src->pub};
    rec.u.event = ev;
    tct_trace_deliver(tr, &rec);
}

/* ---- GPU zones --------------------------------------------------------------------------- */

static void gpu_out(struct tct_trace *tr, struct tct_gpu_context_state *c, uint32_t slot)
{
    struct tct_gpu_pending *p = &c->pending[slot];
    struct tct_record rec = {.kind = TCT_REC_GPU_ZONE, .source = &tr->sources[c->pub.source]->pub};
    rec.u.gpu = p->rec;
    tct_trace_deliver(tr, &rec);
    p->in_use = 0;
    p->next_free = c->free_slot;
    c->free_slot = slot + 1;
}

/* The zone at slot is handed out once it has ended and waits for no GPU time. */
static void gpu_settle(struct tct_trace *tr, struct tct_gpu_context_state *c, uint32_t slot)
{
    if (c->pending[slot].ended && !c->pending[slot].queries)
        gpu_out(tr, c, slot);
}

/* Points query at slot (its begin, or its end). A zone the query pointed at before will
 * never get that time: as the Tracy server, the newest use of a query id wins. */
static void gpu_map_query(struct tct_trace *tr, struct tct_gpu_context_state *c, uint16_t query, uint32_t slot,
                          int is_end)
{
    uint32_t old = c->query_slot[query];
    c->query_slot[query] = (slot + 1) << 1 | (uint32_t)is_end;
    c->pending[slot].queries++;
    if (old) {
        uint32_t was = (old >> 1) - 1;
        c->pending[was].queries--;
        gpu_settle(tr, c, was);
    }
}

static int gpu_slot(struct tct_gpu_context_state *c, uint32_t *slot)
{
    if (!c->free_slot) {
        size_t old = c->pending_cap;
        if (old >= UINT32_MAX / 4)
            return -1;
        struct tct_gpu_pending *grown = tcu_grow(NULL, c->pending, &c->pending_cap, old + 1, sizeof *grown);
        if (!grown)
            return -1;
        c->pending = grown;
        for (size_t i = c->pending_cap; i-- > old;) {
            grown[i] = (struct tct_gpu_pending){.next_free = c->free_slot};
            c->free_slot = (uint32_t)i + 1;
        }
    }
    *slot = c->free_slot - 1;
    c->free_slot = c->pending[*slot].next_free;
    return 0;
}

/* The open-zone stack of `thread` in the context, created when missing. */
static struct tct_gpu_stack *gpu_stack(struct tct_gpu_context_state *c, uint32_t thread, int create)
{
    for (size_t i = 0; i < c->stack_count; i++)
        if (c->stacks[i].thread == thread)
            return &c->stacks[i];
    if (!create)
        return NULL;
    struct tct_gpu_stack *grown = tcu_grow(NULL, c->stacks, &c->stack_cap, c->stack_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    c->stacks = grown;
    c->stacks[c->stack_count] = (struct tct_gpu_stack){.thread = thread};
    return &c->stacks[c->stack_count++];
}

static void gpu_zone_begin(struct tct_trace *tr, struct tct_source_state *src, struct tct_gpu_context_state *c,
                           const struct tcd_event *ev)
{
    if (!c->query_slot)
        c->query_slot = calloc(GPU_QUERIES, sizeof *c->query_slot);
    /* As the Tracy server: zones of a context bound to one thread share one stack, keyed
     * 0 (the client then sends thread 0 with their ends); others nest per thread. */
    struct tct_gpu_stack *s = c->query_slot ? gpu_stack(c, c->pub.thread ? 0 : ev->thread, 1) : NULL;
    uint32_t *zones = s ? tcu_grow(NULL, s->zones, &s->cap, s->count + 1, sizeof *zones) : NULL;
    uint32_t slot;
    if (zones)
        s->zones = zones;
    if (!zones || gpu_slot(c, &slot) != 0) {
        src->pub.lost_events++;
        return;
    }
    if (!c->pub.thread) {
        struct tct_thread_state *t = tct_trace_thread_of(tr, src, ev->thread);
        if (t)
            tct_trace_number_thread(tr, t);
    }
    c->pending[slot] = (struct tct_gpu_pending){
        .in_use = 1,
        .rec = {.context = &c->pub,
                .seq = c->zones++,
                .cpu_begin = ev->time,
                .cpu_end = TCT_TIME_NONE,
                .gpu_begin = TCT_TIME_NONE,
                .gpu_end = TCT_TIME_NONE,
                .srcloc = ev->srcloc,
                .thread = c->pub.thread ? c->pub.thread : ev->thread,
                .callstack = ev->callstack,
                .depth = s->count > 0xffff ? 0xffff : (uint16_t)s->count},
    };
    s->zones[s->count++] = slot;
    gpu_map_query(tr, c, ev->query, slot, 0);
    src->pub.gpu_zones++;
}

static void gpu_zone_end(struct tct_trace *tr, struct tct_source_state *src, struct tct_gpu_context_state *c,
                         const struct tcd_event *ev)
{
    struct tct_gpu_stack *s = gpu_stack(c, ev->thread, 0);
    if (!s || !s->count || !c->query_slot) {
        src->pub.ignored_events++;
        return;
    }
    uint32_t slot = s->zones[--s->count];
    struct tct_gpu_pending *p = &c->pending[slot];
    p->rec.cpu_end = ev->time > p->rec.cpu_begin ? ev->time : p->rec.cpu_begin;
    p->ended = 1;
    gpu_map_query(tr, c, ev->query, slot, 1);
}

/* A GPU timestamp answers the query a zone's begin or end left pending. Unlike the Tracy
 * server, which takes the first answer as the start, the query remembers which end it is
 * for, so answers may come in any order. */
static void gpu_time(struct tct_trace *tr, struct tct_source_state *src, struct tct_gpu_context_state *c,
                     const struct tcd_event *ev)
{
    uint32_t pending = c->query_slot ? c->query_slot[ev->query] : 0;
    if (!pending) {
        src->pub.ignored_events++;
        return;
    }
    c->query_slot[ev->query] = 0;
    uint32_t slot = (pending >> 1) - 1;
    struct tct_gpu_pending *p = &c->pending[slot];
    if (pending & 1) {
        p->rec.gpu_end = ev->time2;
    } else {
        p->rec.gpu_begin = ev->time2;
        if (tr->want_count[TCT_REC_GPU_BEGIN]) {
            struct tct_record rec = {.kind = TCT_REC_GPU_BEGIN, .source = &src->pub};
            rec.u.gpu = p->rec;
            rec.u.gpu.gpu_end = TCT_TIME_NONE;
            tct_trace_deliver(tr, &rec);
        }
    }
    p->queries--;
    gpu_settle(tr, c, slot);
}

void tct_trace_gpu(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    int created;
    ptrdiff_t i = find_or_add(&src->gpu_contexts, (void ***)&tr->gpu_contexts, &tr->gpu_context_count,
                              &tr->gpu_context_cap, ev->id, sizeof **tr->gpu_contexts, &created);
    if (i < 0) {
        src->pub.lost_events++;
        return;
    }
    struct tct_gpu_context_state *c = tr->gpu_contexts[i];
    if (created)
        c->pub = (struct tct_gpu_context){.source = src->pub.index, .id = ev->id, .index = (uint32_t)i};
    switch (ev->kind) {
    case TCD_GPU_CONTEXT:
        c->pub.thread = ev->thread;
        c->pub.type = ev->format;
        c->pub.period = ev->dvalue;
        break;
    case TCD_GPU_CONTEXT_NAME: {
        char *name = text_copy(ev);
        if (!name) {
            src->pub.lost_events++;
            return;
        }
        free(c->pub.name);
        c->pub.name = name;
        break;
    }
    case TCD_GPU_ZONE_BEGIN:
        gpu_zone_begin(tr, src, c, ev);
        break;
    case TCD_GPU_ZONE_END:
        gpu_zone_end(tr, src, c, ev);
        break;
    default: /* TCD_GPU_TIME */
        gpu_time(tr, src, c, ev);
        break;
    }
}

/* ---- samples and the system ---------------------------------------------------------------- */

void tct_trace_sample(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_thread_state *t = tct_trace_thread_of(tr, src, ev->thread);
    if (!t) {
        src->pub.lost_events++;
        return;
    }
    struct tct_record rec = {.kind = TCT_REC_SAMPLE, .source = &src->pub, .thread = &t->pub};
    rec.u.sample = (struct tct_sample_record){ev->time, t->next_sample++, ev->callstack,
                                              (uint8_t)(ev->flags & TCD_SAMPLE_SWITCH ? 1 : 0)};
    if (!rec.u.sample.switched_out) {
        t->pub.cpu_samples++;
        src->pub.samples++;
    }
    tct_trace_deliver(tr, &rec);
}

void tct_trace_system(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    if (ev->time == 0) { /* a client whose perf clock could not be converted sends no times */
        src->pub.untimed_switches++;
        return;
    }
    struct tct_record rec = {.source = &src->pub};
    if (ev->kind == TCD_CONTEXT_SWITCH) {
        rec.kind = TCT_REC_SWITCH;
        src->pub.switches++;
        rec.u.sw = (struct tct_switch_record){ev->time,           src->next_switch++, ev->id,   ev->thread,
                                              (uint8_t)ev->query, ev->format,         ev->flags};
    } else {
        rec.kind = TCT_REC_WAKEUP;
        rec.u.wakeup = (struct tct_wakeup_record){ev->time, src->next_wakeup++, ev->thread, (uint8_t)ev->query};
    }
    tct_trace_deliver(tr, &rec);
}

/* ---- the end ---------------------------------------------------------------------------------- */

void tct_trace_finish_records(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->frame_set_count; i++)
        if (tr->frame_sets[i]->open)
            frame_out(tr, tr->frame_sets[i], TCT_TIME_NONE);
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        struct tct_gpu_context_state *c = tr->gpu_contexts[i];
        struct tct_source_state *src = tr->sources[c->pub.source];
        for (size_t s = 0; s < c->stack_count; s++) {
            struct tct_gpu_stack *st = &c->stacks[s];
            while (st->count) {
                struct tct_gpu_pending *p = &c->pending[st->zones[--st->count]];
                p->rec.cpu_end = src->pub.last_time > p->rec.cpu_begin ? src->pub.last_time : p->rec.cpu_begin;
                p->rec.unfinished = 1;
                p->ended = 1;
                src->pub.unfinished_zones++;
            }
        }
        /* What still waits for a GPU time will not get it now. */
        if (c->query_slot)
            memset(c->query_slot, 0, GPU_QUERIES * sizeof *c->query_slot);
        for (size_t slot = 0; slot < c->pending_cap; slot++)
            if (c->pending[slot].in_use)
                gpu_out(tr, c, (uint32_t)slot);
    }
}

void tct_trace_remap_records(struct tct_trace *tr, uint32_t source, const struct tct_remap *m)
{
    for (size_t i = 0; i < tr->frame_set_count; i++) {
        struct tct_frame_set_state *fs = tr->frame_sets[i];
        if (fs->pub.source == source && fs->open)
            fs->open_start = tct_remap_time(m, fs->open_start);
    }
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        struct tct_gpu_context_state *c = tr->gpu_contexts[i];
        for (size_t slot = 0; c->pub.source == source && slot < c->pending_cap; slot++) {
            struct tct_gpu_record *r = &c->pending[slot].rec;
            if (!c->pending[slot].in_use)
                continue;
            r->cpu_begin = tct_remap_time(m, r->cpu_begin);
            r->cpu_end = c->pending[slot].ended ? tct_remap_time(m, r->cpu_end) : r->cpu_end;
            r->gpu_begin = tct_remap_time(m, r->gpu_begin);
            r->gpu_end = tct_remap_time(m, r->gpu_end);
        }
    }
}

void tct_trace_free_records(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->plot_count; i++)
        free(tr->plots[i]);
    free(tr->plots);
    for (size_t i = 0; i < tr->frame_set_count; i++)
        free(tr->frame_sets[i]);
    free(tr->frame_sets);
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        struct tct_gpu_context_state *c = tr->gpu_contexts[i];
        free(c->pub.name);
        free(c->query_slot);
        free(c->pending);
        for (size_t s = 0; s < c->stack_count; s++)
            free(c->stacks[s].zones);
        free(c->stacks);
        free(c);
    }
    free(tr->gpu_contexts);
}
