/* upstream_callstacks.c - a CPU-bound program instrumented with upstream Tracy 0.14.0's C
 * API (TracyC.h), built against upstream's client library outside this repository by
 * upstream_callstacks.sh: zones, a message and allocations with callstacks, and a hot
 * function for the sampler to find. It also made the recorded stream that
 * test_upstream_stream replays (tests/c/fixtures/streams/upstream_callstacks.stream).
 *
 *   upstream_callstacks [MILLISECONDS]   (default 1000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tracy/TracyC.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The hot spot: most samples land here. */
__attribute__((noinline)) static uint64_t hot_loop(uint64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ i) * 1099511628211ull;
    return h;
}

__attribute__((noinline)) static uint64_t inner_work(uint64_t n)
{
    TracyCZoneNS(zone, "inner_work", 8, 1);
    uint64_t h = hot_loop(n);
    TracyCZoneEnd(zone);
    return h;
}

__attribute__((noinline)) static uint64_t outer_work(uint64_t n)
{
    TracyCZoneNS(zone, "outer_work", 8, 1);
    uint64_t h = inner_work(n) ^ inner_work(n / 2);
    TracyCZoneEnd(zone);
    return h;
}

int main(int argc, char **argv)
{
    double run_ms = argc > 1 ? atof(argv[1]) : 1000;
    while (!TracyCIsConnected)
        usleep(1000);
    double end = now_ms() + run_ms;
    uint64_t sum = 0;
    int rounds = 0;
    do {
        sum += outer_work(200000);
        if (rounds++ % 16 == 0) {
            void *p = malloc(64);
            TracyCAllocS(p, 64, 8);
            TracyCFreeS(p, 8);
            free(p);
            TracyCMessageS("checkpoint", 10, 8);
        }
    } while (now_ms() < end);
    printf("%d rounds, %llx\n", rounds, (unsigned long long)sum);
    return 0;
}
