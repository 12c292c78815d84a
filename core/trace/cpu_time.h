/* cpu_time.h - how long each thread of the trace ran, from the context switches of the
 * system (sched_log.h gives them in time order).
 *
 * A thread is on-CPU from a switch that puts it on a CPU until the switch that takes it
 * off that CPU, and off-CPU from then until it runs again. Before its first switch nothing
 * is known; after its last one, its state lasts until the end of the trace. Clocks of two
 * CPUs are not exactly in step, so a thread that moves to another CPU may be switched in
 * there just before it is switched out of the old one: the new run starts (counted in
 * `overlaps`) and the late switch-out is ignored. */
#ifndef TRACYC_TRACE_CPU_TIME_H
#define TRACYC_TRACE_CPU_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "trace/sched_log.h"
#include "trace/trace.h"

struct tct_cpu_time {
    const struct tct_thread *thread;
    int64_t on_cpu, off_cpu;
    uint64_t switched_in; /* times it was put on a CPU */
    uint64_t overlaps;
};

/* The CPU time of every thread of the trace that a context switch names, in the trace's
 * thread order: a malloc'd array (the caller frees it) and its length in *n; NULL with
 * *n = 0 when there is none, NULL with *n = 1 when memory ran out or the log could not be
 * read. end is the trace's end. */
struct tct_cpu_time *tct_cpu_times(const struct tct_trace *tr, struct tct_sched_log *log, int64_t end, size_t *n);

#endif
