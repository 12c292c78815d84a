/* bench_whole.h - for an event's whole cost: the process CPU time (clock(): every thread)
 * at which the process went quiet after recording, that is, its profiler's worker has
 * converted, compressed and sent everything. Quiet: QUIET_WINDOWS windows of 10 ms in a
 * row in which the process used under 2 % of a CPU; the time returned is the reading at
 * the start of the first of them, so the quiet itself is not counted. A worker blocked on
 * a full socket uses no CPU either, but a capture draining on loopback does not keep it
 * blocked for 30 ms. C and C++, for both clients (only libc). */
#ifndef TRACYC_BENCH_WHOLE_H
#define TRACYC_BENCH_WHOLE_H

#include <time.h>
#include <unistd.h>

#define BENCH_QUIET_WINDOWS 3

static inline clock_t bench_whole_quiet(void)
{
    clock_t quiet_from = clock(), last = quiet_from;
    for (int quiet = 0; quiet < BENCH_QUIET_WINDOWS;) {
        usleep(10000);
        clock_t now = clock();
        if ((double)(now - last) < 0.0002 * CLOCKS_PER_SEC) {
            quiet++;
        } else {
            quiet = 0;
            quiet_from = now;
        }
        last = now;
    }
    return quiet_from;
}

#endif
