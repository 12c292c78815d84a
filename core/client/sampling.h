/* sampling.h - CPU samples and context switches of every thread of the process, from the
 * kernel's perf events, from the profiler's start to its shutdown. Like the program's other
 * events, those from before a server connects (or between two servers) are kept for the
 * next one, within the buffer limit.
 *
 * One software cpu-clock event per existing thread and CPU, inherited by every thread
 * created later (and by no child process), all of one CPU writing into one ring buffer;
 * the same events carry perf's context-switch records. A sampler thread reads the rings,
 * unwinds each sample's copied user stack (native/sample_unwind.c; without libdw, takes the
 * kernel's frame-pointer callchain instead: native/sample_callchain.c), merges the CPUs' records in
 * time order and writes them as records into its own stream, which the worker drains like
 * the serial stream. The thread that starts the profiler starts it (tc_worker_start); the
 * worker applies pauses (tc_sampling_update).
 */
#ifndef TRACYC_CLIENT_SAMPLING_H
#define TRACYC_CLIENT_SAMPLING_H

#include "client/stream.h"

#include <stddef.h>
#include <stdint.h>

/* Samples per second of a running thread unless TRACY_SAMPLING_HZ says otherwise. Chosen
 * by bench/sampling_overhead.c on a CPU-bound program (2-vCPU KVM guest, shared): 500 Hz
 * costs it ~2 % of its CPU time (1.5-3.5 % over runs), 1 kHz 3-6 %, 4 kHz ~12 % (the
 * kernel's timer interrupts and stack copies in its threads, the sampler's unwinding,
 * ~10 us a sample here). */
#define TC_DEFAULT_SAMPLING_HZ 500
/* What a sample costs the thread it interrupts: the kernel's timer interrupt and the copy of
 * its stack, ~16-20 us here (bench/sampling_overhead.c at 10 and 30 kHz: the working
 * thread's CPU time +26 % and +92 %). The kernel lets perf take perf_cpu_time_max_percent of
 * a thread's time (25 % by default), which it enforces by measuring only the hardware
 * counters' interrupts: for this software event tracyc applies the rule itself
 * (tc_config_sampling_ceiling). At 100 kHz the thread spent 23 times its CPU time in
 * samples, and the sampler lost 14 % of them. */
#define TC_SAMPLE_COST_NS 20000

/* Worker (and tc_worker_start): makes sampling run unless the program has turned it off
 * (___tracy_end_sampling_profiling), the kernel refused it, or the profiler has shut down.
 * Opens or closes the kernel's events. */
void tc_sampling_update(void);
/* A new server: a start the kernel refused is tried again (tc_sampling_update), and why
 * sampling is unavailable or limited, if it is, said on stderr (once). */
void tc_sampling_retry(void);
/* Nanoseconds between samples while sampling runs (the welcome's samplingPeriod), else 0. */
int64_t tc_sampling_period_ns(void);
/* Why the kernel's data is missing ("sampling unavailable: ..."), or NULL. */
const char *tc_sampling_unavailable(void);
/* Records (samples, context switches) the kernel dropped because a ring was full. */
uint64_t tc_sampling_lost(void);
/* Records dropped because the buffer limit was reached (TRACYC_BUFFER_LIMIT). */
uint64_t tc_sampling_dropped_at_limit(void);
/* Worker: whether a server or the in-process capture is connected. With none, the sampler
 * waits without a timeout and does not unwind samples that the full buffer cannot keep; a
 * connection wakes it to pass what the rings hold on. */
void tc_sampling_consumer(int connected);
/* The sampler's records, for the worker to drain (NULL before the first start). */
struct tc_stream *tc_sampling_stream(void);
/* In a forked child: no sampler thread; close the parent's events. */
void tc_sampling_forget_after_fork(void);
/* At shutdown, first: nothing is recorded after the call. */
void tc_sampling_end(void);
/* At shutdown, once it is known whether anything will take the last records (a connected
 * consumer, or TRACY_NO_EXIT waiting for a server): stop for good. With nothing to take
 * them, the records left are neither unwound nor kept, nor is the unwinder built. */
void tc_sampling_shutdown(int consumer);

/* The bytes written into a ring that wake the sampler (a quarter of a full ring): a ring no
 * larger, made small by a locked-memory limit, never signals and is read on a timer. */
#define TC_SAMPLING_WATERMARK_BYTES (256 * 1024)

/* For tests: what the sampler did since the process started. */
struct tc_sampling_counts {
    uint64_t untimed_waits;   /* waits without a timeout */
    uint64_t passes;          /* waits, each followed by a pass over the rings */
    uint64_t hangups;         /* hang-ups polls returned for the rings' events (an event's
                               * thread exited, with no thread it started alive) */
    uint64_t hangups_again;   /* of an event already seen hung up (it woke the sampler at once) */
    uint64_t unwound;         /* samples unwound (or callchain walked) before the stop */
    uint64_t unwound_at_stop; /* and after it */
    size_t smallest_ring;     /* the smallest ring's data bytes (a locked-memory limit shrinks
                               * them); 0 when sampling is not running */
};
struct tc_sampling_counts tc_sampling_counts(void);

/* ___tracy_begin/end_sampling_profiling (thread-safe). */
int tc_sampling_resume(void);
void tc_sampling_pause(void);

#endif
