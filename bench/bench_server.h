/* bench_server.h - benchmarks measure with a server connected and draining: start the
 * profiler and wait (up to 30 s) for the capture bench/run.sh starts beside them.
 * Only upstream's C API is used, so the same code runs against upstream's client. */
#ifndef TRACYC_BENCH_SERVER_H
#define TRACYC_BENCH_SERVER_H

#include <stdio.h>
#include <unistd.h>

static inline int bench_wait_for_server(const char *bench)
{
    ___tracy_startup_profiler();
    for (int i = 0; i < 30000 && !___tracy_connected(); i++)
        usleep(1000);
    if (___tracy_connected())
        return 0;
    fprintf(stderr, "%s: no server connected\n", bench);
    return -1;
}

#endif
