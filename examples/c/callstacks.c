/* callstacks.c - callstacks, CPU samples and context switches.
 *
 * Zones, a message and allocations ask for their callstack (the S forms); a CPU-bound
 * loop keeps the sampler busy (count_primes is where the time goes); a second thread
 * sleeps and wakes, so its context switches show when it was off the CPU. Run it with a
 * server (TRACY_NO_EXIT=1 keeps the data until one connects) or with the in-process
 * capture: TRACYC_OUTPUT=summary.txt ./example_callstacks
 */
#define _POSIX_C_SOURCE 200809L
#include <tracy/TracyC.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define DEPTH 16

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The hot spot: trial division, on purpose. */
__attribute__((noinline)) static int count_primes(int limit)
{
    int count = 0;
    for (int n = 2; n < limit; n++) {
        int prime = 1;
        for (int d = 2; d * d <= n; d++)
            if (n % d == 0) {
                prime = 0;
                break;
            }
        count += prime;
    }
    return count;
}

__attribute__((noinline)) static uint64_t checksum(const uint8_t *data, size_t len)
{
    TracyCZoneS(zone, DEPTH, 1);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ data[i]) * 1099511628211ull;
    TracyCZoneEnd(zone);
    return h;
}

__attribute__((noinline)) static int work_step(int step)
{
    TracyCZoneNS(zone, "work step", DEPTH, 1);
    size_t len = 64 * 1024;
    uint8_t *buffer = malloc(len);
    TracyCAllocS(buffer, len, DEPTH);
    for (size_t i = 0; i < len; i++)
        buffer[i] = (uint8_t)(i * 31 + step);
    int primes = count_primes(20000 + step % 7);
    primes += (int)(checksum(buffer, len) & 1);
    TracyCFreeS(buffer, DEPTH);
    free(buffer);
    TracyCZoneEnd(zone);
    return primes;
}

static void *sleeper(void *arg)
{
    (void)arg;
    TracyCSetThreadName("sleeper");
    for (int i = 0; i < 50; i++) {
        TracyCZoneN(zone, "nap", 1);
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
        TracyCZoneEnd(zone);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double run_for = argc > 1 ? atof(argv[1]) : 1.0;
    pthread_t t;
    pthread_create(&t, NULL, sleeper, NULL);
    TracyCMessageLS("callstacks example started", DEPTH);
    double end = seconds_now() + run_for;
    int total = 0;
    for (int step = 0; seconds_now() < end; step++) {
        total += work_step(step);
        TracyCFrameMark;
    }
    pthread_join(t, NULL);
    return total == 0;
}
