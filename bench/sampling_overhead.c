/* sampling_overhead.c - what CPU sampling costs a CPU-bound program: the same work with
 * sampling on and off, alternating, in one run, with a server connected and draining.
 *
 * Two figures per mode: the working thread's CPU time (the program slowed down by the
 * kernel's sampling interrupts and stack copies) and the whole process's CPU time over
 * the same interval (that plus tracyc's own threads: the sampler unwinding each sample's
 * stack, the worker encoding it). The rate is TRACY_SAMPLING_HZ (default: tracyc's).
 * Uses upstream's C API only, so it also runs against upstream's client.
 */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include "bench_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 11

static double cpu_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The CPU-bound program: trial division, in functions a few calls deep. */
static __attribute__((noinline)) int is_prime(int n)
{
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static __attribute__((noinline)) int count_primes(int from, int to)
{
    int count = 0;
    for (int n = from; n < to; n++)
        count += is_prime(n);
    return count;
}

static volatile int base = 1000000; /* so the compiler cannot reuse an earlier result */

static __attribute__((noinline)) int work(int units)
{
    int total = 0;
    for (int u = 0; u < units; u++)
        total += count_primes(base, base + 2000);
    return total;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int units = argc > 1 ? atoi(argv[1]) : 1000; /* ~0.3 s a round here */
    if (bench_wait_for_server("sampling_overhead") != 0)
        return 2;
    const char *hz = getenv("TRACY_SAMPLING_HZ");
    volatile int sink = work(units / 4); /* warm up */
    double thread_t[2][ROUNDS], process_t[2][ROUNDS];
    struct timespec settle = {0, 30 * 1000 * 1000};
    for (int round = 0; round < ROUNDS; round++) {
        for (int on = 0; on < 2; on++) {
            if (on)
                ___tracy_begin_sampling_profiling();
            else
                ___tracy_end_sampling_profiling();
            nanosleep(&settle, NULL); /* the worker applies the change */
            double t0 = cpu_s(CLOCK_THREAD_CPUTIME_ID), p0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
            sink += work(units);
            thread_t[on][round] = cpu_s(CLOCK_THREAD_CPUTIME_ID) - t0;
            process_t[on][round] = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - p0;
        }
    }
    double t_off = median(thread_t[0], ROUNDS), t_on = median(thread_t[1], ROUNDS);
    double p_off = median(process_t[0], ROUNDS), p_on = median(process_t[1], ROUNDS);
    printf("sampling at %s Hz, CPU-bound work (median of %d rounds each way, alternating):\n", hz ? hz : "default",
           ROUNDS);
    printf("  working thread CPU: off %7.1f ms, on %7.1f ms  -> %+5.2f %%\n", t_off * 1e3, t_on * 1e3,
           (t_on / t_off - 1) * 100);
    printf("  whole process CPU:  off %7.1f ms, on %7.1f ms  -> %+5.2f %%  (target <= 3 %%)\n", p_off * 1e3, p_on * 1e3,
           (p_on / p_off - 1) * 100);
    ___tracy_shutdown_profiler();
    return sink == 42;
}
