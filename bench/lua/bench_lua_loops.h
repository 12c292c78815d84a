/* bench_lua_loops.h - the Lua loops and the timer shared by bench_lua_zones.c (tracyc)
 * and upstream_lua_host.cpp (upstream TracyLua), so both measure the same Lua code the
 * same way. C and C++.
 *
 * Each loop is `for i = 1, n do b('zone') e() end` with b and e local: tracy's
 * ZoneBeginN/ZoneEnd, an empty Lua function, an empty C function, or (bench_lua_zones
 * only) upstream's way emulated on tracyc. A missing global only matters to the loop
 * that calls it. */
#ifndef BENCH_LUA_LOOPS_H
#define BENCH_LUA_LOOPS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../bench_whole.h"

static const char bench_lua_loops[] = "local tracy = tracy\n"
                                      "local function empty() end\n"
                                      "local up_begin, up_end, empty_c = upstream_begin_n, upstream_end, empty_c\n"
                                      "return {\n"
                                      "  tracy = function(n) local b, e = tracy.ZoneBeginN, tracy.ZoneEnd\n"
                                      "    for i = 1, n do b('zone') e() end end,\n"
                                      "  empty_lua = function(n) local b, e = empty, empty\n"
                                      "    for i = 1, n do b('zone') e() end end,\n"
                                      "  empty_c = function(n) local b, e = empty_c, empty_c\n"
                                      "    for i = 1, n do b('zone') e() end end,\n"
                                      "  upstream = function(n) local b, e = up_begin, up_end\n"
                                      "    for i = 1, n do b('zone') e() end end,\n"
                                      "}\n";

#define BENCH_LUA_RUNS 7

/* CPU time of the measuring thread: the cost of the calls themselves, steady on a shared
 * machine where wall time also counts whoever else runs. */
static double bench_lua_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of BENCH_LUA_RUNS runs of loops[name](pairs), in ns per pair; the table the loops
 * chunk returned is on the top of L's stack. */
static double bench_lua_measure(lua_State *L, const char *name, long pairs)
{
    double best = 1e30;
    for (int run = 0; run < BENCH_LUA_RUNS; run++) {
        lua_getfield(L, -1, name);
        lua_pushinteger(L, pairs);
        double start = bench_lua_now_s();
        if (lua_pcall(L, 1, 0, 0)) {
            fprintf(stderr, "%s: %s\n", name, lua_tostring(L, -1));
            exit(1);
        }
        double ns = (bench_lua_now_s() - start) * 1e9 / (double)pairs;
        best = ns < best ? ns : best;
    }
    return best;
}

/* An event's whole cost (bench/event_cost.sh): process CPU ns per zone pair, from just
 * before one loop of `pairs` tracy pairs to the process gone quiet once the worker has
 * sent everything (bench_whole.h), and the recording thread's CPU ns per pair. */
static void bench_lua_whole(lua_State *L, const char *label, long pairs)
{
    lua_getfield(L, -1, "tracy");
    lua_pushinteger(L, 1000); /* warm up: interning, buffers, the source location query */
    if (lua_pcall(L, 1, 0, 0)) {
        fprintf(stderr, "tracy: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    bench_whole_quiet();
    lua_getfield(L, -1, "tracy");
    lua_pushinteger(L, pairs);
    clock_t start = clock();
    double thread_start = bench_lua_now_s();
    if (lua_pcall(L, 1, 0, 0)) {
        fprintf(stderr, "tracy: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    double thread_s = bench_lua_now_s() - thread_start;
    double process_s = (double)(bench_whole_quiet() - start) / CLOCKS_PER_SEC;
    printf("%-10s whole cost of a Lua zone pair: process %6.1f ns, recording thread %6.1f ns (%ld pairs)\n", label,
           process_s * 1e9 / (double)pairs, thread_s * 1e9 / (double)pairs, pairs);
}

#endif
