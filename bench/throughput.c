/* throughput.c - sustained zone pairs per second into a connected capture, from two
 * threads, including the time the client needs to hand everything to the server at
 * shutdown. Same source for tracyc and upstream Tracy (bench/run.sh). */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include "bench_server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 2
static long pairs = 10000000;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *producer(void *arg)
{
    (void)arg;
    for (long i = 0; i < pairs; i++) {
        TracyCZoneN(zone, "throughput zone", 1);
        TracyCZoneEnd(zone);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "tracyc";
    if (argc > 2)
        pairs = atol(argv[2]);
    if (bench_wait_for_server("throughput") != 0)
        return 2;
    double start = now_s();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, producer, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    double produced = now_s() - start;
    ___tracy_shutdown_profiler(); /* returns once the server has everything */
    double total = now_s() - start;
    printf("%-10s %ld zone pairs from %d threads: produced in %.2f s, delivered in %.2f s = %.2f M pairs/s", label,
           pairs * THREADS, THREADS, produced, total, pairs * THREADS / total / 1e6);
#ifdef TRACYC_VERSION_MAJOR
    printf(", dropped %llu", (unsigned long long)tracyc_dropped_events());
#endif
    printf("\n");
    return 0;
}
