/* sched_log.h - a writer sink (sink.h): the context switches and wakeups of the system, kept
 * in a spill (util/spill.h) and read back in time order once the capture has ended. A
 * client's per-CPU buffers send them in CPU order, not time order: CPU time per thread
 * (cpu_time.h) and the ftrace text of the Chrome JSON need them sorted. */
#ifndef TRACYC_TRACE_SCHED_LOG_H
#define TRACYC_TRACE_SCHED_LOG_H

#include <stdint.h>

#include "trace/trace.h"

struct tct_sched_event {
    int64_t time;
    uint64_t seq;      /* arrival order within its kind and source */
    uint8_t is_wakeup; /* a wakeup (thread, cpu), else a switch */
    uint8_t cpu;
    uint8_t state, reason; /* a switch's old thread: its state and wait reason (the client's codes) */
    uint32_t source;
    uint32_t old_thread, new_thread; /* a switch; a wakeup's thread is new_thread */
};

struct tct_sched_log;

/* The trace's scheduling log, added to it on first use; NULL when out of memory. */
struct tct_sched_log *tct_sched_log_of(struct tct_trace *tr);

/* Reading, once the trace has finished: the events by time, at equal times switches first,
 * then each kind in arrival order. Each call to tct_sched_log_start starts over.
 * tct_sched_log_next gives NULL at the end or on an error (the disk), which
 * tct_sched_log_error tells (an errno value, 0 when none). */
int tct_sched_log_start(struct tct_sched_log *log);
const struct tct_sched_event *tct_sched_log_next(struct tct_sched_log *log);
int tct_sched_log_error(const struct tct_sched_log *log);
/* Switches kept. */
uint64_t tct_sched_log_switches(const struct tct_sched_log *log);

#endif
