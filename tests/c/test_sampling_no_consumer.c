/* Sampling costs a program nobody profiles (no server, no in-process capture) only what it
 * keeps for a later server. The sampler waits without a timeout (it woke every 250 ms in an
 * idle program); once the buffer limit is reached, it does not unwind the samples it cannot
 * keep (it unwound them, then dropped them); and a shutdown with nobody to take the last
 * samples leaves them unread (the sampler unwound what its rings held). Counted with the
 * sampler's test counters, never timed: each wait is bounded by a deadline only. */
#include "client/sampling.h"
#include "client/stream.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEADLINE_NS (60 * 1000000000LL)

static const struct ___tracy_source_location_data loc = {"fill", "main", "test_sampling_no_consumer.c", 1, 0};

/* The program idles: the sampler comes to a wait without a timeout, unless a ring is too
 * small to signal (a locked-memory limit): then it passes on a timer. */
static void check_idle(void)
{
    size_t smallest = tc_sampling_counts().smallest_ring;
    if (smallest <= TC_SAMPLING_WATERMARK_BYTES) {
        printf("# a ring of %zu bytes (a locked-memory limit) is read on a timer: no untimed wait to check\n",
               smallest);
        return;
    }
    int64_t deadline = tcu_monotonic_ns() + DEADLINE_NS;
    while (tc_sampling_counts().untimed_waits == 0 && tcu_monotonic_ns() < deadline)
        usleep(20 * 1000);
    tt_check(tc_sampling_counts().untimed_waits > 0, "idle with no consumer: the sampler waits without a timeout");
}

/* Burns CPU until `more` records past the limit were dropped since the call (or the deadline). */
static void burn_until_dropped(uint64_t more)
{
    uint64_t from = tc_sampling_dropped_at_limit();
    int64_t deadline = tcu_monotonic_ns() + DEADLINE_NS;
    while (tc_sampling_dropped_at_limit() < from + more && tcu_monotonic_ns() < deadline)
        tt_burn_cpu_ns(10 * 1000000LL);
}

/* Zones fill the buffer; then the samples are dropped without being unwound. */
static void check_full_buffer(void)
{
    for (long i = 0; i < 10 * 1000 * 1000 && !tc_buffer_full(); i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
    tt_check(tc_buffer_full(), "zones filled the buffer");
    /* Once a drop is counted, the sampler has seen the buffer full (it stays full: nothing
     * drains it), so that no sample unwound from now on was read before. */
    burn_until_dropped(1);
    uint64_t unwound = tc_sampling_counts().unwound, dropped = tc_sampling_dropped_at_limit();
    burn_until_dropped(20);
    uint64_t dropped_now = tc_sampling_dropped_at_limit();
    tt_check(dropped_now >= dropped + 20, "%llu more samples dropped at the limit",
             (unsigned long long)(dropped_now - dropped));
    uint64_t unwound_now = tc_sampling_counts().unwound;
    tt_check(unwound_now == unwound, "full buffer, no consumer: %llu samples unwound for nothing",
             (unsigned long long)(unwound_now - unwound));
}

/* In a process of its own: samples in the rings at a shutdown with nobody to take them. */
static int exit_unread(void)
{
    ___tracy_startup_profiler();
    tt_burn_cpu_ns(30 * 1000000LL); /* 15 samples: below the rings' watermark, left in them */
    ___tracy_shutdown_profiler();
    uint64_t at_stop = tc_sampling_counts().unwound_at_stop;
    tt_check(at_stop == 0, "shutdown with no consumer: %llu samples unwound at the stop", (unsigned long long)at_stop);
    return tt_finish("test_sampling_no_consumer exit");
}

static void check_exit(void)
{
    char *argv[] = {"/proc/self/exe", "exit", NULL};
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0 || !tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S))
        status = -1;
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "shutdown with no consumer, in a process of its own");
}

int main(int argc, char **argv)
{
    if (!tt_sampling_expected()) {
        printf("# perf_event_open refused to this user here: nothing to check\n");
        return 77;
    }
    tt_use_free_port(); /* nobody connects */
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        return exit_unread();
    check_exit();
    setenv("TRACYC_BUFFER_LIMIT", "2M", 1);
    ___tracy_startup_profiler();
    check_idle();
    check_full_buffer();
    ___tracy_shutdown_profiler();
    return tt_finish("test_sampling_no_consumer");
}
