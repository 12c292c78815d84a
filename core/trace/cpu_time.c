/* cpu_time.c - on-CPU and off-CPU time per thread from the context switches (cpu_time.h). */
#include "trace/cpu_time.h"

#include <stdlib.h>

#include "util/map.h"

struct time_key {
    int64_t time;
    size_t index;
};

static int time_key_cmp(const void *pa, const void *pb)
{
    const struct time_key *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

size_t *tct_sort_by_time(const struct tcu_chunks *events)
{
    size_t n = events->count;
    struct time_key *keys = n ? malloc(n * sizeof *keys) : NULL;
    size_t *order = keys ? malloc(n * sizeof *order) : NULL;
    if (!order) {
        free(keys);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (struct time_key){*(const int64_t *)tcu_chunks_at(events, i), i};
    qsort(keys, n, sizeof *keys, time_key_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = keys[i].index;
    free(keys);
    return order;
}

enum { UNKNOWN, ON, OFF };

struct thread_state {
    struct tct_cpu_time t;
    int state;
    uint8_t cpu; /* while ON */
    int64_t since;
};

/* The state of a thread of the trace; NULL for other threads (or when memory ran out). */
static struct thread_state *state_of(struct thread_state *states, const struct tcu_map *index, uint32_t thread)
{
    const uint64_t *i = thread ? tcu_map_get(index, thread) : NULL;
    return i ? &states[*i] : NULL;
}

struct tct_cpu_time *tct_cpu_times(const struct tct_trace *tr, int64_t end, size_t *n)
{
    *n = 0;
    if (!tr->switches.count || !tr->thread_count)
        return NULL;
    struct thread_state *states = calloc(tr->thread_count, sizeof *states);
    size_t *order = states ? tct_sort_by_time(&tr->switches) : NULL;
    struct tcu_map index;
    tcu_map_init(&index, 0, NULL);
    int failed = !order;
    for (size_t i = 0; i < tr->thread_count && !failed; i++) {
        states[i].t.thread = tr->threads[i]->id;
        failed = tcu_map_put(&index, tr->threads[i]->id, i) < 0;
    }
    for (size_t k = 0; k < tr->switches.count && !failed; k++) {
        const struct tct_switch *sw = tct_trace_switch(tr, order[k]);
        struct thread_state *old = state_of(states, &index, sw->old_thread);
        if (old && old->state == ON && old->cpu == sw->cpu) {
            old->t.on_cpu += sw->time - old->since;
            old->state = OFF;
            old->since = sw->time;
        } else if (old && old->state == UNKNOWN) {
            old->state = OFF;
            old->since = sw->time;
        } /* else: it already runs on another CPU, or its switch-in was lost: nothing ends */
        struct thread_state *now = state_of(states, &index, sw->new_thread);
        if (!now)
            continue;
        if (now->state == ON) /* still running elsewhere: its switch-out comes later or was lost */
            now->t.overlaps++;
        *(now->state == ON ? &now->t.on_cpu : &now->t.off_cpu) += now->state == UNKNOWN ? 0 : sw->time - now->since;
        now->state = ON;
        now->since = sw->time;
        now->cpu = sw->cpu;
        now->t.switched_in++;
    }
    free(order);
    tcu_map_free(&index);
    struct tct_cpu_time *out = failed ? NULL : malloc(tr->thread_count * sizeof *out);
    if (!out) {
        free(states);
        *n = 1; /* out of memory */
        return NULL;
    }
    for (size_t i = 0; i < tr->thread_count; i++) {
        struct thread_state *s = &states[i];
        if (s->state == UNKNOWN)
            continue;
        if (end > s->since)
            *(s->state == ON ? &s->t.on_cpu : &s->t.off_cpu) += end - s->since;
        out[(*n)++] = s->t;
    }
    free(states);
    if (*n == 0) {
        free(out);
        return NULL;
    }
    return out;
}
