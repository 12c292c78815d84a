/* zone_cost.c - nanoseconds per zone begin+end pair with a server connected and
 * draining, on 1 and 2 threads, against an empty loop measured in the same run.
 *
 * Uses only the upstream C API, so the same source builds against tracyc and against
 * upstream Tracy's libTracyClient (bench/run.sh does both when given upstream's
 * library). Wait for the server with TRACY_NO_EXIT semantics: it runs until a capture
 * has connected, then measures.
 */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long pairs = 5000000;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The baseline: the loop and a call the compiler cannot remove. */
__attribute__((noinline)) static void empty_pair(long i)
{
    __asm__ volatile("" ::"r"(i) : "memory");
}

static void *baseline_loop(void *arg)
{
    (void)arg;
    for (long i = 0; i < pairs; i++)
        empty_pair(i);
    return NULL;
}

static void *zone_loop(void *arg)
{
    (void)arg;
    for (long i = 0; i < pairs; i++) {
        TracyCZoneN(zone, "bench zone", 1);
        __asm__ volatile("" ::"r"(i) : "memory");
        TracyCZoneEnd(zone);
    }
    return NULL;
}

/* ns per iteration of fn on n threads running at once. */
static double measure(void *(*fn)(void *), int threads)
{
    pthread_t t[2];
    double start = now_s();
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, fn, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return (now_s() - start) * 1e9 / (double)pairs;
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "tracyc";
    if (argc > 2)
        pairs = atol(argv[2]);
    ___tracy_startup_profiler();
    for (int i = 0; i < 30000 && !___tracy_connected(); i++)
        usleep(1000);
    if (!___tracy_connected()) {
        fprintf(stderr, "zone_cost: no server connected\n");
        return 2;
    }
    zone_loop(NULL); /* warm up: buffers, source location query */
    double base1 = measure(baseline_loop, 1), base2 = measure(baseline_loop, 2);
    double zone1 = measure(zone_loop, 1), zone2 = measure(zone_loop, 2);
    printf("%-10s empty loop %6.1f ns | zone pair, 1 thread %6.1f ns (%.1f ns over the loop) | "
           "2 threads %6.1f ns per pair per thread\n",
           label, base1, zone1, zone1 - base1, zone2);
    (void)base2;
    ___tracy_shutdown_profiler();
    return 0;
}
