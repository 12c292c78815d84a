/* model.c - the trace model's core: event dispatch, threads and their zones. */
#include "trace/model_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tct_trace *tct_trace_new(void)
{
    struct tct_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return NULL;
    tcu_chunks_init(&tr->messages, sizeof(struct tct_message), TCT_CHUNK_SHIFT, NULL);
    tcu_chunks_init(&tr->switches, sizeof(struct tct_switch), TCT_CHUNK_SHIFT, NULL);
    tcu_chunks_init(&tr->wakeups, sizeof(struct tct_wakeup), TCT_CHUNK_SHIFT, NULL);
    tcu_arena_init(&tr->strings, NULL);
    tcu_map_init(&tr->thread_by_id, 0, NULL);
    tcu_map_init(&tr->plot_by_id, 0, NULL);
    tcu_map_init(&tr->frame_set_by_id, 0, NULL);
    tcu_map_init(&tr->pool_by_id, 0, NULL);
    tcu_map_init(&tr->lock_by_id, 0, NULL);
    tcu_map_init(&tr->gpu_context_by_id, 0, NULL);
    tr->next_server_index = 1; /* Tracy's server reserves 0 */
    return tr;
}

static void thread_free(struct tct_thread *t)
{
    for (size_t i = 0; i < t->extra_count; i++) {
        free(t->extras[i].text);
        free(t->extras[i].name);
    }
    free(t->extras);
    free(t->open);
    tcu_chunks_free(&t->zones);
    tcu_chunks_free(&t->samples);
    free(t);
}

void tct_trace_free(struct tct_trace *tr)
{
    if (!tr)
        return;
    for (size_t i = 0; i < tr->thread_count; i++)
        thread_free(tr->threads[i]);
    free(tr->threads);
    tct_model_free_records(tr);
    tcu_chunks_free(&tr->messages);
    tcu_chunks_free(&tr->switches);
    tcu_chunks_free(&tr->wakeups);
    tcu_arena_free(&tr->strings);
    tcu_map_free(&tr->thread_by_id);
    tcu_map_free(&tr->plot_by_id);
    tcu_map_free(&tr->frame_set_by_id);
    tcu_map_free(&tr->pool_by_id);
    tcu_map_free(&tr->lock_by_id);
    tcu_map_free(&tr->gpu_context_by_id);
    free(tr);
}

struct tct_thread *tct_model_thread(struct tct_trace *tr, uint32_t id)
{
    /* Events come in runs per thread: skip the hash lookup for the same thread. */
    if (tr->last_thread && tr->last_thread->id == id)
        return tr->last_thread;
    uint64_t *slot = tcu_map_get(&tr->thread_by_id, id);
    if (slot)
        return tr->last_thread = tr->threads[*slot];
    struct tct_thread **grown = tcu_grow(NULL, tr->threads, &tr->thread_cap, tr->thread_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    tr->threads = grown;
    struct tct_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (tcu_map_put(&tr->thread_by_id, id, tr->thread_count) < 0) {
        free(t);
        return NULL;
    }
    t->id = id;
    tcu_chunks_init(&t->zones, sizeof(struct tct_zone), TCT_CHUNK_SHIFT, NULL);
    tcu_chunks_init(&t->samples, sizeof(struct tct_sample), TCT_CHUNK_SHIFT, NULL);
    tr->threads[tr->thread_count++] = t;
    return tr->last_thread = t;
}

const struct tct_thread *tct_trace_thread(const struct tct_trace *tr, uint32_t id)
{
    const uint64_t *slot = tcu_map_get(&tr->thread_by_id, id);
    return slot ? tr->threads[*slot] : NULL;
}

void tct_model_number_thread(struct tct_trace *tr, struct tct_thread *t)
{
    if (!t->server_index)
        t->server_index = tr->next_server_index++;
}

char *tct_model_strdup_text(const struct tcd_event *ev)
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

static struct tct_zone *zone_at(struct tct_thread *t, size_t i)
{
    return tcu_chunks_at(&t->zones, i);
}

static struct tct_zone_extra *open_zone_extra(struct tct_trace *tr, const struct tcd_event *ev);

static void zone_begin(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    if (!t) {
        tr->lost_events++;
        return;
    }
    if (t->skipped_open || t->open_count > TCT_MAX_DEPTH) {
        t->skipped_open++;
        tr->ignored_events++;
        return;
    }
    if (t->open_count == t->open_cap) {
        size_t *open = tcu_grow(NULL, t->open, &t->open_cap, t->open_count + 1, sizeof *open);
        if (!open) {
            t->skipped_open++;
            tr->lost_events++;
            return;
        }
        t->open = open;
    }
    struct tct_zone *z = tcu_chunks_push(&t->zones);
    if (!z) {
        /* Keep begin/end pairing right: the matching end closes nothing. */
        t->skipped_open++;
        tr->lost_events++;
        return;
    }
    z->begin = ev->time;
    z->end = TCT_TIME_NONE;
    z->srcloc = ev->srcloc;
    z->depth = (uint32_t)t->open_count;
    if (z->depth > t->max_depth)
        t->max_depth = z->depth;
    t->open[t->open_count++] = t->zones.count - 1;
    tr->zones++;
    if (ev->callstack) {
        struct tct_zone_extra *x = open_zone_extra(tr, ev);
        if (x)
            x->callstack = ev->callstack;
    }
}

static void sample(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    struct tct_sample *s = t ? tcu_chunks_push(&t->samples) : NULL;
    if (!s) {
        tr->lost_events++;
        return;
    }
    *s = (struct tct_sample){ev->time, ev->callstack, (uint8_t)(ev->flags & TCD_SAMPLE_SWITCH ? 1 : 0)};
    if (!s->switched_out) {
        t->cpu_samples++;
        tr->samples++;
    }
}

static void zone_end(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    if (!t) {
        tr->lost_events++;
        return;
    }
    if (t->skipped_open) {
        t->skipped_open--;
        return;
    }
    if (!t->open_count) {
        tr->ignored_events++;
        return;
    }
    struct tct_zone *z = zone_at(t, t->open[--t->open_count]);
    z->end = ev->time > z->begin ? ev->time : z->begin;
    /* Tracy's server numbers a thread when one of its zones ends with a non-zero span. */
    if (z->end > z->begin)
        tct_model_number_thread(tr, t);
}

/* Position of zone's entry in t->extras, or where it would be inserted. */
static size_t extra_position(const struct tct_thread *t, size_t zone)
{
    size_t lo = 0, hi = t->extra_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->extras[mid].zone < zone)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct tct_zone_extra *tct_thread_zone_extra(const struct tct_thread *t, size_t i)
{
    if (!(tct_thread_zone(t, i)->flags & TCT_ZONE_HAS_EXTRA))
        return NULL;
    size_t pos = extra_position(t, i);
    return pos < t->extra_count && t->extras[pos].zone == i ? &t->extras[pos] : NULL;
}

/* The side data of the innermost open zone of ev's thread, created when missing. */
static struct tct_zone_extra *open_zone_extra(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    if (!t) {
        tr->lost_events++;
        return NULL;
    }
    if (t->skipped_open || !t->open_count) {
        tr->ignored_events++;
        return NULL;
    }
    size_t zone = t->open[t->open_count - 1];
    size_t pos = extra_position(t, zone);
    if (pos < t->extra_count && t->extras[pos].zone == zone)
        return &t->extras[pos];
    /* Usually an append; a parent's text set after its children's lands mid-array. */
    struct tct_zone_extra *grown = tcu_grow(NULL, t->extras, &t->extra_cap, t->extra_count + 1, sizeof *grown);
    if (!grown) {
        tr->lost_events++;
        return NULL;
    }
    t->extras = grown;
    memmove(&t->extras[pos + 1], &t->extras[pos], (t->extra_count - pos) * sizeof *grown);
    t->extra_count++;
    memset(&t->extras[pos], 0, sizeof *grown);
    t->extras[pos].zone = zone;
    zone_at(t, zone)->flags |= TCT_ZONE_HAS_EXTRA;
    return &t->extras[pos];
}

/* Appends to the zone text the way Tracy's server does: a second text goes after a '\n'. */
static void append_text(struct tct_trace *tr, struct tct_zone_extra *x, const char *s, size_t len)
{
    size_t old = x->text ? strlen(x->text) : 0;
    size_t extra_len = len + (x->text ? 1 : 0);
    char *text = realloc(x->text, old + extra_len + 1);
    if (!text) {
        tr->lost_events++;
        return;
    }
    if (x->text)
        text[old++] = '\n';
    memcpy(text + old, s, len);
    text[old + len] = '\0';
    x->text = text;
}

static void zone_data(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_zone_extra *x = open_zone_extra(tr, ev);
    if (!x)
        return;
    switch (ev->kind) {
    case TCD_ZONE_TEXT:
        append_text(tr, x, ev->text ? ev->text : "", ev->text ? strnlen(ev->text, ev->text_len) : 0);
        break;
    case TCD_ZONE_NAME: {
        char *name = tct_model_strdup_text(ev);
        if (!name) {
            tr->lost_events++;
            return;
        }
        free(x->name);
        x->name = name;
        break;
    }
    case TCD_ZONE_COLOR:
        x->color = ev->color;
        x->has_color = 1;
        break;
    case TCD_ZONE_VALUE: {
        char tmp[64];
        int n = snprintf(tmp, sizeof tmp, "%" PRIu64 " [0x%" PRIx64 "]", ev->value, ev->value);
        append_text(tr, x, tmp, (size_t)n);
        x->value = ev->value;
        x->has_value = 1;
        break;
    }
    default:
        break;
    }
}

/* Tracy's server numbers the OS thread that enters a fiber, and knows the fiber as a
 * thread of its own from then on. */
static void fiber_enter(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *os = tct_model_thread(tr, ev->thread);
    if (os)
        tct_model_number_thread(tr, os);
    if (!os || !tct_model_thread(tr, ev->id))
        tr->lost_events++;
}

/* The time an event moves the trace's end to: Tracy's server counts zones, messages,
 * frames, plots, memory, lock waits/obtains/releases, GPU zones and times, fibers; not
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
 * zone's span, a wait) never overflows. */
#define TIME_LIMIT ((int64_t)1 << 53)

static int time_out_of_range(int64_t t)
{
    return t < -TIME_LIMIT || t > TIME_LIMIT;
}

static int64_t clamp_time(int64_t t)
{
    return t < -TIME_LIMIT ? -TIME_LIMIT : t > TIME_LIMIT ? TIME_LIMIT : t;
}

void tct_trace_on_event(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tcd_event clamped;
    if (time_out_of_range(ev->time) || time_out_of_range(ev->time2)) {
        clamped = *ev;
        clamped.time = clamp_time(ev->time);
        clamped.time2 = clamp_time(ev->time2);
        ev = &clamped;
    }
    if (ev->kind == TCD_THREAD_NAME)
        return; /* names stay in the decoder's tables: no event of the trace */
    tr->events++;
    int64_t time = event_time(ev);
    if (time != TCT_TIME_NONE && time > tr->last_time)
        tr->last_time = time;
    switch (ev->kind) {
    case TCD_ZONE_BEGIN:
        zone_begin(tr, ev);
        break;
    case TCD_ZONE_END:
        zone_end(tr, ev);
        break;
    case TCD_ZONE_TEXT:
    case TCD_ZONE_NAME:
    case TCD_ZONE_COLOR:
    case TCD_ZONE_VALUE:
        zone_data(tr, ev);
        break;
    case TCD_MESSAGE:
        tct_model_message(tr, ev);
        break;
    case TCD_APP_INFO:
        tct_model_app_info(tr, ev);
        break;
    case TCD_FRAME_MARK:
    case TCD_FRAME_START:
    case TCD_FRAME_END:
        tct_model_frame(tr, ev);
        break;
    case TCD_FRAME_IMAGE:
        break; /* images are not part of any export */
    case TCD_PLOT:
        tct_model_plot(tr, ev);
        break;
    case TCD_PLOT_CONFIG:
        tct_model_plot_config(tr, ev);
        break;
    case TCD_MEM_ALLOC:
    case TCD_MEM_FREE:
    case TCD_MEM_DISCARD:
        tct_model_memory(tr, ev);
        break;
    case TCD_LOCK_ANNOUNCE:
    case TCD_LOCK_TERMINATE:
    case TCD_LOCK_WAIT:
    case TCD_LOCK_OBTAIN:
    case TCD_LOCK_RELEASE:
    case TCD_LOCK_MARK:
    case TCD_LOCK_NAME:
        tct_model_lock(tr, ev);
        break;
    case TCD_GPU_CONTEXT:
    case TCD_GPU_CONTEXT_NAME:
    case TCD_GPU_ZONE_BEGIN:
    case TCD_GPU_ZONE_END:
    case TCD_GPU_TIME:
        tct_model_gpu(tr, ev);
        break;
    case TCD_FIBER_ENTER:
        fiber_enter(tr, ev);
        break;
    case TCD_FIBER_LEAVE:
        break;
    case TCD_CRASH:
        tct_model_crash(tr, ev);
        break;
    /* The client reports its running total: keep the largest. */
    case TCD_DROPPED:
        tr->dropped = ev->value > tr->dropped ? ev->value : tr->dropped;
        break;
    case TCD_PLOT_SKIPPED:
        tr->plot_skipped = ev->value > tr->plot_skipped ? ev->value : tr->plot_skipped;
        break;
    case TCD_SECTION_ENTER:
    case TCD_SECTION_LEAVE:
    case TCD_SECTION_SETUP:
        break; /* sections are not part of any export yet */
    case TCD_SAMPLE:
        sample(tr, ev);
        break;
    case TCD_CONTEXT_SWITCH:
    case TCD_THREAD_WAKEUP:
        tct_model_system(tr, ev);
        break;
    case TCD_CALLSTACK_FRAME:
    case TCD_THREAD_NAME:
        break;             /* frames and names stay in the decoder's tables */
    case TCD_SAMPLES_LOST: /* a running total, as TCD_DROPPED */
        tr->samples_lost = ev->value > tr->samples_lost ? ev->value : tr->samples_lost;
        break;
    case TCD_EVENT_KIND_COUNT:
        tr->ignored_events++;
        break;
    }
}

void tct_trace_finish(struct tct_trace *tr)
{
    if (tr->finished)
        return;
    for (size_t i = 0; i < tr->thread_count; i++) {
        struct tct_thread *t = tr->threads[i];
        while (t->open_count) {
            struct tct_zone *z = zone_at(t, t->open[--t->open_count]);
            z->end = tr->last_time > z->begin ? tr->last_time : z->begin;
            z->flags |= TCT_ZONE_UNFINISHED;
            tr->unfinished_zones++;
        }
        t->skipped_open = 0;
    }
    tct_model_finish_gpu(tr);
    tr->finished = 1;
}

size_t tct_trace_memory(const struct tct_trace *tr)
{
    size_t bytes = sizeof *tr + tr->thread_cap * sizeof *tr->threads + tcu_chunks_memory(&tr->messages) +
                   tcu_chunks_memory(&tr->switches) + tcu_chunks_memory(&tr->wakeups) + tr->strings.memory +
                   tcu_map_memory(&tr->thread_by_id) + tct_model_records_memory(tr);
    for (size_t i = 0; i < tr->thread_count; i++) {
        const struct tct_thread *t = tr->threads[i];
        bytes += sizeof *t + tcu_chunks_memory(&t->zones) + tcu_chunks_memory(&t->samples) +
                 t->open_cap * sizeof *t->open + t->extra_cap * sizeof *t->extras;
    }
    return bytes;
}

int tct_thread_walk(const struct tct_thread *t, tct_zone_visit_fn fn, void *user)
{
    if (!t->zones.count)
        return 0;
    /* One level per depth: the zone open at that depth and its children's total time. */
    size_t levels = (size_t)t->max_depth + 1;
    size_t *index = malloc(levels * sizeof *index);
    int64_t *children = malloc(levels * sizeof *children);
    int result = 0;
    if (!index || !children) {
        result = -1;
        goto out;
    }
    size_t top = 0; /* levels in use */
    for (size_t i = 0; i <= t->zones.count && !result; i++) {
        size_t depth = i < t->zones.count ? tct_thread_zone(t, i)->depth : 0;
        while (top > depth && !result) {
            const struct tct_zone *z = tct_thread_zone(t, index[--top]);
            int64_t span = z->end - z->begin;
            if (top)
                children[top - 1] = tct_time_add(children[top - 1], span);
            result = fn(user, index[top], z, tct_time_sub(span, children[top]));
        }
        if (i < t->zones.count) {
            index[top] = i;
            children[top] = 0;
            top++;
        }
    }
out:
    free(index);
    free(children);
    return result;
}

static int store_self_time(void *user, size_t index, const struct tct_zone *zone, int64_t self)
{
    (void)zone;
    ((int64_t *)user)[index] = self;
    return 0;
}

int64_t *tct_thread_self_times(const struct tct_thread *t)
{
    if (!t->zones.count)
        return NULL;
    int64_t *self = malloc(t->zones.count * sizeof *self);
    if (self && tct_thread_walk(t, store_self_time, self) != 0) {
        free(self);
        return NULL;
    }
    return self;
}

struct message_key {
    int64_t time;
    size_t index;
};

static int message_key_cmp(const void *a, const void *b)
{
    const struct message_key *ka = a, *kb = b;
    if (ka->time != kb->time)
        return ka->time < kb->time ? -1 : 1;
    return ka->index < kb->index ? -1 : ka->index > kb->index; /* stable */
}

size_t *tct_trace_messages_by_time(const struct tct_trace *tr)
{
    size_t n = tr->messages.count;
    if (!n)
        return NULL;
    struct message_key *keys = malloc(n * sizeof *keys);
    size_t *order = malloc(n * sizeof *order);
    if (keys && order) {
        for (size_t i = 0; i < n; i++)
            keys[i] = (struct message_key){tct_trace_message(tr, i)->time, i};
        qsort(keys, n, sizeof *keys, message_key_cmp);
        for (size_t i = 0; i < n; i++)
            order[i] = keys[i].index;
    } else {
        free(order);
        order = NULL;
    }
    free(keys);
    return order;
}
