/* test_child.c - see test_child.h. */
#include "test_child.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

int tt_child_ended(pid_t pid, int *status, int wait_s)
{
    for (int i = 0; i < wait_s * 100; i++) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    printf("child %d still running after %d s: killed\n", (int)pid, wait_s);
    fflush(stdout);
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return 0;
}
