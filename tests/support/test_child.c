/* test_child.c - see test_child.h. */
#include "test_child.h"

#include "util/monotonic.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

int tt_child_ended(pid_t pid, int *status, int wait_s)
{
    /* No child (a fork that failed): waitpid and kill would take any process for it. */
    if (pid <= 0) {
        printf("no child to wait for (pid %d)\n", (int)pid);
        fflush(stdout);
        *status = -1;
        return 0;
    }
    int64_t until = tcu_monotonic_ns() + wait_s * 1000000000LL;
    do {
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    } while (tcu_monotonic_ns() < until);
    printf("child %d still running after %d s: killed\n", (int)pid, wait_s);
    fflush(stdout);
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return 0;
}

int tt_readable_within(int fd, int wait_s)
{
    int64_t until = tcu_monotonic_ns() + wait_s * 1000000000LL;
    struct pollfd p = {fd, POLLIN, 0};
    int ready;
    do {
        int64_t left = until - tcu_monotonic_ns();
        ready = left > 0 ? poll(&p, 1, (int)(left / 1000000) + 1) : 0;
    } while (ready < 0 && errno == EINTR);
    if (ready > 0)
        return 1;
    printf("nothing to read on fd %d after %d s\n", fd, wait_s);
    fflush(stdout);
    return 0;
}
