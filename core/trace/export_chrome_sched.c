/* export_chrome_sched.c - context switches and wakeups in Chrome Trace Event JSON.
 *
 * The Trace Event Format has no event for them; its root-level "systemTraceEvents" string
 * carries Linux ftrace text, which both chrome://tracing and Perfetto read. Perfetto's
 * importer (src/trace_processor/importers/systrace/systrace_line_tokenizer.cc and
 * systrace_line_parser.cc) takes lines "<comm>-<tid> (<tgid>) [<cpu>] <flags> <seconds>:
 * <event>: <args>" and turns sched_switch into a track per CPU and the running, runnable
 * and sleeping state of every thread, sched_waking into wakeups. Each context switch
 * becomes a sched_switch line, each wakeup a sched_waking line (its waker is the thread
 * running on that CPU then), in time order, on the trace's clock (seconds since its
 * origin). Priorities are not sent by the decoder's events: every line says 120.
 */
#include "trace/export_chrome.h"
#include "trace/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 256

/* A thread's command name as ftrace prints it: no spaces, '=' or control characters (they
 * would split the line's arguments), at most 31 bytes. */
static void comm_of(const struct tct_chrome *c, uint32_t source, uint32_t tid, uint8_t cpu, char out[32])
{
    const struct tct_names *n = &tct_trace_source(c->trace, source)->names;
    const char *name = NULL;
    if (tid == 0) {
        snprintf(out, 32, "swapper/%u", cpu);
        return;
    }
    if (tct_trace_thread(c->trace, source, tid))
        name = n->thread(n->ctx, tid);
    if ((!name || !name[0]) && n->system_thread)
        name = n->system_thread(n->ctx, tid);
    if (!name || !name[0])
        name = "<...>";
    size_t i = 0;
    for (; name[i] && i < 31; i++) {
        char ch = name[i];
        out[i] = ch == ' ' || ch == '=' || (unsigned char)ch < 0x20 ? '_' : ch;
    }
    out[i] = '\0';
}

/* "(<tgid>)": the client's pid for its own threads, else what TidToPid said. */
static void tgid_of(const struct tct_chrome *c, uint32_t source, uint32_t tid, char out[24])
{
    const struct tct_names *n = &tct_trace_source(c->trace, source)->names;
    uint64_t pid = 0;
    if (tid == 0)
        pid = 0;
    else if (tct_trace_thread(c->trace, source, tid))
        pid = tct_chrome_pid(c, source);
    else if (n->thread_pid)
        pid = n->thread_pid(n->ctx, tid);
    if (pid || tid == 0)
        snprintf(out, 24, "(%" PRIu64 ")", pid);
    else
        snprintf(out, 24, "(-----)");
}

/* Linux's letter for the state the client reported (docs/protocol.md §25.5). */
static const char *state_letter(uint8_t state)
{
    switch (state) {
    case 101:
        return "D";
    case 102:
        return "I";
    case 103:
        return "R+";
    case 104:
        return "S";
    case 105:
        return "T";
    case 106:
        return "t";
    case 108:
        return "X";
    case 109:
        return "Z";
    case 110:
        return "P";
    default:
        return "S";
    }
}

static void line_head(struct tct_chrome *c, uint32_t source, uint32_t tid, uint8_t cpu, int64_t time, const char *event)
{
    char comm[32], tgid[24], text[160];
    comm_of(c, source, tid, cpu, comm);
    tgid_of(c, source, tid, tgid);
    snprintf(text, sizeof text, "%s-%" PRIu32 " %s [%03u] .... %" PRId64 ".%09" PRId64 ": %s: ", comm, tid, tgid, cpu,
             time / 1000000000, time % 1000000000, event);
    tct_json_chars(c->w, text, strlen(text));
}

static void sched_switch(struct tct_chrome *c, const struct tct_sched_event *sw)
{
    char prev[32], next[32], text[256];
    comm_of(c, sw->source, sw->old_thread, sw->cpu, prev);
    comm_of(c, sw->source, sw->new_thread, sw->cpu, next);
    line_head(c, sw->source, sw->old_thread, sw->cpu, sw->time, "sched_switch");
    snprintf(text, sizeof text,
             "prev_comm=%s prev_pid=%" PRIu32 " prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%" PRIu32
             " next_prio=120",
             prev, sw->old_thread, sw->old_thread ? state_letter(sw->state) : "R", next, sw->new_thread);
    tct_json_chars(c->w, text, strlen(text));
    tct_write_str(c->w, "\\n");
}

static void sched_waking(struct tct_chrome *c, const struct tct_sched_event *wk, uint32_t waker)
{
    char comm[32], text[160];
    comm_of(c, wk->source, wk->new_thread, wk->cpu, comm);
    line_head(c, wk->source, waker, wk->cpu, wk->time, "sched_waking");
    snprintf(text, sizeof text, "comm=%s pid=%" PRIu32 " prio=120 target_cpu=%03u", comm, wk->new_thread, wk->cpu);
    tct_json_chars(c->w, text, strlen(text));
    tct_write_str(c->w, "\\n");
}

void tct_chrome_system_trace(struct tct_chrome *c)
{
    if (!tct_sched_log_switches(c->sched))
        return;
    if (tct_sched_log_start(c->sched) != 0)
        return;                       /* the error stays with the log: the output reports it */
    uint32_t running[MAX_CPUS] = {0}; /* the thread on each CPU, for the wakeups' waker */
    tct_write_str(c->w, ",\n\"systemTraceEvents\":\"# tracer: nop\\n");
    /* In time order, a switch before the wakeups of the same time; ftrace text has no
     * negative times. */
    for (const struct tct_sched_event *e; (e = tct_sched_log_next(c->sched));) {
        if (e->is_wakeup) {
            if (e->time > 0)
                sched_waking(c, e, running[e->cpu]);
            continue;
        }
        if (e->time > 0)
            sched_switch(c, e);
        running[e->cpu] = e->new_thread;
    }
    tct_write_char(c->w, '"');
}
