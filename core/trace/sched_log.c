/* sched_log.c - context switches and wakeups in time order (sched_log.h). */
#include "trace/sched_log.h"
#include "util/spill.h"

#include <stdlib.h>

struct tct_sched_log {
    struct tct_sink sink;
    struct tcu_spill *spill;
    int sorted;
    uint64_t switches;
};

static int by_time(const void *pa, const void *pb)
{
    const struct tct_sched_event *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->is_wakeup != b->is_wakeup)
        return a->is_wakeup < b->is_wakeup ? -1 : 1;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_sched_log *log = (struct tct_sched_log *)sink;
    struct tct_sched_event e = {.source = rec->source->index};
    if (rec->kind == TCT_REC_SWITCH) {
        const struct tct_switch_record *sw = &rec->u.sw;
        e.time = sw->time;
        e.seq = sw->seq;
        e.cpu = sw->cpu;
        e.state = sw->state;
        e.reason = sw->reason;
        e.old_thread = sw->old_thread;
        e.new_thread = sw->new_thread;
        log->switches++;
    } else {
        e.time = rec->u.wakeup.time;
        e.seq = rec->u.wakeup.seq;
        e.is_wakeup = 1;
        e.cpu = rec->u.wakeup.cpu;
        e.new_thread = rec->u.wakeup.thread;
    }
    tcu_spill_add(log->spill, &e); /* an error sticks: the outputs report it */
}

static void log_free(struct tct_sink *sink)
{
    struct tct_sched_log *log = (struct tct_sched_log *)sink;
    tcu_spill_free(log->spill);
    free(log);
}

static size_t log_memory(const struct tct_sink *sink)
{
    return sizeof(struct tct_sched_log) + tcu_spill_memory(((const struct tct_sched_log *)sink)->spill);
}

static const struct tct_sink_ops ops = {"scheduling log", TCT_REC_BIT(TCT_REC_SWITCH) | TCT_REC_BIT(TCT_REC_WAKEUP),
                                        on_record, log_free, log_memory};

struct tct_sched_log *tct_sched_log_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_sched_log *)found;
    struct tct_sched_log *log = calloc(1, sizeof *log);
    if (!log || !(log->spill = tcu_spill_new(sizeof(struct tct_sched_event), by_time, tct_trace_spill_memory(tr)))) {
        free(log);
        return NULL;
    }
    log->sink.ops = &ops;
    return tct_trace_add_sink(tr, &log->sink) == 0 ? log : NULL;
}

int tct_sched_log_start(struct tct_sched_log *log)
{
    if (!log->sorted) {
        log->sorted = 1;
        return tcu_spill_sort(log->spill);
    }
    return tcu_spill_rewind(log->spill);
}

const struct tct_sched_event *tct_sched_log_next(struct tct_sched_log *log)
{
    return tcu_spill_next(log->spill);
}

int tct_sched_log_error(const struct tct_sched_log *log)
{
    return tcu_spill_error(log->spill);
}

uint64_t tct_sched_log_switches(const struct tct_sched_log *log)
{
    return log->switches;
}
