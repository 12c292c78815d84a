/* callstack_cost.c - a zone with a 16-deep callstack (TracyCZoneS), with a server
 * connected and draining, against a plain zone measured in the same run.
 *
 * Uses only upstream's C API, so the same source builds against tracyc and against
 * upstream Tracy's libTracyClient (bench/run.sh does both when given upstream's library).
 * The zones are taken 16 calls deep into a chain of functions, so a 16-frame callstack
 * really has 16 frames to walk; the program is built without frame pointers, as most
 * code is. Times are the thread's CPU time per begin+end pair.
 */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include "bench_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEPTH 16

static long pairs = 200000;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static __attribute__((noinline)) void plain_zones(void)
{
    for (long i = 0; i < pairs; i++) {
        TracyCZoneN(zone, "plain zone", 1);
        __asm__ volatile("" ::"r"(i) : "memory");
        TracyCZoneEnd(zone);
    }
}

static __attribute__((noinline)) void callstack_zones(void)
{
    for (long i = 0; i < pairs; i++) {
        TracyCZoneNS(zone, "callstack zone", DEPTH, 1);
        __asm__ volatile("" ::"r"(i) : "memory");
        TracyCZoneEnd(zone);
    }
}

/* Calls body `levels` calls deeper than here; each level a real frame. */
static __attribute__((noinline)) int descend(int levels, void (*body)(void))
{
    if (levels == 0) {
        body();
        return 0;
    }
    int r = descend(levels - 1, body);
    __asm__ volatile("" : "+r"(r));
    return r + 1;
}

/* CPU ns per pair of body, run at the bottom of a DEPTH-deep chain. */
static double measure(void (*body)(void))
{
    double start = thread_cpu_s();
    descend(DEPTH, body);
    return (thread_cpu_s() - start) * 1e9 / (double)pairs;
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "tracyc";
    if (argc > 2)
        pairs = atol(argv[2]);
    if (bench_wait_for_server("callstack_cost") != 0)
        return 2;
    descend(DEPTH, callstack_zones); /* warm up: unwinder caches, symbol queries */
    double best_plain = 1e30, best_cs = 1e30;
    for (int round = 0; round < 3; round++) {
        double p = measure(plain_zones), c = measure(callstack_zones);
        best_plain = p < best_plain ? p : best_plain;
        best_cs = c < best_cs ? c : best_cs;
    }
    printf("%-10s zone begin+end: plain %7.1f ns | with a %d-deep callstack %7.1f ns (%.1f ns a frame over plain)\n",
           label, best_plain, DEPTH, best_cs, (best_cs - best_plain) / DEPTH);
    ___tracy_shutdown_profiler();
    return 0;
}
