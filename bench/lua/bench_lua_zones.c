/* bench_lua_zones.c - the cost of a Lua zone (tracy.ZoneBeginN + tracy.ZoneEnd), against
 * an empty Lua function-call pair and against upstream TracyLua's way of beginning a zone
 * (lua_getinfo "Snl" and a source location allocated on every call), emulated on the same
 * core, all in one run. Events are drained by the in-process capture, as a connected
 * server would; the trace it writes is thrown away.
 *
 *   bench_lua_zones [pairs]
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
    uint64_t loc = ___tracy_alloc_srcloc_name((uint32_t)ar.currentline, src, n, function, strlen(function), name,
                                              name_len, 0);
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

static const char *loops =
    "local tracy = tracy\n"
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

/* CPU time of the measuring thread: the cost of the calls themselves, steady on a shared
 * machine where wall time also counts whoever else runs. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of 5 runs of loops[name](pairs), in ns per pair. */
static double measure(lua_State *L, const char *name, long pairs)
{
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        lua_getfield(L, -1, name);
        lua_pushinteger(L, pairs);
        double start = now_s();
        if (lua_pcall(L, 1, 0, 0)) {
            fprintf(stderr, "%s: %s\n", name, lua_tostring(L, -1));
            exit(1);
        }
        double ns = (now_s() - start) * 1e9 / (double)pairs;
        best = ns < best ? ns : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    char out[] = "/tmp/bench_lua_zones_XXXXXX.txt";
    int fd = mkstemps(out, 4);
    if (fd < 0 || tracyc_capture_start(out) != 0) {
        fprintf(stderr, "bench_lua_zones: cannot start the capture: %s\n", tracyc_last_error());
        return 1;
    }
    close(fd);

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    tracyc_lua_register(L);
    lua_register(L, "upstream_begin_n", upstream_begin_n);
    lua_register(L, "upstream_end", upstream_end);
    lua_register(L, "empty_c", empty_c);
    if (luaL_dostring(L, loops)) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    measure(L, "tracy", pairs / 10); /* warm up: interning, buffers */
    double tracy = measure(L, "tracy", pairs);
    double empty_lua = measure(L, "empty_lua", pairs);
    double empty_c_pair = measure(L, "empty_c", pairs);
    double upstream = measure(L, "upstream", pairs);
    lua_close(L);
    ___tracy_shutdown_profiler();
    unlink(out);

    printf("Lua zone pair cost, %ld pairs, best of 5, thread CPU time (loop overhead included in all)\n", pairs);
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
