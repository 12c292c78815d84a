/* start.c - preloaded into a program that knows nothing of tracyc (LD_PRELOAD), for
 * bench/process_cost.sh: starts the profiler as the program starts, as a program that
 * records events would at its first one.
 *
 * With BENCH_WAIT_SERVER=1 it waits (up to 30 s) for a server to connect before the
 * program runs, so a live capture sees the whole run. With BENCH_EXIT_NOTE=FILE it writes
 * there the CPU time (ns) the main thread spent in tracyc's shutdown at exit (draining,
 * answering the last queries, the in-process capture writing its output): the main
 * thread's CPU is the program's up to then. */
#define _GNU_SOURCE
#include <tracy/TracyC.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long before_shutdown = -1;

static long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* atexit handlers run last-registered first: this one, registered after tracyc's... */
static void note_before(void)
{
    before_shutdown = thread_cpu_ns();
}

/* ...and this one, registered before tracyc started, after tracyc's. */
static void note_after(void)
{
    const char *path = getenv("BENCH_EXIT_NOTE");
    FILE *f = path && before_shutdown >= 0 ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%lld\n", thread_cpu_ns() - before_shutdown);
        fclose(f);
    }
}

__attribute__((constructor)) static void bench_start(void)
{
    atexit(note_after);
    ___tracy_startup_profiler();
    atexit(note_before);
    const char *wait = getenv("BENCH_WAIT_SERVER");
    if (wait && *wait == '1') {
        for (int i = 0; i < 30000 && !___tracy_connected(); i++)
            usleep(1000);
        if (!___tracy_connected())
            fprintf(stderr, "bench: no server connected\n");
    }
}
