/* A forked child that exits normally finds none of its parent's profiler memory lost. Its fork
 * handlers forget the parent's connections, resolver, dialer, sampler and threads without
 * freeing them (a thread of the parent may have held the allocator's lock at the fork), and
 * keep them reachable instead: the child's leak check (LeakSanitizer's, at exit, under
 * AddressSanitizer) reports nothing. Elsewhere the child's exit status is checked alone (the
 * output says so).
 *
 * Each case is a parent of its own (the profiler reads TRACYC_FOLLOW_FORK when it starts):
 * connected to a collector it dialed (TRACYC_CONNECT, in a process of its own, whose thread's
 * memory the child would otherwise find lost too) and to its in-process capture, sampling
 * where perf events are allowed (TRACY_NO_SAMPLING=1 elsewhere: the rest needs none), its
 * callstacks resolved, a thread of its own recorded. Its child exits with exit(0), inert
 * (case "inert") or followed (TRACYC_FOLLOW_FORK=1, "followed": its handler forgets the
 * parent's threads too) without starting a profiler of its own. The fork is made while the
 * collector may still be asking for frames: the resolver's thread may be resolving one, and
 * the worker handing queries and answers over (the fork waits for the query being resolved
 * and holds the resolver's lock: what they were making is not on their stacks only). */
#include "test_child.h"
#include "test_collector.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_LEAK_CHECK 1
#endif
#endif

/* A case's waits share one deadline, inside main's wait for the case: its shutdown and
 * whole-second roundings fit in the rest. */
#define CASE_WAIT_S (TT_PROGRAM_WAIT_S - 10)

static time_t case_deadline;

static int seconds_left(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec < case_deadline ? (int)(case_deadline - now.tv_sec) : 1;
}

static const struct ___tracy_source_location_data loc = {"recorded", "record", "fork_leak_check.c", 1, 0};

/* The collector's process: says its port, then a byte once the parent's thread's events and
 * the first of its callstack frames (the resolver's answer) have come; ends with the parent. */
static void run_collector(int to_parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct tcol *col = tcol_start(0);
    if (!col)
        _exit(2);
    uint16_t port = tcol_port(col);
    if (write(to_parent, &port, sizeof port) != sizeof port)
        _exit(2);
    size_t client = tcol_wait_text(col, TCD_MESSAGE, "recorded");
    tcol_wait_id(col, client, TCD_CALLSTACK_FRAME, 0);
    char ready = 1;
    if (write(to_parent, &ready, 1) != 1)
        _exit(2);
    pause(); /* until the parent's end kills it */
    _exit(0);
}

static void *record(void *arg)
{
    (void)arg;
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 16, 1);
    tt_burn_cpu_ns(50 * 1000000LL); /* sampled */
    ___tracy_emit_zone_end(z);
    ___tracy_emit_message("recorded", 8, 0);
    return NULL;
}

static int run_parent(int follow)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    case_deadline = start.tv_sec + CASE_WAIT_S;
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return 2;
    fflush(stdout);
    pid_t collector = fork();
    if (collector == 0)
        run_collector(pipe_fds[1]);
    uint16_t port = 0;
    if (!tt_readable_within(pipe_fds[0], seconds_left()) || read(pipe_fds[0], &port, sizeof port) != sizeof port)
        return 2;
    char connect[32], output[PATH_MAX];
    snprintf(connect, sizeof connect, "127.0.0.1:%u", (unsigned)port);
    setenv("TRACYC_CONNECT", connect, 1);
    tt_temp_path(output, sizeof output, "tracyc-fork-leak-check-XXXXXX"); /* a summary */
    int output_fd = mkstemp(output);
    if (output_fd < 0)
        return 2;
    close(output_fd);
    setenv("TRACYC_OUTPUT", output, 1);
    if (follow)
        setenv("TRACYC_FOLLOW_FORK", "1", 1);

    pthread_t thread;
    pthread_create(&thread, NULL, record, NULL);
    pthread_join(thread, NULL);
    char ready = 0;
    tt_check(tt_readable_within(pipe_fds[0], seconds_left()) && read(pipe_fds[0], &ready, 1) == 1,
             "the collector has the parent's events and a frame resolved");

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        exit(0); /* the atexit shutdown, then the leak check */
    int status = 0;
    int ended = tt_child_ended(pid, &status, seconds_left());
    tt_check(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the %s child exits normally, nothing of its parent's lost (%s, status %#x)",
             follow ? "followed" : "inert", ended ? "ended" : "hung: killed", status);

    ___tracy_shutdown_profiler();
    kill(collector, SIGKILL);
    waitpid(collector, NULL, 0);
    unlink(output);
    return tt_finish(follow ? "test_fork_leak_check followed" : "test_fork_leak_check inert");
}

int main(void)
{
    if (!tt_sampling_expected()) {
        puts("note: perf events not allowed here (perf_event_paranoid): the parents do not sample");
        setenv("TRACY_NO_SAMPLING", "1", 1);
    }
#ifndef UNDER_LEAK_CHECK
    puts("note: no LeakSanitizer in this build: only the children's exit status is checked");
#endif
    unsetenv("TRACYC_FOLLOW_FORK");
    unsetenv("TRACY_NO_EXIT");
    for (int follow = 0; follow <= 1; follow++) {
        fflush(stdout);
        pid_t parent = fork(); /* before any profiler: no thread to lose */
        if (parent == 0)
            _exit(run_parent(follow));
        int status = 0;
        int ended = tt_child_ended(parent, &status, TT_PROGRAM_WAIT_S);
        tt_check(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the %s case passed (status %#x)",
                 follow ? "followed" : "inert", status);
    }
    return tt_finish("test_fork_leak_check");
}
