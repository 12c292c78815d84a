/* monotonic.h - CLOCK_MONOTONIC in nanoseconds, the clock of the library's timeouts and
 * deadlines (the events' own clock is client/clock.h's). Inline: it is one vDSO read. */
#ifndef TRACYC_UTIL_MONOTONIC_H
#define TRACYC_UTIL_MONOTONIC_H

#include <stdint.h>
#include <time.h>

static inline int64_t tcu_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
