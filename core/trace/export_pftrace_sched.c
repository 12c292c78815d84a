/* export_pftrace_sched.c - context switches and wakeups in the Perfetto output.
 *
 * As Perfetto's own Linux tracer records them: FtraceEventBundle packets, one CPU's events
 * each, in the compact form (CompactSched: per event a timestamp, the previous thread's
 * state, the next thread's id, priority and name, in packed arrays, the names interned in the
 * bundle). Perfetto's trace processor turns them into a track per CPU and the running,
 * runnable and sleeping state of every thread (importers/ftrace/ftrace_tokenizer.cc,
 * TokenizeFtraceCompactSched). The previous thread of a switch is the one the CPU's previous
 * switch put on it, as ftrace's compact form has it. A switch the compact form cannot say so
 * goes out in full instead, a sched_switch FtraceEvent in a bundle of its own after the CPU's
 * compact ones before it, with its previous thread as said (FtraceSchedEventTracker::
 * PushSchedSwitch): a CPU's first switch, which the trace processor drops in the compact form
 * (PushSchedSwitchCompact: compact_sched_switch_skipped, no slice, no thread state), and a
 * switch whose previous thread is another (a switch between them lost, or never sent:
 * upstream Tracy's client does that), read as in a kernel trace that lost events. Wakeups are
 * sched_waking events on the CPU they name, targeting it, their waker the thread on the CPU; a
 * wakeup before the CPU's first switch goes out in full too, its waker the idle thread, as the
 * trace processor drops it in the compact form (PushSchedWakingCompact:
 * compact_sched_waking_skipped, no thread on the CPU to be its waker). The scheduling log
 * (sched_log.h) gives them in time order; each CPU's bundle goes out when it holds BUNDLE
 * events of a kind.
 * The process of each thread of another program, as far as the client said (TidToPid),
 * follows in a ProcessTree.
 *
 * States: the client's codes (docs/protocol.md §25.5) as the kernel's prev_state bits, in the
 * layout the trace processor assumes for a trace that names no kernel version (Linux 4.4):
 * R 0, S 1, D 2, T 4, t 8, X 0x10, Z 0x20, P 0x200, I 0x402 (uninterruptible, no load),
 * preempted (R+) 0x800. Priorities are not sent by clients: every event says 120.
 */
#include "trace/export_pftrace.h"
#include "util/array.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BUNDLE 512
#define MAX_CPUS 256 /* cpu numbers are 8-bit in the protocol */
#define PRIORITY 120

struct thread_ref {
    uint32_t source, thread;
};

/* The threads of other programs seen, with their process (ProcessTree). */
struct others {
    struct tcu_map seen; /* source << 32 | thread, of every thread switched */
    struct other {
        uint32_t source, thread;
        uint64_t pid;
    } * list;
    size_t count, cap;
};

struct bundle {
    int started;              /* a switch went out: the compact form implies its next thread */
    struct thread_ref on_cpu; /* that thread */
    size_t switches, wakings;
    int64_t switch_time[BUNDLE], waking_time[BUNDLE];
    uint16_t prev_state[BUNDLE];
    struct thread_ref next[BUNDLE], woken[BUNDLE];
};

/* The state a switch leaves its previous thread in; the idle thread (0) is runnable (R), as the kernel says. */
static uint16_t prev_state(const struct tct_sched_event *e)
{
    if (!e->old_thread)
        return 0;
    switch (e->state) {
    case 101:
        return 0x2; /* D */
    case 102:
        return 0x402; /* I */
    case 103:
        return 0x800; /* R+ */
    case 105:
        return 0x4; /* T */
    case 106:
        return 0x8; /* t */
    case 108:
        return 0x10; /* X */
    case 109:
        return 0x20; /* Z */
    case 110:
        return 0x200; /* P */
    default:
        return 0x1; /* S, and what the client did not say */
    }
}

/* Whether a switch's previous thread is the one the CPU's last switch put on (on_cpu): a tid alone
 * may be another process's (two containers), but the idle thread is the CPU's, whoever saw it. */
static int is_on_cpu(const struct bundle *b, const struct tct_sched_event *e)
{
    return e->old_thread == b->on_cpu.thread && (!e->old_thread || e->source == b->on_cpu.source);
}

/* A thread's command name: its name in the client, else the system's, else ftrace's "<...>". */
static const char *comm_of(const struct tct_pftrace *p, struct thread_ref t, unsigned cpu, char buf[32])
{
    if (t.thread == 0) {
        snprintf(buf, 32, "swapper/%u", cpu);
        return buf;
    }
    const struct tct_names *n = &tct_trace_source(p->trace, t.source)->names;
    const char *name = NULL;
    if (tct_trace_thread(p->trace, t.source, t.thread))
        name = n->thread(n->ctx, t.thread);
    if ((!name || !name[0]) && n->system_thread)
        name = n->system_thread(n->ctx, t.thread);
    return name && name[0] ? name : "<...>";
}

/* The index of a thread's name in the bundle's table, adding it when new. */
static uint32_t comm_index(struct tct_pftrace *p, struct tcu_map *table, struct thread_ref t, unsigned cpu)
{
    uint64_t key = (uint64_t)t.source << 32 | t.thread;
    const uint64_t *known = tcu_map_get(table, key);
    if (known)
        return (uint32_t)*known;
    uint32_t index = (uint32_t)tcu_map_count(table);
    if (tcu_map_put(table, key, index) < 0)
        p->failed = 1;
    char buf[32];
    tct_pb_string(&p->pb, PF_SCHED_INTERN_TABLE, comm_of(p, t, cpu, buf));
    return index;
}

static void packed_times(struct tct_pftrace *p, uint32_t field, const int64_t *times, size_t n)
{
    size_t m = tct_pb_begin(&p->pb, field);
    for (size_t i = 0; i < n; i++) /* the first absolute, then each the step from its predecessor */
        tct_pb_raw_varint(&p->pb, (uint64_t)(times[i] - (i ? times[i - 1] : 0)));
    tct_pb_end(&p->pb, m);
}

/* An int32 array of n copies of v, or of the ids of refs. */
static void packed_int32(struct tct_pftrace *p, uint32_t field, const struct thread_ref *refs, int32_t v, size_t n)
{
    size_t m = tct_pb_begin(&p->pb, field);
    for (size_t i = 0; i < n; i++)
        tct_pb_raw_varint(&p->pb, (uint64_t)(int64_t)(refs ? (int32_t)refs[i].thread : v));
    tct_pb_end(&p->pb, m);
}

static void flush_bundle(struct tct_pftrace *p, struct bundle *b, unsigned cpu)
{
    if (!b->switches && !b->wakings)
        return;
    struct tcu_map table;
    tcu_map_init(&table, 0, NULL);
    uint32_t next_comm[BUNDLE], woken_comm[BUNDLE];
    size_t m = tct_pf_packet_begin(p, PF_SYSTEM_SEQUENCE, TCT_TIME_NONE, 0);
    size_t events = tct_pb_begin(&p->pb, PF_PACKET_FTRACE_EVENTS);
    tct_pb_varint(&p->pb, PF_BUNDLE_CPU, cpu);
    size_t compact = tct_pb_begin(&p->pb, PF_BUNDLE_COMPACT_SCHED);
    for (size_t i = 0; i < b->switches; i++)
        next_comm[i] = comm_index(p, &table, b->next[i], cpu);
    for (size_t i = 0; i < b->wakings; i++)
        woken_comm[i] = comm_index(p, &table, b->woken[i], cpu);
    if (b->switches) {
        packed_times(p, PF_SWITCH_TIMESTAMP, b->switch_time, b->switches);
        size_t s = tct_pb_begin(&p->pb, PF_SWITCH_PREV_STATE);
        for (size_t i = 0; i < b->switches; i++)
            tct_pb_raw_varint(&p->pb, b->prev_state[i]);
        tct_pb_end(&p->pb, s);
        packed_int32(p, PF_SWITCH_NEXT_PID, b->next, 0, b->switches);
        packed_int32(p, PF_SWITCH_NEXT_PRIO, NULL, PRIORITY, b->switches);
        s = tct_pb_begin(&p->pb, PF_SWITCH_NEXT_COMM);
        for (size_t i = 0; i < b->switches; i++)
            tct_pb_raw_varint(&p->pb, next_comm[i]);
        tct_pb_end(&p->pb, s);
    }
    if (b->wakings) {
        packed_times(p, PF_WAKING_TIMESTAMP, b->waking_time, b->wakings);
        packed_int32(p, PF_WAKING_PID, b->woken, 0, b->wakings);
        packed_int32(p, PF_WAKING_TARGET_CPU, NULL, (int32_t)cpu, b->wakings);
        packed_int32(p, PF_WAKING_PRIO, NULL, PRIORITY, b->wakings);
        size_t s = tct_pb_begin(&p->pb, PF_WAKING_COMM);
        for (size_t i = 0; i < b->wakings; i++)
            tct_pb_raw_varint(&p->pb, woken_comm[i]);
        tct_pb_end(&p->pb, s);
    }
    tct_pb_end(&p->pb, compact);
    tct_pb_end(&p->pb, events);
    tct_pf_packet_end(p, m);
    tcu_map_free(&table);
    b->switches = b->wakings = 0;
}

/* Whether the compact form says the event as it is: the trace processor takes a compact
 * switch's previous thread, and a compact wakeup's waker, to be the thread the CPU's last switch
 * put on it, and drops either on a CPU that has had no switch yet (PushSchedSwitchCompact,
 * PushSchedWakingCompact: compact_sched_waking_skipped). */
static int compact_says(const struct bundle *b, const struct tct_sched_event *e)
{
    return b->started && (e->is_wakeup || is_on_cpu(b, e));
}

/* The packet, bundle and FtraceEvent of one event in full, open. */
struct full_event {
    size_t packet, bundle, event;
};

/* Opens a bundle of one event in full on e's CPU at e's time; task: the thread running, the event's. */
static struct full_event full_event_begin(struct tct_pftrace *p, const struct tct_sched_event *e, uint32_t task)
{
    struct full_event f;
    f.packet = tct_pf_packet_begin(p, PF_SYSTEM_SEQUENCE, TCT_TIME_NONE, 0);
    f.bundle = tct_pb_begin(&p->pb, PF_PACKET_FTRACE_EVENTS);
    tct_pb_varint(&p->pb, PF_BUNDLE_CPU, e->cpu);
    f.event = tct_pb_begin(&p->pb, PF_BUNDLE_EVENT);
    tct_pb_varint(&p->pb, PF_FTRACE_TIMESTAMP, (uint64_t)e->time);
    tct_pb_varint(&p->pb, PF_FTRACE_PID, task);
    return f;
}

static void full_event_end(struct tct_pftrace *p, struct full_event f)
{
    tct_pb_end(&p->pb, f.event);
    tct_pb_end(&p->pb, f.bundle);
    tct_pf_packet_end(p, f.packet);
}

/* A switch in full: its previous thread said, not implied. */
static void full_switch(struct tct_pftrace *p, const struct tct_sched_event *e)
{
    struct thread_ref prev = {e->source, e->old_thread}, next = {e->source, e->new_thread};
    char prev_buf[32], next_buf[32];
    struct full_event f = full_event_begin(p, e, e->old_thread); /* the thread that ran */
    size_t sw = tct_pb_begin(&p->pb, PF_FTRACE_SCHED_SWITCH);
    tct_pb_string(&p->pb, PF_SCHED_SWITCH_PREV_COMM, comm_of(p, prev, e->cpu, prev_buf));
    tct_pb_int(&p->pb, PF_SCHED_SWITCH_PREV_PID, (int32_t)e->old_thread);
    tct_pb_int(&p->pb, PF_SCHED_SWITCH_PREV_PRIO, PRIORITY);
    tct_pb_int(&p->pb, PF_SCHED_SWITCH_PREV_STATE, prev_state(e));
    tct_pb_string(&p->pb, PF_SCHED_SWITCH_NEXT_COMM, comm_of(p, next, e->cpu, next_buf));
    tct_pb_int(&p->pb, PF_SCHED_SWITCH_NEXT_PID, (int32_t)e->new_thread);
    tct_pb_int(&p->pb, PF_SCHED_SWITCH_NEXT_PRIO, PRIORITY);
    tct_pb_end(&p->pb, sw);
    full_event_end(p, f);
}

/* A wakeup before the CPU's first switch: its waker, the event's task, is the CPU's idle thread,
 * as in the JSON's ftrace text, no switch having put another there. */
static void full_waking(struct tct_pftrace *p, const struct tct_sched_event *e)
{
    struct thread_ref woken = {e->source, e->new_thread};
    char buf[32];
    struct full_event f = full_event_begin(p, e, 0);
    size_t wk = tct_pb_begin(&p->pb, PF_FTRACE_SCHED_WAKING);
    tct_pb_string(&p->pb, PF_SCHED_WAKING_COMM, comm_of(p, woken, e->cpu, buf));
    tct_pb_int(&p->pb, PF_SCHED_WAKING_PID, (int32_t)e->new_thread);
    tct_pb_int(&p->pb, PF_SCHED_WAKING_PRIO, PRIORITY);
    tct_pb_int(&p->pb, PF_SCHED_WAKING_SUCCESS, 1);
    tct_pb_int(&p->pb, PF_SCHED_WAKING_TARGET_CPU, e->cpu);
    tct_pb_end(&p->pb, wk);
    full_event_end(p, f);
}

/* A thread switched, the first time it is seen: the program's own get their track (so that
 * Perfetto knows their process, if nothing else of theirs did), the others' are listed with
 * their process when it is known. */
static void switched_thread(struct tct_pftrace *p, struct others *o, uint32_t source, uint32_t thread)
{
    uint64_t key = (uint64_t)source << 32 | thread;
    if (!thread || tcu_map_get(&o->seen, key))
        return;
    const struct tct_thread *own = tct_trace_thread(p->trace, source, thread);
    if (own) {
        tct_pf_thread_track(p, own);
        if (tcu_map_put(&o->seen, key, 0) < 0)
            p->failed = 1;
        return;
    }
    const struct tct_names *n = &tct_trace_source(p->trace, source)->names;
    uint64_t pid = n->thread_pid ? n->thread_pid(n->ctx, thread) : 0;
    struct other *grown = tcu_grow(NULL, o->list, &o->cap, o->count + 1, sizeof *grown);
    if (grown)
        o->list = grown;
    if (!grown || tcu_map_put(&o->seen, key, 0) < 0) {
        p->failed = 1;
        return;
    }
    if (pid)
        o->list[o->count++] = (struct other){source, thread, pid};
}

static void process_tree(struct tct_pftrace *p, const struct others *o)
{
    if (!o->count)
        return;
    size_t m = tct_pf_packet_begin(p, PF_SYSTEM_SEQUENCE, 0, 0);
    size_t tree = tct_pb_begin(&p->pb, PF_PACKET_PROCESS_TREE);
    for (size_t i = 0; i < o->count; i++) {
        const struct tct_names *n = &tct_trace_source(p->trace, o->list[i].source)->names;
        const char *name = n->system_thread ? n->system_thread(n->ctx, o->list[i].thread) : NULL;
        size_t t = tct_pb_begin(&p->pb, PF_TREE_THREADS);
        tct_pb_int(&p->pb, PF_TREE_TID, (int32_t)o->list[i].thread);
        if (name && name[0])
            tct_pb_string(&p->pb, PF_TREE_NAME, name);
        tct_pb_int(&p->pb, PF_TREE_TGID, (int32_t)o->list[i].pid);
        tct_pb_end(&p->pb, t);
    }
    tct_pb_end(&p->pb, tree);
    tct_pf_packet_end(p, m);
}

int tct_pf_sched(struct tct_pftrace *p)
{
    if (!tct_sched_log_switches(p->sched))
        return 0;
    if (tct_sched_log_start(p->sched) != 0)
        return tct_sched_log_error(p->sched);
    struct bundle *cpus[MAX_CPUS] = {0};
    struct others others = {0};
    tcu_map_init(&others.seen, 0, NULL);
    for (const struct tct_sched_event *e; (e = tct_sched_log_next(p->sched));) {
        if (e->time <= 0)
            continue; /* before the trace's origin: not on the timeline */
        switched_thread(p, &others, e->source, e->new_thread);
        if (!e->is_wakeup)
            switched_thread(p, &others, e->source, e->old_thread);
        struct bundle *b = cpus[e->cpu];
        if (!b && !(b = cpus[e->cpu] = calloc(1, sizeof *b))) {
            p->failed = 1;
            break;
        }
        if (!compact_says(b, e)) {
            flush_bundle(p, b, e->cpu); /* the CPU's events stay in time order in the file */
            if (e->is_wakeup)
                full_waking(p, e);
            else
                full_switch(p, e);
        } else if (e->is_wakeup) {
            b->waking_time[b->wakings] = e->time;
            b->woken[b->wakings++] = (struct thread_ref){e->source, e->new_thread};
        } else {
            b->switch_time[b->switches] = e->time;
            b->prev_state[b->switches] = prev_state(e);
            b->next[b->switches++] = (struct thread_ref){e->source, e->new_thread};
        }
        if (!e->is_wakeup) {
            b->started = 1;
            b->on_cpu = (struct thread_ref){e->source, e->new_thread};
        }
        if (b->switches == BUNDLE || b->wakings == BUNDLE)
            flush_bundle(p, b, e->cpu);
    }
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (cpus[cpu])
            flush_bundle(p, cpus[cpu], cpu);
        free(cpus[cpu]);
    }
    process_tree(p, &others);
    tcu_map_free(&others.seen);
    free(others.list);
    return tct_sched_log_error(p->sched);
}
