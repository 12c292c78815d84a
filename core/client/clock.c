/* clock.c - clock source selection and TSC calibration. */
#include "client/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int tc_clock_uses_tsc;

static int64_t calib_tsc0, calib_ns0;
static int calib_started;
static _Atomic double calib_mul; /* 0 until calibrated */
static _Atomic int calib_hurry;  /* the profiler is shutting down: no waiting */

static int cpu_has_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

void tc_clock_init(void)
{
    const char *force = getenv("TRACY_NO_INVARIANT_CHECK");
    const char *fallback = getenv("TRACYC_TIMER_FALLBACK");
    int want_tsc = cpu_has_invariant_tsc() || (force && force[0] == '1');
    tc_clock_uses_tsc = want_tsc && !(fallback && fallback[0] == '1');
    if (!calib_started || !tc_clock_uses_tsc) {
        calib_ns0 = tc_clock_monotonic_raw_ns();
        calib_tsc0 = tc_clock_now();
        calib_started = 1;
    }
}

/* Calibrated once: the worker (a server's welcome) and the sampler ask, maybe at once, and
 * must get the same ratio. */
static pthread_mutex_t calib_lock = PTHREAD_MUTEX_INITIALIZER;

/* A forked child calibrates on (a thread of its parent may have held the lock). */
static void calibration_forget_lock(void)
{
    pthread_mutex_init(&calib_lock, NULL);
}

/* The TSC's calibration starts when the library is loaded, not when the profiler starts: the
 * first connection waits until 20 ms of it have passed (tc_clock_calibrate), which a program
 * that starts the profiler late in a short run (python -m tracer after its imports and
 * command line, a C program at its first event) would spend waiting at exit. The profiler's
 * start keeps this beginning if it chooses the TSC (tc_clock_init). */
__attribute__((constructor)) static void calibration_start(void)
{
    pthread_atfork(NULL, NULL, calibration_forget_lock);
#if defined(__x86_64__) || defined(__i386__)
    calib_ns0 = tc_clock_monotonic_raw_ns();
    calib_tsc0 = (int64_t)__rdtsc();
    calib_started = 1;
#endif
}

int64_t tc_clock_calibration_began(void)
{
    return calib_started ? calib_ns0 : 0;
}

void tc_clock_calibrate_now(void)
{
    atomic_store(&calib_hurry, 1);
}

/* In a hurry, at least this long: a ratio over a few microseconds would be off. */
#define CALIB_HURRIED_MIN_NS 1000000

double tc_clock_calibrate(int64_t min_ns)
{
    if (!tc_clock_uses_tsc)
        return 1.0;
    double known = atomic_load(&calib_mul);
    if (known > 0)
        return known;
    pthread_mutex_lock(&calib_lock);
    if ((known = atomic_load(&calib_mul)) > 0) {
        pthread_mutex_unlock(&calib_lock);
        return known;
    }
    int64_t ns1, tsc1;
    for (;;) {
        ns1 = tc_clock_monotonic_raw_ns();
        tsc1 = tc_clock_now();
        int64_t left = min_ns - (ns1 - calib_ns0);
        if (left <= 0 || (atomic_load(&calib_hurry) && ns1 - calib_ns0 >= CALIB_HURRIED_MIN_NS && tsc1 > calib_tsc0))
            break;
        /* In steps of 1 ms at most (only in the program's first min_ns), to see a shutdown. */
        if (left > 1000000)
            left = 1000000;
        struct timespec ts = {0, left};
        nanosleep(&ts, NULL);
    }
    known = (double)(ns1 - calib_ns0) / (double)(tsc1 - calib_tsc0);
    atomic_store(&calib_mul, known);
    pthread_mutex_unlock(&calib_lock);
    return known;
}

uint64_t tc_clock_resolution(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        int64_t a = tc_clock_now(), b = tc_clock_now();
        while (b == a)
            b = tc_clock_now();
        if ((uint64_t)(b - a) < best)
            best = (uint64_t)(b - a);
    }
    return best ? best : 1;
}
