/* spawn_child.c - a parent and a child process, both recorded by one collector, whose
 * events must come out in the order they happened: the parent's zone "before the child"
 * ends before the child starts, the child's zone "child work" runs in the child, the
 * parent's zone "after the child" begins once the parent has waited for it.
 *
 *   spawn_child fork    the child is forked (TRACYC_FOLLOW_FORK=1 makes it a client)
 *   spawn_child exec [SKEW_NS]
 *                       the child is this program again, run by fork and exec with the
 *                       environment it was given, and with TRACYC_TEST_CLOCK_SKEW_NS=SKEW_NS
 *                       when given (the child then reports its clocks as a client on another
 *                       host would, SKEW_NS off)
 *   spawn_child child   what the exec'd child runs
 *
 * The child burns 2 ms of CPU in its zone: long enough that its place in the parent's
 * timeline is unmistakable, short enough for any machine. */
#include "test_child.h"
#include "test_util.h"
#include "util/monotonic.h"
#include <tracy/TracyC.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long the parent waits to be recorded: less than test_clock.py's wait for this
 * program, so that a collector that never connects is said here, not by a kill. */
#define CONNECT_WAIT_S 60

static void child_work(void)
{
    TracyCZoneN(work, "child work", 1);
    tt_burn_cpu_ns(2000000);
    TracyCZoneEnd(work);
}

/* 1 once the collector has connected, 0 (said on stderr) when it has not within CONNECT_WAIT_S. */
static int connected_within_bound(void)
{
    int64_t until = tcu_monotonic_ns() + CONNECT_WAIT_S * 1000000000LL;
    while (!TracyCIsConnected) {
        if (tcu_monotonic_ns() >= until) {
            fprintf(stderr, "spawn_child: no collector connected within %d s (TRACYC_CONNECT=%s)\n", CONNECT_WAIT_S,
                    getenv("TRACYC_CONNECT") ? getenv("TRACYC_CONNECT") : "(unset)");
            return 0;
        }
        nanosleep(&(struct timespec){0, 1000000L}, NULL);
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "child") == 0) {
        child_work();
        return 0;
    }
    if (strcmp(mode, "fork") != 0 && strcmp(mode, "exec") != 0) {
        fprintf(stderr, "usage: spawn_child fork | exec [SKEW_NS]\n");
        return 2;
    }
    /* The parent is recorded before its child: the collector gives the trace the clock of
     * the first client, and the test knows which that is. */
    if (!connected_within_bound())
        return 1;
    TracyCZoneN(before, "before the child", 1);
    tt_burn_cpu_ns(1000000);
    TracyCZoneEnd(before);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (strcmp(mode, "exec") == 0) {
            if (argc > 2)
                setenv("TRACYC_TEST_CLOCK_SKEW_NS", argv[2], 1);
            execl("/proc/self/exe", argv[0], "child", (char *)NULL);
            perror("exec");
            _exit(1);
        }
        child_work();
        exit(0); /* exit, not _exit: the child's profiler sends what it has at exit */
    }
    int status = 0;
    if (!tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "spawn_child: the child failed\n");
        return 1;
    }
    TracyCZoneN(after, "after the child", 1);
    tt_burn_cpu_ns(1000000);
    TracyCZoneEnd(after);
    return 0;
}
