/* cpu_time.c - on-CPU and off-CPU time per thread from the context switches (cpu_time.h). */
#include "trace/cpu_time.h"

#include <stdlib.h>

enum { UNKNOWN, ON, OFF };

struct thread_state {
    struct tct_cpu_time t;
    int state;
    uint8_t cpu; /* while ON */
    int64_t since;
};

/* The state of a thread of the trace; NULL for other threads of the system. */
static struct thread_state *state_of(const struct tct_trace *tr, struct thread_state *states, uint32_t source,
                                     uint32_t thread)
{
    const struct tct_thread *t = thread ? tct_trace_thread(tr, source, thread) : NULL;
    return t ? &states[t->index] : NULL;
}

struct tct_cpu_time *tct_cpu_times(const struct tct_trace *tr, struct tct_sched_log *log, int64_t end, size_t *n)
{
    *n = 0;
    size_t threads = tct_trace_thread_count(tr);
    if (!log || !tct_sched_log_switches(log) || !threads)
        return NULL;
    struct thread_state *states = calloc(threads, sizeof *states);
    if (!states || tct_sched_log_start(log) != 0) {
        free(states);
        *n = 1;
        return NULL;
    }
    for (const struct tct_sched_event *sw; (sw = tct_sched_log_next(log));) {
        if (sw->is_wakeup)
            continue;
        struct thread_state *old = state_of(tr, states, sw->source, sw->old_thread);
        if (old && old->state == ON && old->cpu == sw->cpu) {
            old->t.on_cpu += sw->time - old->since;
            old->state = OFF;
            old->since = sw->time;
        } else if (old && old->state == UNKNOWN) {
            old->state = OFF;
            old->since = sw->time;
        } /* else: it already runs on another CPU, or its switch-in was lost: nothing ends */
        struct thread_state *now = state_of(tr, states, sw->source, sw->new_thread);
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
    struct tct_cpu_time *out = tct_sched_log_error(log) ? NULL : malloc(threads * sizeof *out);
    if (!out) {
        free(states);
        *n = 1;
        return NULL;
    }
    for (size_t i = 0; i < threads; i++) {
        struct thread_state *s = &states[i];
        if (s->state == UNKNOWN)
            continue;
        if (end > s->since)
            *(s->state == ON ? &s->t.on_cpu : &s->t.off_cpu) += end - s->since;
        s->t.thread = tct_trace_thread_at(tr, i);
        out[(*n)++] = s->t;
    }
    free(states);
    if (*n == 0) {
        free(out);
        return NULL;
    }
    return out;
}
