/* start.c - preloaded into a program that knows nothing of tracyc (LD_PRELOAD), for
 * bench/process_cost.sh: starts the profiler as the program starts, as a program that
 * records events would at its first one.
 *
 * With BENCH_WAIT_SERVER=1 it waits (up to 30 s) for a server to connect before the
 * program runs, so a live capture sees the whole run. With BENCH_EXIT_NOTE=FILE it writes
 * there the CPU time (ns) the main thread spent in tracyc's shutdown at exit (draining,
 * answering the last queries, the in-process capture writing its output): the main
 * thread's CPU is the program's up to then. It records one message at the start, as
 * an instrumented program would. */
#define _GNU_SOURCE
#include <tracy/TracyC.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Registered after tracyc's own handler, so run before it: shuts tracyc down here, timed
 * (tracyc's handler then finds nothing left to do). */
static void shutdown_timed(void)
{
    long long before = thread_cpu_ns();
    ___tracy_shutdown_profiler();
    long long spent = thread_cpu_ns() - before;
    const char *path = getenv("BENCH_EXIT_NOTE");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%lld\n", spent);
        fclose(f);
    }
}

__attribute__((constructor)) static void bench_start(void)
{
    ___tracy_startup_profiler();
    ___tracy_emit_messageL("bench: started", 0);
    atexit(shutdown_timed);
    const char *wait = getenv("BENCH_WAIT_SERVER");
    if (wait && *wait == '1') {
        for (int i = 0; i < 30000 && !___tracy_connected(); i++)
            usleep(1000);
        if (!___tracy_connected())
            fprintf(stderr, "bench: no server connected\n");
    }
}
