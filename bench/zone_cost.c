/* zone_cost.c - nanoseconds per zone begin+end pair with a server connected and
 * draining, on 1 and 2 threads, against an empty loop measured in the same run.
 *
 * Uses only the upstream C API, so the same source builds against tracyc and against
 * upstream Tracy's libTracyClient (bench/run.sh does both when given upstream's
 * library). Wait for the server with TRACY_NO_EXIT semantics: it runs until a capture
 * has connected, then measures. Each thread's own CPU time is measured (not wall time),
 * so other processes on a busy machine do not inflate the figures.
 *
 *   zone_cost [LABEL [PAIRS]]          the recording thread's cost, as above
 *   zone_cost LABEL PAIRS whole        an event's whole cost (bench/event_cost.sh)
 *
 * "whole": the process's CPU time (clock(), every thread: the recording one, the worker
 * converting, compressing and sending, any other of the profiler's) from just before a
 * loop of PAIRS zone pairs on one thread to the moment the process has gone quiet after
 * it, i.e. the worker has sent everything (bench_whole.h), divided by PAIRS. Not to the
 * end of the shutdown: upstream's worker spins at exit until the server answers its
 * Terminate, which would count the capture's speed. One figure per process: a script
 * runs it in rounds.
 */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include "bench_server.h"
#include "bench_whole.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long pairs = 5000000;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct run {
    void (*body)(void);
    double seconds;
};

static void *timed(void *arg)
{
    struct run *r = arg;
    double start = thread_cpu_s();
    r->body();
    r->seconds = thread_cpu_s() - start;
    return NULL;
}

/* The baseline: the loop and a call the compiler cannot remove. */
__attribute__((noinline)) static void empty_pair(long i)
{
    __asm__ volatile("" ::"r"(i) : "memory");
}

static void baseline_loop(void)
{
    for (long i = 0; i < pairs; i++)
        empty_pair(i);
}

static void zone_loop(void)
{
    for (long i = 0; i < pairs; i++) {
        TracyCZoneN(zone, "bench zone", 1);
        __asm__ volatile("" ::"r"(i) : "memory");
        TracyCZoneEnd(zone);
    }
}

/* CPU ns per iteration of body, averaged over n threads running at once. */
static double measure(void (*body)(void), int threads)
{
    pthread_t t[2];
    struct run runs[2] = {{body, 0}, {body, 0}};
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, timed, &runs[i]);
    double total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += runs[i].seconds;
    }
    return total / threads * 1e9 / (double)pairs;
}

/* Process CPU ns per pair, the loop to everything sent; and the recording thread's. */
static int measure_whole(const char *label)
{
    for (int i = 0; i < 1000; i++) { /* warm up: buffers, source location query */
        TracyCZoneN(zone, "bench zone", 1);
        TracyCZoneEnd(zone);
    }
    bench_whole_quiet(); /* the warm-up's events out of the way */
    clock_t start = clock();
    struct run r = {zone_loop, 0};
    timed(&r);
    double process = (double)(bench_whole_quiet() - start) / CLOCKS_PER_SEC;
    printf("%-10s whole cost of a zone pair: process %6.1f ns, recording thread %6.1f ns (%ld pairs)\n", label,
           process * 1e9 / (double)pairs, r.seconds * 1e9 / (double)pairs, pairs);
    ___tracy_shutdown_profiler();
    return 0;
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "tracyc";
    if (argc > 2)
        pairs = atol(argv[2]);
    if (bench_wait_for_server("zone_cost") != 0)
        return 2;
    if (argc > 3 && strcmp(argv[3], "whole") == 0)
        return measure_whole(label);
    zone_loop(); /* warm up: buffers, source location query */
    double base = measure(baseline_loop, 1);
    double zone1 = measure(zone_loop, 1), zone2 = measure(zone_loop, 2);
    printf("%-10s empty loop %5.1f ns | zone begin+end pair: 1 thread %6.1f ns (%.1f ns over the loop), "
           "2 threads %6.1f ns\n",
           label, base, zone1, zone1 - base, zone2);
    ___tracy_shutdown_profiler();
    return 0;
}
