/* test_clock_calibration.c - the TSC's calibration starts when the library is loaded, not
 * when the profiler starts (which is often late in a short run: python -m tracer after its
 * imports): the profiler's start keeps that beginning, so its first connection has the time
 * since to calibrate on instead of waiting for it, and the multiplier it gets is right. */
#include "client/clock.h"
#include "test_util.h"
#include "tracyc.h"
#include <tracy/TracyC.h>

#include <math.h>
#include <unistd.h>

int main(void)
{
#if defined(__x86_64__) || defined(__i386__)
    int64_t at_main = tc_clock_monotonic_raw_ns();
    int64_t began = tc_clock_calibration_began();
    tt_check(began > 0 && began <= at_main, "the calibration began before main (%lld <= %lld)", (long long)began,
             (long long)at_main);
    tt_use_free_port();
    usleep(30 * 1000);
    ___tracy_startup_profiler();
    tt_check(tc_clock_calibration_began() == began, "the profiler's start keeps that beginning");
    if (tc_clock_uses_tsc) {
        double mul = tc_clock_calibrate(20 * 1000000);
        int64_t n0 = tc_clock_monotonic_raw_ns(), t0 = tc_clock_now();
        usleep(50 * 1000);
        int64_t n1 = tc_clock_monotonic_raw_ns(), t1 = tc_clock_now();
        double check = (double)(n1 - n0) / (double)(t1 - t0);
        tt_check(fabs(mul / check - 1.0) < 0.01, "ns per tick %.6f, measured again %.6f", mul, check);
    }
    ___tracy_shutdown_profiler();
#endif
    return tt_finish("test_clock_calibration");
}
