/* model_records.c - the trace model's records besides CPU zones: messages, app info,
 * plots, frames, memory pools, locks, GPU zones and the crash report. */
#include "trace/model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GPU_QUERIES 65536 /* query ids are 16-bit on the wire */

/* Index of the record `id` in *array, appending a zeroed record when it is new (then
 * *created = 1). Returns -1 when out of memory. *array may move. */
static ptrdiff_t find_record(struct tcu_map *map, void **array, size_t *count, size_t *cap, size_t elem_size,
                             uint32_t id, int *created)
{
    *created = 0;
    uint64_t *slot = tcu_map_get(map, id);
    if (slot)
        return (ptrdiff_t)*slot;
    void *grown = tcu_grow(NULL, *array, cap, *count + 1, elem_size);
    if (!grown)
        return -1;
    *array = grown;
    if (tcu_map_put(map, id, *count) < 0)
        return -1;
    memset((char *)grown + *count * elem_size, 0, elem_size);
    *created = 1;
    return (ptrdiff_t)(*count)++;
}

static struct tct_plot *plot_for(struct tct_trace *tr, uint32_t id)
{
    void *array = tr->plots;
    int created;
    ptrdiff_t i = find_record(&tr->plot_by_id, &array, &tr->plot_count, &tr->plot_cap, sizeof *tr->plots, id, &created);
    tr->plots = array;
    if (i < 0)
        return NULL;
    struct tct_plot *p = &tr->plots[i];
    if (created) {
        p->id = id;
        p->is_int = 1;
        p->min = INFINITY;
        p->max = -INFINITY;
        tcu_chunks_init(&p->points, sizeof(struct tct_plot_point), TCT_CHUNK_SHIFT, NULL);
    }
    return p;
}

static struct tct_frame_set *frame_set_for(struct tct_trace *tr, uint32_t id, int continuous)
{
    void *array = tr->frame_sets;
    int created;
    ptrdiff_t i = find_record(&tr->frame_set_by_id, &array, &tr->frame_set_count, &tr->frame_set_cap,
                              sizeof *tr->frame_sets, id, &created);
    tr->frame_sets = array;
    if (i < 0)
        return NULL;
    struct tct_frame_set *fs = &tr->frame_sets[i];
    if (created) {
        fs->id = id;
        fs->continuous = (uint8_t)continuous;
        tcu_chunks_init(&fs->frames, sizeof(struct tct_frame), TCT_CHUNK_SHIFT, NULL);
    }
    return fs;
}

static struct tct_mem_pool *pool_for(struct tct_trace *tr, uint32_t id)
{
    void *array = tr->pools;
    int created;
    ptrdiff_t i = find_record(&tr->pool_by_id, &array, &tr->pool_count, &tr->pool_cap, sizeof *tr->pools, id, &created);
    tr->pools = array;
    if (i < 0)
        return NULL;
    struct tct_mem_pool *p = &tr->pools[i];
    if (created) {
        p->id = id;
        tcu_map_init(&p->live, 0, NULL);
        tcu_map_init(&p->site_index, 0, NULL);
    }
    return p;
}

static struct tct_lock *lock_for(struct tct_trace *tr, uint32_t id)
{
    void *array = tr->locks;
    int created;
    ptrdiff_t i = find_record(&tr->lock_by_id, &array, &tr->lock_count, &tr->lock_cap, sizeof *tr->locks, id, &created);
    tr->locks = array;
    if (i < 0)
        return NULL;
    struct tct_lock *l = &tr->locks[i];
    if (created) {
        l->id = id;
        l->announced = TCT_TIME_NONE;
        l->terminated = TCT_TIME_NONE;
    }
    return l;
}

static struct tct_gpu_context *gpu_context_for(struct tct_trace *tr, uint32_t id)
{
    void *array = tr->gpu_contexts;
    int created;
    ptrdiff_t i = find_record(&tr->gpu_context_by_id, &array, &tr->gpu_context_count, &tr->gpu_context_cap,
                              sizeof *tr->gpu_contexts, id, &created);
    tr->gpu_contexts = array;
    if (i < 0)
        return NULL;
    struct tct_gpu_context *c = &tr->gpu_contexts[i];
    if (created) {
        c->id = id;
        tcu_chunks_init(&c->zones, sizeof(struct tct_gpu_zone), TCT_CHUNK_SHIFT, NULL);
    }
    return c;
}

void tct_model_message(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    size_t len = ev->text ? ev->text_len : 0; /* NULs and all */
    const char *text = t ? tcu_arena_strdup(&tr->strings, ev->text, len) : NULL;
    struct tct_message *m = text ? tcu_chunks_push(&tr->messages) : NULL;
    if (!m) {
        tr->lost_events++;
        return;
    }
    tct_model_number_thread(tr, t);
    m->time = ev->time;
    m->text = text;
    m->text_len = (uint32_t)len;
    m->string = ev->id;
    m->thread = t->id;
    m->color = ev->color;
    m->callstack = ev->callstack;
    m->severity = ev->severity;
    t->messages++;
}

void tct_model_app_info(struct tct_trace *tr, const struct tcd_event *ev)
{
    char **grown = tcu_grow(NULL, tr->app_info, &tr->app_info_cap, tr->app_info_count + 1, sizeof *grown);
    char *text = grown ? tct_model_strdup_text(ev) : NULL;
    if (grown)
        tr->app_info = grown;
    if (!text) {
        tr->lost_events++;
        return;
    }
    tr->app_info[tr->app_info_count++] = text;
}

void tct_model_plot(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_plot *p = plot_for(tr, ev->id);
    struct tct_plot_point *pt = p ? tcu_chunks_push(&p->points) : NULL;
    if (!pt) {
        tr->lost_events++;
        return;
    }
    pt->time = ev->time;
    pt->is_int = ev->is_int;
    pt->ivalue = ev->is_int ? (int64_t)ev->value : 0;
    pt->value = ev->is_int ? (double)(int64_t)ev->value : ev->dvalue;
    if (!ev->is_int)
        p->is_int = 0;
    if (pt->value < p->min)
        p->min = pt->value;
    if (pt->value > p->max)
        p->max = pt->value;
}

void tct_model_plot_config(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_plot *p = plot_for(tr, ev->id);
    if (!p) {
        tr->lost_events++;
        return;
    }
    p->format = ev->format;
    p->flags = ev->flags;
    p->color = ev->color;
}

void tct_model_frame(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_frame_set *fs = frame_set_for(tr, ev->id, ev->kind == TCD_FRAME_MARK);
    if (!fs) {
        tr->lost_events++;
        return;
    }
    struct tct_frame *last = fs->frames.count ? tcu_chunks_at(&fs->frames, fs->frames.count - 1) : NULL;
    if (ev->kind == TCD_FRAME_END) {
        if (last && last->end == TCT_TIME_NONE)
            last->end = ev->time;
        else
            tr->ignored_events++;
        return;
    }
    /* A mark ends the previous frame of a continuous set. */
    if (ev->kind == TCD_FRAME_MARK && last && last->end == TCT_TIME_NONE)
        last->end = ev->time;
    struct tct_frame *f = tcu_chunks_push(&fs->frames);
    if (!f) {
        tr->lost_events++;
        return;
    }
    f->start = ev->time;
    f->end = TCT_TIME_NONE;
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

void tct_model_memory(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_mem_pool *p = pool_for(tr, ev->id);
    struct tct_thread *t = tct_model_thread(tr, ev->thread);
    if (!p || !t) {
        tr->lost_events++;
        return;
    }
    uint64_t size;
    switch (ev->kind) {
    case TCD_MEM_ALLOC:
        tct_model_number_thread(tr, t);
        if (tcu_map_remove(&p->live, ev->address, &size))
            p->live_bytes -= size; /* allocated twice without a free: keep the newer */
        if (tcu_map_put(&p->live, ev->address, ev->value) < 0) {
            tr->lost_events++;
            return;
        }
        p->allocs++;
        p->live_bytes += ev->value;
        p->total_bytes = tct_bytes_add(p->total_bytes, ev->value);
        if (p->live_bytes > p->peak_bytes)
            p->peak_bytes = p->live_bytes;
        if (ev->callstack && alloc_site(p, ev->callstack, ev->value) != 0)
            tr->lost_events++;
        break;
    case TCD_MEM_FREE:
        if (ev->address == 0)
            break; /* free(NULL) */
        tct_model_number_thread(tr, t);
        p->frees++;
        if (ev->callstack)
            p->frees_with_callstack++;
        if (tcu_map_remove(&p->live, ev->address, &size))
            p->live_bytes -= size;
        else
            p->unmatched_frees++;
        break;
    default: /* TCD_MEM_DISCARD: everything in the pool is gone */
        tct_model_number_thread(tr, t);
        p->discards++;
        tcu_map_clear(&p->live);
        p->live_bytes = 0;
        break;
    }
}

static void lock_obtain(struct tct_lock *l, const struct tcd_event *ev)
{
    l->obtains++;
    l->held++;
    for (size_t i = 0; i < l->waiting_count; i++) {
        if (l->waiting[i].thread != ev->thread)
            continue;
        int64_t waited = ev->time - l->waiting[i].since;
        l->waiting[i] = l->waiting[--l->waiting_count];
        if (waited > 0) {
            l->wait_total = tct_time_add(l->wait_total, waited);
            if (waited > l->wait_max)
                l->wait_max = waited;
        }
        return;
    }
}

static int lock_wait(struct tct_lock *l, const struct tcd_event *ev)
{
    l->waits++;
    if (l->held)
        l->contended++;
    for (size_t i = 0; i < l->waiting_count; i++) {
        if (l->waiting[i].thread == ev->thread) {
            l->waiting[i].since = ev->time;
            return 0;
        }
    }
    struct tct_lock_wait *grown = tcu_grow(NULL, l->waiting, &l->waiting_cap, l->waiting_count + 1, sizeof *grown);
    if (!grown)
        return -1;
    l->waiting = grown;
    l->waiting[l->waiting_count++] = (struct tct_lock_wait){ev->thread, ev->time};
    return 0;
}

void tct_model_lock(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_lock *l = lock_for(tr, ev->id);
    if (!l) {
        tr->lost_events++;
        return;
    }
    switch (ev->kind) {
    case TCD_LOCK_ANNOUNCE:
        l->srcloc = ev->srcloc;
        l->shared = ev->format == 1;
        l->announced = ev->time;
        break;
    case TCD_LOCK_TERMINATE:
        l->terminated = ev->time;
        break;
    case TCD_LOCK_WAIT:
        if (lock_wait(l, ev) != 0)
            tr->lost_events++;
        break;
    case TCD_LOCK_OBTAIN:
        lock_obtain(l, ev);
        break;
    case TCD_LOCK_RELEASE:
        l->releases++;
        if (l->held)
            l->held--;
        break;
    case TCD_LOCK_MARK:
        l->marks++;
        break;
    default: { /* TCD_LOCK_NAME */
        char *name = tct_model_strdup_text(ev);
        if (!name) {
            tr->lost_events++;
            return;
        }
        free(l->name);
        l->name = name;
        break;
    }
    }
}

/* A query_zone entry: the zone's index + 1, and whether the query times its end. */
static uint32_t pending_query(size_t index, int is_end)
{
    return (uint32_t)((index + 1) << 1 | (size_t)is_end);
}

/* The open-zone stack of `thread` in the context, created when missing. */
static struct tct_gpu_stack *gpu_stack(struct tct_gpu_context *c, uint32_t thread, int create)
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

static void gpu_zone_begin(struct tct_trace *tr, struct tct_gpu_context *c, const struct tcd_event *ev)
{
    if (!c->query_zone)
        c->query_zone = calloc(GPU_QUERIES, sizeof *c->query_zone);
    /* As the Tracy server: zones of a context bound to one thread share one stack, keyed
     * 0 (the client then sends thread 0 with their ends); others nest per thread. */
    uint32_t key = c->thread ? 0 : ev->thread;
    struct tct_gpu_stack *s = c->query_zone ? gpu_stack(c, key, 1) : NULL;
    size_t *zones = s ? tcu_grow(NULL, s->zones, &s->cap, s->count + 1, sizeof *zones) : NULL;
    struct tct_gpu_zone *z = zones ? tcu_chunks_push(&c->zones) : NULL;
    if (zones)
        s->zones = zones;
    if (!z) {
        tr->lost_events++;
        return;
    }
    struct tct_thread *t = c->thread ? NULL : tct_model_thread(tr, ev->thread);
    if (t)
        tct_model_number_thread(tr, t);
    *z = (struct tct_gpu_zone){
        .cpu_begin = ev->time,
        .cpu_end = TCT_TIME_NONE,
        .gpu_begin = TCT_TIME_NONE,
        .gpu_end = TCT_TIME_NONE,
        .srcloc = ev->srcloc,
        .thread = c->thread ? c->thread : ev->thread,
        .callstack = ev->callstack,
        .depth = s->count > 0xffff ? 0xffff : (uint16_t)s->count,
    };
    size_t index = c->zones.count - 1;
    s->zones[s->count++] = index;
    c->query_zone[ev->query] = pending_query(index, 0);
    tr->gpu_zones++;
}

static void gpu_zone_end(struct tct_trace *tr, struct tct_gpu_context *c, const struct tcd_event *ev)
{
    struct tct_gpu_stack *s = gpu_stack(c, ev->thread, 0);
    if (!s || !s->count || !c->query_zone) {
        tr->ignored_events++;
        return;
    }
    size_t index = s->zones[--s->count];
    struct tct_gpu_zone *z = tcu_chunks_at(&c->zones, index);
    z->cpu_end = ev->time > z->cpu_begin ? ev->time : z->cpu_begin;
    c->query_zone[ev->query] = pending_query(index, 1);
}

/* A GPU timestamp answers the query a zone's begin or end left pending. Unlike the
 * Tracy server, which takes the first answer as the start, the query remembers which end
 * it is for, so answers may come in any order. */
static void gpu_time(struct tct_trace *tr, struct tct_gpu_context *c, const struct tcd_event *ev)
{
    uint32_t pending = c->query_zone ? c->query_zone[ev->query] : 0;
    if (!pending) {
        tr->ignored_events++;
        return;
    }
    c->query_zone[ev->query] = 0;
    struct tct_gpu_zone *z = tcu_chunks_at(&c->zones, (pending >> 1) - 1);
    if (pending & 1)
        z->gpu_end = ev->time2;
    else
        z->gpu_begin = ev->time2;
}

void tct_model_gpu(struct tct_trace *tr, const struct tcd_event *ev)
{
    struct tct_gpu_context *c = gpu_context_for(tr, ev->id);
    if (!c) {
        tr->lost_events++;
        return;
    }
    switch (ev->kind) {
    case TCD_GPU_CONTEXT:
        c->thread = ev->thread;
        c->type = ev->format;
        c->period = ev->dvalue;
        break;
    case TCD_GPU_CONTEXT_NAME: {
        char *name = tct_model_strdup_text(ev);
        if (!name) {
            tr->lost_events++;
            return;
        }
        free(c->name);
        c->name = name;
        break;
    }
    case TCD_GPU_ZONE_BEGIN:
        gpu_zone_begin(tr, c, ev);
        break;
    case TCD_GPU_ZONE_END:
        gpu_zone_end(tr, c, ev);
        break;
    default: /* TCD_GPU_TIME */
        gpu_time(tr, c, ev);
        break;
    }
}

void tct_model_crash(struct tct_trace *tr, const struct tcd_event *ev)
{
    char *text = tct_model_strdup_text(ev);
    if (!text) {
        tr->lost_events++;
        return;
    }
    free(tr->crash.text);
    tr->crash = (struct tct_crash){1, ev->thread, ev->time, text, ev->id, ev->callstack};
}

void tct_model_system(struct tct_trace *tr, const struct tcd_event *ev)
{
    if (ev->time == 0) { /* a client whose perf clock could not be converted sends no times */
        tr->untimed_switches++;
        return;
    }
    if (ev->kind == TCD_CONTEXT_SWITCH) {
        struct tct_switch *s = tcu_chunks_push(&tr->switches);
        if (!s) {
            tr->lost_events++;
            return;
        }
        *s = (struct tct_switch){ev->time, ev->id, ev->thread, (uint8_t)ev->query, ev->format, ev->flags};
    } else {
        struct tct_wakeup *w = tcu_chunks_push(&tr->wakeups);
        if (!w) {
            tr->lost_events++;
            return;
        }
        *w = (struct tct_wakeup){ev->time, ev->thread, (uint8_t)ev->query};
    }
}

void tct_model_finish_gpu(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        struct tct_gpu_context *c = &tr->gpu_contexts[i];
        for (size_t s = 0; s < c->stack_count; s++) {
            struct tct_gpu_stack *st = &c->stacks[s];
            while (st->count) {
                struct tct_gpu_zone *z = tcu_chunks_at(&c->zones, st->zones[--st->count]);
                z->cpu_end = tr->last_time > z->cpu_begin ? tr->last_time : z->cpu_begin;
                tr->unfinished_zones++;
            }
        }
    }
}

void tct_model_free_records(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->plot_count; i++)
        tcu_chunks_free(&tr->plots[i].points);
    free(tr->plots);
    for (size_t i = 0; i < tr->frame_set_count; i++)
        tcu_chunks_free(&tr->frame_sets[i].frames);
    free(tr->frame_sets);
    for (size_t i = 0; i < tr->pool_count; i++) {
        tcu_map_free(&tr->pools[i].live);
        tcu_map_free(&tr->pools[i].site_index);
        free(tr->pools[i].sites);
    }
    free(tr->pools);
    for (size_t i = 0; i < tr->lock_count; i++) {
        free(tr->locks[i].name);
        free(tr->locks[i].waiting);
    }
    free(tr->locks);
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        struct tct_gpu_context *c = &tr->gpu_contexts[i];
        free(c->name);
        tcu_chunks_free(&c->zones);
        free(c->query_zone);
        for (size_t s = 0; s < c->stack_count; s++)
            free(c->stacks[s].zones);
        free(c->stacks);
    }
    free(tr->gpu_contexts);
    for (size_t i = 0; i < tr->app_info_count; i++)
        free(tr->app_info[i]);
    free(tr->app_info);
    free(tr->crash.text);
}

size_t tct_model_records_memory(const struct tct_trace *tr)
{
    size_t bytes = tr->plot_cap * sizeof *tr->plots + tr->frame_set_cap * sizeof *tr->frame_sets +
                   tr->pool_cap * sizeof *tr->pools + tr->lock_cap * sizeof *tr->locks +
                   tr->gpu_context_cap * sizeof *tr->gpu_contexts;
    for (size_t i = 0; i < tr->plot_count; i++)
        bytes += tcu_chunks_memory(&tr->plots[i].points);
    for (size_t i = 0; i < tr->frame_set_count; i++)
        bytes += tcu_chunks_memory(&tr->frame_sets[i].frames);
    for (size_t i = 0; i < tr->pool_count; i++)
        bytes += tcu_map_memory(&tr->pools[i].live) + tcu_map_memory(&tr->pools[i].site_index) +
                 tr->pools[i].site_cap * sizeof *tr->pools[i].sites;
    for (size_t i = 0; i < tr->gpu_context_count; i++) {
        const struct tct_gpu_context *c = &tr->gpu_contexts[i];
        bytes += tcu_chunks_memory(&c->zones) + (c->query_zone ? GPU_QUERIES * 4 : 0);
    }
    return bytes;
}
