/* inproc_cost.c - zone pairs into the in-process capture (TRACYC_OUTPUT), for the worker's
 * cost per event: what the Python hook mode's calls become, a caller and its callees
 * alternating over a few source locations.
 *
 *   TRACYC_OUTPUT=out.txt bench_inproc_cost [PAIRS]     (default 2,000,000; 0 for a baseline)
 *
 * PAIRS zones, nested 4 deep over 4 source locations. It prints nothing: bench/inproc_cost.sh
 * runs it under bench_process_cost_run (the worker thread's CPU time) and callgrind (the
 * process's instructions, PAIRS against 0). */
#include <tracy/TracyC.h>

#include <stdlib.h>

static void nest(int depth)
{
    switch (depth) {
    case 4: {
        TracyCZoneN(zone, "depth 4", 1);
        nest(3);
        TracyCZoneEnd(zone);
        break;
    }
    case 3: {
        TracyCZoneN(zone, "depth 3", 1);
        nest(2);
        TracyCZoneEnd(zone);
        break;
    }
    case 2: {
        TracyCZoneN(zone, "depth 2", 1);
        nest(1);
        TracyCZoneEnd(zone);
        break;
    }
    default: {
        TracyCZoneN(zone, "depth 1", 1);
        TracyCZoneEnd(zone);
        break;
    }
    }
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 2000000;
    ___tracy_startup_profiler();
    for (long i = 0; i < pairs / 4; i++)
        nest(4);
    ___tracy_shutdown_profiler();
    return 0;
}
