/* A child forked while another thread of the parent holds the profiler's start lock (here:
 * inside ___tracy_shutdown_profiler, waiting for a server with TRACY_NO_EXIT=1) ends. The
 * child does not follow the fork (no TRACYC_FOLLOW_FORK), yet its first tracyc call and its
 * exit (the atexit shutdown) both take that lock: the fork handler must start it anew in
 * every child, not only in a followed one (the child hung forever before).
 * Bounded waits only: a child still alive after CHILD_WAIT_S is reported and killed. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_WAIT_S 30

static const struct ___tracy_source_location_data child_loc = {"child", "main", "fork.c", 1, 0};

static void pause_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void *shut_down(void *arg)
{
    (void)arg;
    ___tracy_shutdown_profiler(); /* holds the start lock until a server has the capture */
    return NULL;
}

/* The shutdown marks the profiler stopping under the start lock, and stays there (holding
 * it) while no server has connected. */
static int wait_until_stopping(void)
{
    for (int i = 0; i < CHILD_WAIT_S * 100; i++) {
        if (!___tracy_profiler_started())
            return 1;
        pause_ms(10);
    }
    return 0;
}

static int child_status = -1;

/* Registered before the profiler's exit handler, so it runs after it: a child that got this
 * far has run the shutdown, and ends by _exit. What exit would do next is AddressSanitizer's
 * leak check, which takes all its allocator's locks; GCC 12's takes none around fork, so one
 * that another thread of the parent held at the fork would stay taken in the child. */
static void child_leaves(void)
{
    if (child_status >= 0)
        _exit(child_status);
}

/* A non-followed child: inert, every call a no-op, and its exit runs the shutdown. */
static void run_child(void)
{
    int disabled = tracyc_disabled();
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&child_loc, 1);
    ___tracy_emit_zone_end(z);
    child_status = disabled ? 0 : 3;
    exit(child_status);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    unsetenv("TRACYC_FOLLOW_FORK");
    atexit(child_leaves);
    ___tracy_startup_profiler();
    pthread_t shutter;
    pthread_create(&shutter, NULL, shut_down, NULL);
    int stopping = wait_until_stopping();
    tt_check(stopping, "the shutdown began within %d s", CHILD_WAIT_S);
    if (stopping) {
        fflush(stdout); /* (else the child would hold a copy of what is buffered) */
        pid_t pid = fork();
        if (pid == 0)
            run_child();
        int status = 0;
        int ended = tt_child_ended(pid, &status, CHILD_WAIT_S);
        tt_check(ended, "a child forked during the parent's shutdown ended within %d s (hung on the start lock)",
                 CHILD_WAIT_S);
        if (ended)
            tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exited with 0 (status %d)", status);
    }
    /* A server lets the parent's shutdown end. */
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("joining the thread in ___tracy_shutdown_profiler: the client sending everything to the capture "
             "(TRACY_NO_EXIT)",
             120);
    pthread_join(shutter, NULL);
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_fork_during_shutdown");
}
