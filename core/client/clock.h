/* clock.h - the profiler's timestamps.
 *
 * Invariant TSC (rdtsc) where the CPU has one, calibrated against CLOCK_MONOTONIC_RAW;
 * CLOCK_MONOTONIC_RAW nanoseconds elsewhere. tc_clock_now() is inline because it sits
 * on every hot path; neither branch makes a system call (clock_gettime uses the vDSO).
 */
#ifndef TRACYC_CLIENT_CLOCK_H
#define TRACYC_CLIENT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

extern int tc_clock_uses_tsc;

/* CLOCK_MONOTONIC_RAW nanoseconds: the timestamps where there is no TSC, and the clock the
 * TSC is calibrated against (util/monotonic.h has CLOCK_MONOTONIC). */
static inline int64_t tc_clock_monotonic_raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Only after tc_clock_init (the profiler's start) has run: before it, this reads
 * nanoseconds where the profiler will count TSC ticks. Entry points therefore reserve
 * their record (which starts the profiler) before they read the time. */
static inline int64_t tc_clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(tc_clock_uses_tsc, 1))
        return (int64_t)__rdtsc();
#endif
    return tc_clock_monotonic_raw_ns();
}

/* Choose the clock source. Called once, before the first timestamp. */
void tc_clock_init(void);
/* When the TSC's calibration began (CLOCK_MONOTONIC_RAW ns): on x86 when the library was
 * loaded (clock.c), elsewhere at the profiler's start; 0 before then. */
int64_t tc_clock_calibration_began(void);

/* Nanoseconds per tick, measured against CLOCK_MONOTONIC_RAW over at least min_ns of
 * wall time since tc_clock_init (waits for the remainder), or over the time until
 * tc_clock_calibrate_now. 1.0 without TSC. */
double tc_clock_calibrate(int64_t min_ns);
/* The profiler is shutting down: a calibration waiting, or asked for later, takes the time
 * elapsed since tc_clock_init, which holds every event the program recorded. A program
 * that ends within min_ns of its start (a 10 ms one) is then not kept alive until min_ns
 * by its capture's handshake or its sampler's start. */
void tc_clock_calibrate_now(void);

/* Smallest positive difference between consecutive reads, in ticks. */
uint64_t tc_clock_resolution(void);

#endif
