/* test_fault_util.h - processes for the fault tests: start tracyc-capture, run a piece of
 * the test in a forked child, wait for an exit status, read a file back. The capture's
 * path comes from TRACYC_CAPTURE, which CMake sets for these tests. */
#ifndef TRACYC_TEST_FAULT_UTIL_H
#define TRACYC_TEST_FAULT_UTIL_H

#include "test_child.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Starts tracyc-capture -p port -o output -f; returns its pid. */
static inline pid_t tf_spawn_capture(uint16_t port, const char *output)
{
    const char *capture = getenv("TRACYC_CAPTURE");
    if (!capture) {
        fprintf(stderr, "TRACYC_CAPTURE is not set\n");
        exit(2);
    }
    char port_arg[16];
    snprintf(port_arg, sizeof port_arg, "%u", port);
    pid_t pid = fork();
    if (pid == 0) {
        execl(capture, capture, "-p", port_arg, "-o", output, "-f", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Runs fn in a forked child, which exits with fn's return value. The child dies with
 * the test, so a test that stops early leaves no program behind (one waiting for a
 * server with TRACY_NO_EXIT would wait forever). */
static inline pid_t tf_fork(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        _exit(fn(arg));
    }
    return pid;
}

/* How long a child may take before tf_wait kills it: well within ctest's timeout. */
#define TF_WAIT_S 120

/* The exit status of pid, or 128 + the signal that ended it; a child still running after
 * TF_WAIT_S is killed (128 + SIGKILL), saying so. */
static inline int tf_wait(pid_t pid)
{
    int status = 0;
    tt_child_ended(pid, &status, TF_WAIT_S);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
