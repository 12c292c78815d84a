/* processes.c - a parent that prepares work, forks three worker processes and waits for
 * them, then merges their results. Run with TRACYC_FOLLOW_FORK=1 (and TRACYC_OUTPUT, or
 * a tracyc-capture --listen with TRACYC_CONNECT): each child records itself and all four
 * processes land in one profile, the children's zones between the parent's "prepare" and
 * "merge". Without it, only the parent is recorded (a forked child stays silent). */
#define _POSIX_C_SOURCE 200809L
#include <tracy/TracyC.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILDREN 3
#define CHUNKS 20

static void spin_us(long us)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

static void child(int index)
{
    TracyCSetThreadName("worker main");
    for (int i = 0; i < CHUNKS; i++) {
        TracyCZoneN(chunk, "chunk", 1);
        TracyCZoneValue(chunk, (uint64_t)i);
        spin_us(200 + 100 * index);
        TracyCZoneEnd(chunk);
    }
    TracyCMessageL("worker done");
}

int main(void)
{
    TracyCZoneN(prepare, "prepare", 1);
    spin_us(2000);
    TracyCZoneEnd(prepare);

    pid_t pids[CHILDREN];
    for (int i = 0; i < CHILDREN; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            child(i);
            exit(0); /* (not _exit: the child's profiler sends the rest of its events at exit) */
        }
        if (pids[i] < 0) {
            perror("fork");
            return 1;
        }
    }
    int failed = 0;
    {
        TracyCZoneN(wait_zone, "wait for workers", 1);
        for (int i = 0; i < CHILDREN; i++) {
            int status = 0;
            waitpid(pids[i], &status, 0);
            failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
        TracyCZoneEnd(wait_zone);
    }

    TracyCZoneN(merge, "merge", 1);
    spin_us(1000);
    TracyCZoneEnd(merge);
    printf("processes: %d workers, %d failed\n", CHILDREN, failed);
    return failed != 0;
}
