/* A thread whose events own the rings may exit while the program goes on: here the main
 * thread (the first thread sampling finds, so the owner of every ring), with pthread_exit.
 * The kernel then answers POLLHUP for its events at once, forever (their thread is gone and
 * no thread it started lives), whatever the rings hold. Polled on, they woke the sampler at
 * once every time: it burned a CPU. It must poll them no more, and the rings must still wake
 * it, through the events of the thread left. Nobody connects: the sampler waits without a
 * timeout, for the rings' watermark. Counted with the sampler's test counters, never timed:
 * each wait is bounded by a deadline only. */
#include "client/sampling.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <pthread.h>
#include <stdlib.h>

#define DEADLINE_NS (60 * 1000000000LL)

/* Burns CPU, so that samples fill the rings and wake the sampler, until the counter reaches
 * `at_least` (or the deadline). */
static void burn_until(uint64_t (*counter)(void), uint64_t at_least)
{
    int64_t deadline = tcu_monotonic_ns() + DEADLINE_NS;
    while (counter() < at_least && tcu_monotonic_ns() < deadline)
        tt_burn_cpu_ns(10 * 1000000LL);
}

static uint64_t hangups(void)
{
    return tc_sampling_counts().hangups;
}

static uint64_t passes(void)
{
    return tc_sampling_counts().passes;
}

static void *survivor_main(void *arg)
{
    (void)arg;
    /* After the main thread's exit (not pthread_join of it: ThreadSanitizer cannot). */
    burn_until(hangups, 1);
    tt_check(hangups() > 0, "the main thread's events hung up");
    /* Each pass polls the events again: one still polled once hung up shows at the next. */
    uint64_t enough = passes() + 3;
    burn_until(passes, enough);
    tt_check(passes() >= enough, "the rings still wake the sampler");
    uint64_t again = tc_sampling_counts().hangups_again;
    tt_check(again == 0, "%llu polls woke for events already seen hung up", (unsigned long long)again);
    ___tracy_shutdown_profiler();
    exit(tt_finish("test_sampling_hangup"));
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("# perf_event_open refused to this user here: nothing to check\n");
        return 77;
    }
    tt_use_free_port(); /* nobody connects */
    /* Before the profiler: events of its own, not inherited from the main thread's (whose
     * events would not hang up while it lives). */
    pthread_t survivor;
    if (pthread_create(&survivor, NULL, survivor_main, NULL) != 0) {
        printf("FAIL no thread\n");
        return 1;
    }
    ___tracy_startup_profiler();
    pthread_exit(NULL);
}
