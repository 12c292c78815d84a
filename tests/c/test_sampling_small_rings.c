/* A locked-memory limit makes the sampler's rings small: a ring no larger than the events'
 * wakeup watermark never wakes the sampler (the kernel caps the watermark to the ring's size
 * and fills a ring only to a byte short of it). With nobody connected, the sampler waited
 * without a timeout all the same: the ring overflowed unseen, and the samples a later server
 * would get were lost. It must look at such a ring on a timer, consumer or not, idle or not.
 *
 * The rings are made small as a user would: CAP_IPC_LOCK dropped (root has it, and it lifts
 * the limit) and a low RLIMIT_MEMLOCK. The kernel's perf_mmap charges a ring first to the
 * user's allowance, perf_event_mlock_kb (516 KiB by default) times the online CPUs, then the
 * rest to the process's pinned memory, bounded by RLIMIT_MEMLOCK. The CPUs' 1 MiB rings
 * cannot all fit in the allowance, so at least one comes out small, whatever the user's other
 * processes hold; unless perf_event_paranoid is -1 or the allowance was raised. Some shares of
 * the allowance held elsewhere leave no room for every ring: then sampling is refused. Either
 * way the test has nothing to check. Counted with the sampler's test counters, never timed:
 * each phase is bounded as a hang guard only. */
#include "client/sampling.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <linux/capability.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The library's: a quarter of its largest ring (1 MiB). */
/* On 2 CPUs: 1 MiB and 128 KiB rings when the user's allowance is free; 128 KiB and 32 KiB
 * when another process holds a 1 MiB ring of it (a test run beside), or two do (a 64 KiB
 * limit left no room for the second ring then: sampling was refused). */
#define MEMLOCK_BYTES (192 * 1024)

/* Drops CAP_IPC_LOCK (effective and permitted: for good) from this thread, before the
 * profiler's threads, which inherit it; then lowers the locked-memory limit. */
static int limit_locked_memory(void)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
    if (syscall(SYS_capget, &head, caps) != 0)
        return -1;
    __u32 bit = CAP_TO_MASK(CAP_IPC_LOCK);
    int i = CAP_TO_INDEX(CAP_IPC_LOCK);
    caps[i].effective &= ~bit;
    caps[i].permitted &= ~bit;
    caps[i].inheritable &= ~bit;
    if (syscall(SYS_capset, &head, caps) != 0)
        return -1;
    struct rlimit lim;
    if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0)
        return -1;
    if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > MEMLOCK_BYTES)
        lim.rlim_cur = MEMLOCK_BYTES;
    else
        lim.rlim_cur = lim.rlim_max;
    return setrlimit(RLIMIT_MEMLOCK, &lim);
}

static void describe(FILE *out, void *user)
{
    (void)user;
    struct tc_sampling_counts c = tc_sampling_counts();
    fprintf(out, "passes %llu, untimed waits %llu\n", (unsigned long long)c.passes,
            (unsigned long long)c.untimed_waits);
}

/* The program idles with no consumer: the sampler keeps passing over the rings. Without the
 * fix it goes into a wait without a timeout at once, and passes no more: seen at the next nap. */
static void check_idle_passes(void)
{
    uint64_t enough = tc_sampling_counts().passes + 3;
    struct tc_sampling_counts c;
    while ((c = tc_sampling_counts()).passes < enough && c.untimed_waits == 0)
        usleep(20 * 1000);
    tt_check(c.untimed_waits == 0,
             "a small ring, no consumer: %llu waits without a timeout (the ring overflows unseen)",
             (unsigned long long)c.untimed_waits);
    tt_check(c.passes >= enough, "idle, no consumer: the sampler still passes over the small rings");
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("# perf_event_open refused to this user here: nothing to check\n");
        return 77;
    }
    if (limit_locked_memory() != 0) {
        printf("FAIL could not drop CAP_IPC_LOCK nor lower RLIMIT_MEMLOCK\n");
        return 1;
    }
    tt_use_free_port(); /* nobody connects */
    tt_phase_describe(describe, NULL);
    tt_phase("starting the profiler", 60);
    ___tracy_startup_profiler();
    size_t smallest = tc_sampling_counts().smallest_ring;
    if (smallest == 0 || smallest > TC_SAMPLING_WATERMARK_BYTES) {
        printf("# no ring came out small (smallest %zu bytes: perf_event_paranoid -1, a raised "
               "perf_event_mlock_kb; 0: sampling refused, the user's other processes holding "
               "perf rings): nothing to check\n",
               smallest);
        tt_phase("shutting down", 60);
        ___tracy_shutdown_profiler();
        tt_phase_done();
        return 77;
    }
    printf("# smallest ring: %zu bytes\n", smallest);
    tt_phase("idle: the sampler passes over the rings 3 times", 60);
    check_idle_passes();
    tt_phase("shutting down", 60);
    ___tracy_shutdown_profiler();
    tt_phase_done();
    return tt_finish("test_sampling_small_rings");
}
