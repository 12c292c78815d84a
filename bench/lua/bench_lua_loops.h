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

#endif
