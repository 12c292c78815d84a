/* tracyc_own_threads lists exactly the profiler's threads, from the moment each exists:
 * whatever a program counts beside its own threads (CPython 3.12+ warns at fork() when a
 * process has several) is the profiler's, at every moment while it starts its worker and
 * its sampler. None in a forked child, none after
 * shutdown, and asking starts nothing. */
#include "client/sampling.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <limits.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX 64

static const struct ___tracy_source_location_data loc = {"own", "main", "own_threads.c", 1, 0};

static uint32_t before_test[MAX]; /* threads there before the test began (a sanitizer's own) */
static size_t before_count;

static int has(const uint32_t *tids, size_t n, uint32_t tid);

static void *nothing(void *arg)
{
    return arg;
}

/* The process's threads but the calling one and those there before the test began. Read
 * without malloc (no opendir): a forked child calls it, and AddressSanitizer's allocator
 * (GCC 12's takes no lock around fork) may have been locked by another thread at the fork. */
static size_t others(uint32_t *tids)
{
    uint32_t self = (uint32_t)syscall(SYS_gettid);
    size_t n = 0;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _Alignas(struct dirent64) char buf[4096];
    long got;
    while (fd >= 0 && (got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long at = 0; at < got;) {
            const struct dirent64 *e = (const struct dirent64 *)(buf + at);
            uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
            if (tid && tid != self && !has(before_test, before_count, tid) && n < MAX)
                tids[n++] = tid;
            at += e->d_reclen;
        }
    }
    if (fd >= 0)
        close(fd);
    return n;
}

static int has(const uint32_t *tids, size_t n, uint32_t tid)
{
    for (size_t i = 0; i < n; i++)
        if (tids[i] == tid)
            return 1;
    return 0;
}

static int named_tracyc(uint32_t tid)
{
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
    }
    return strncmp(comm, "tracyc ", 7) == 0;
}

/* Threads listed before the call are in it, and it lists none that is not listed after:
 * 1 when that held; *count gets how many it listed. */
static int consistent(size_t *count)
{
    uint32_t before[MAX], listed[MAX], after[MAX];
    size_t nb = others(before);
    size_t n = tracyc_own_threads(listed, MAX);
    size_t na = others(after);
    int ok = n <= MAX;
    for (size_t i = 0; ok && i < nb; i++)
        ok = has(listed, n, before[i]);
    for (size_t i = 0; ok && i < n; i++)
        ok = has(after, na, listed[i]) && named_tracyc(listed[i]);
    if (!ok)
        fprintf(stderr, "threads before %zu, listed %zu, after %zu\n", nb, n, na);
    *count = n;
    return ok;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char name[64], out[PATH_MAX];
    snprintf(name, sizeof name, "tracyc-own-threads-%d.txt", (int)getpid());
    tt_temp_path(out, sizeof out, name);
    setenv("TRACYC_OUTPUT", out, 1);
    /* ThreadSanitizer starts a thread of its own at the first pthread_create: have it now. */
    pthread_t first;
    if (pthread_create(&first, NULL, nothing, NULL) == 0)
        pthread_join(first, NULL);
    before_count = others(before_test);
    CHECK_EQ_INT(tracyc_own_threads(NULL, 0), 0);
    CHECK(!___tracy_profiler_started()); /* asking starts nothing */

    /* The profiler starts at the first zone; its worker, then its sampler start while this
     * thread keeps checking. */
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_end(z);
    size_t want = tt_sampling_expected() ? 2 : 1, n = 0;
    int ok = 1;
    /* (Bounded: a sampler that never starts fails here, saying why, not at ctest's timeout.) */
    int64_t give_up = tcu_monotonic_ns() + 60 * 1000000000LL;
    while (ok && n < want && tcu_monotonic_ns() < give_up)
        ok = consistent(&n);
    const char *unavailable = tc_sampling_unavailable();
    tt_check(ok && n >= want, "the list held the threads there were while the profiler started (%zu of them; %s)", n,
             unavailable ? unavailable : "sampling available");
    for (int i = 0; ok && i < 1000; i++)
        ok = consistent(&n);
    tt_check(ok, "and while it ran");

    pid_t pid = fork();
    if (pid == 0) {
        uint32_t tids[MAX];
        _exit(tracyc_own_threads(NULL, 0) == 0 && others(tids) == 0 ? 0 : 3);
    }
    int status = 0;
    int ended = tt_child_ended(pid, &status, 30);
    tt_check(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child has none (%s, status %d)",
             ended ? "ended" : "hung: killed after 30 s", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    ___tracy_shutdown_profiler();
    uint32_t tids[MAX];
    CHECK_EQ_INT(tracyc_own_threads(NULL, 0), 0);
    CHECK_EQ_INT(others(tids), 0);
    unlink(out);
    return tt_finish("test_own_threads");
}
