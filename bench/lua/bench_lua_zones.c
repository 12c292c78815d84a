/* bench_lua_zones.c - the cost of a Lua zone (tracy.ZoneBeginN + tracy.ZoneEnd), against
 * an empty Lua function-call pair and against upstream TracyLua's way of beginning a zone
 * (lua_getinfo "Snl" and a source location allocated on every call), emulated on the same
 * core, all in one run. Events are drained by the in-process capture, as a connected
 * server would; the trace it writes is thrown away. With --server, a server (for example
 * tracyc-capture, as bench/run.sh does) must connect instead: the conditions under which
 * bench/run.sh measures upstream TracyLua itself with upstream_lua_host.cpp.
 *
 *   bench_lua_zones [--server] [pairs]
 *   bench_lua_zones --whole [pairs]     an event's whole cost, server connected
 *                                       (bench_lua_whole, bench/event_cost.sh)
 *
 * Design target (docs/DESIGN.md): a pair <= 0.3 x upstream TracyLua; aim <= 3 x an empty
 * Lua call pair. Nothing here is a pass/fail check. */
#define _DEFAULT_SOURCE
#include "tracyc.h"
#include "tracyc_lua.h"

#include <lauxlib.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_lua_loops.h"
#include "../bench_server.h"

static TracyCZoneCtx upstream_ctx[64];
static int upstream_depth;

/* What upstream's LuaZoneBeginN does per call, on tracyc's public API. */
static int upstream_begin_n(lua_State *L)
{
    lua_Debug ar;
    lua_getstack(L, 1, &ar);
    lua_getinfo(L, "Snl", &ar);
    char src[256];
    size_t n = strlen(ar.source) < 255 ? strlen(ar.source) : 255;
    for (size_t i = 0; i < n; i++)
        src[i] = ar.source[i] == '\n' ? ' ' : ar.source[i];
    src[n] = 0;
    size_t name_len;
    const char *name = lua_tolstring(L, 1, &name_len);
    const char *function = ar.name ? ar.name : ar.short_src;
    uint64_t loc =
        ___tracy_alloc_srcloc_name((uint32_t)ar.currentline, src, n, function, strlen(function), name, name_len, 0);
    upstream_ctx[upstream_depth++ & 63] = ___tracy_emit_zone_begin_alloc(loc, 1);
    return 0;
}

static int upstream_end(lua_State *L)
{
    (void)L;
    ___tracy_emit_zone_end(upstream_ctx[--upstream_depth & 63]);
    return 0;
}

static int empty_c(lua_State *L)
{
    (void)L;
    return 0;
}

int main(int argc, char **argv)
{
    int whole = argc > 1 && strcmp(argv[1], "--whole") == 0;
    int server = whole || (argc > 1 && strcmp(argv[1], "--server") == 0);
    long pairs = argc > 1 + server ? atol(argv[1 + server]) : 1000000;
    char out[] = "bench_lua_zones_XXXXXX.txt"; /* in the folder it runs in, removed at the end */
    if (server) {
        if (bench_wait_for_server("bench_lua_zones") != 0)
            return 2;
    } else {
        int fd = mkstemps(out, 4);
        if (fd < 0 || tracyc_capture_start(out) != 0) {
            fprintf(stderr, "bench_lua_zones: cannot start the capture: %s\n", tracyc_last_error());
            return 1;
        }
        close(fd);
    }

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    tracyc_lua_register(L);
    lua_register(L, "upstream_begin_n", upstream_begin_n);
    lua_register(L, "upstream_end", upstream_end);
    lua_register(L, "empty_c", empty_c);
    if (luaL_dostring(L, bench_lua_loops)) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    if (whole) {
        bench_lua_whole(L, "tracyc", pairs);
        lua_close(L);
        ___tracy_shutdown_profiler();
        return 0;
    }
    bench_lua_measure(L, "tracy", pairs / 10); /* warm up: interning, buffers */
    double tracy = bench_lua_measure(L, "tracy", pairs);
    double empty_lua = bench_lua_measure(L, "empty_lua", pairs);
    double empty_c_pair = bench_lua_measure(L, "empty_c", pairs);
    double upstream = bench_lua_measure(L, "upstream", pairs);
    lua_close(L);
    ___tracy_shutdown_profiler();
    if (!server)
        unlink(out);

    printf("Lua zone pair cost (tracyc), %ld pairs, best of %d, thread CPU time, %s (loop overhead included in all)\n",
           pairs, BENCH_LUA_RUNS, server ? "server connected" : "in-process capture");
    printf("  tracy.ZoneBeginN + ZoneEnd        %7.1f ns\n", tracy);
    printf("  empty Lua function pair           %7.1f ns\n", empty_lua);
    printf("  empty C function pair             %7.1f ns\n", empty_c_pair);
    printf("  upstream way (srcloc alloc/call)  %7.1f ns\n", upstream);
    printf("ratio tracy / empty Lua pair        %7.2f   (aim <= 3)\n", tracy / empty_lua);
    printf("ratio tracy / empty C pair          %7.2f\n", tracy / empty_c_pair);
    printf("ratio tracy / upstream way          %7.2f   (target <= 0.3 against upstream TracyLua itself)\n",
           tracy / upstream);
    return 0;
}
