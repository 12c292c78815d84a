/* Sampling costs a program nobody profiles (no server, no in-process capture) only what it
 * keeps for a later server: the sampler waits without a timeout (it woke every 250 ms in an
 * idle program). Counted with the sampler's test counters, never timed: each wait is
 * bounded by a deadline only. */
#include "client/sampling.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <stdlib.h>
#include <unistd.h>

#define DEADLINE_NS (60 * 1000000000LL)

/* The program idles: the sampler comes to a wait without a timeout. */
static void check_idle(void)
{
    int64_t deadline = tcu_monotonic_ns() + DEADLINE_NS;
    while (tc_sampling_untimed_waits() == 0 && tcu_monotonic_ns() < deadline)
        usleep(20 * 1000);
    tt_check(tc_sampling_untimed_waits() > 0, "idle with no consumer: the sampler waits without a timeout");
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("# perf_event_open refused to this user here: nothing to check\n");
        return 77;
    }
    tt_use_free_port(); /* nobody connects */
    ___tracy_startup_profiler();
    check_idle();
    ___tracy_shutdown_profiler();
    return tt_finish("test_sampling_no_consumer");
}
