/* zone_at.c - zones with timestamps taken earlier, which --min-duration needs: a zone
 * is only emitted once it has proven long enough, with the begin time it had. */
#include "tracer.h"

#include <time.h>

TracyCZoneCtx tp_zone_begin_at(const tp_srcloc *loc, int64_t time)
{
    return tracyc_zone_begin_at(loc, time);
}

void tp_zone_end_at(TracyCZoneCtx ctx, int64_t time)
{
    tracyc_zone_end_at(ctx, time);
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double tp_ticks_per_ns(void)
{
    static double ratio;
    if (ratio == 0) {
        int64_t t0 = ___tracy_get_time(), n0 = monotonic_ns();
        struct timespec wait = {0, 20 * 1000 * 1000};
        nanosleep(&wait, NULL);
        int64_t t1 = ___tracy_get_time(), n1 = monotonic_ns();
        ratio = n1 > n0 && t1 > t0 ? (double)(t1 - t0) / (double)(n1 - n0) : 1.0;
    }
    return ratio;
}
