/* upstream_lua_host.cpp - the same Lua loops as bench_lua_zones, on upstream Tracy's own
 * TracyLua.hpp (tracy::LuaRegister), for bench/run.sh to print tracyc / upstream.
 *
 * Our code, built only by bench/run.sh and only when it is given upstream's sources
 * (UPSTREAM_TRACY_INCLUDE: upstream's public/ directory), once for each Lua the module
 * was built for (upstream's TracyLua.hpp works on 5.1, 5.3, 5.4 and LuaJIT), with
 * upstream's TracyClient.cpp compiled in with TRACY_MANUAL_LIFETIME and
 * TRACY_DELAYED_INIT. Nothing of upstream is in this repository.
 *
 *   upstream_lua_host [pairs]
 *   upstream_lua_host --whole [pairs]   an event's whole cost (bench_lua_whole)
 *
 * Like `bench_lua_zones --server` it waits for a server to connect (bench/run.sh gives
 * both the same tracyc-capture treatment), since upstream without a server keeps every
 * event in memory. */
#include <lua.hpp>

#include "tracy/Tracy.hpp"
#include "tracy/TracyLua.hpp"

#include <string.h>
#include <unistd.h>

extern "C" {
#include "bench_lua_loops.h"
}

static int empty_c(lua_State *)
{
    return 0;
}

int main(int argc, char **argv)
{
    int whole = argc > 1 && strcmp(argv[1], "--whole") == 0;
    long pairs = argc > 1 + whole ? atol(argv[1 + whole]) : 1000000;
    tracy::StartupProfiler();
    for (int i = 0; i < 30000 && !TracyIsConnected; i++)
        usleep(1000);
    if (!TracyIsConnected) {
        fprintf(stderr, "upstream_lua_host: no server connected\n");
        return 2;
    }

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    tracy::LuaRegister(L);
    lua_register(L, "empty_c", empty_c);
    if (luaL_dostring(L, bench_lua_loops)) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    if (whole) {
        bench_lua_whole(L, "upstream", pairs);
        lua_close(L);
        tracy::ShutdownProfiler();
        return 0;
    }
    bench_lua_measure(L, "tracy", pairs / 10); /* warm up */
    double tracy_pair = bench_lua_measure(L, "tracy", pairs);
    double empty_lua = bench_lua_measure(L, "empty_lua", pairs);
    double empty_c_pair = bench_lua_measure(L, "empty_c", pairs);
    lua_close(L);
    tracy::ShutdownProfiler();

    printf("Lua zone pair cost (upstream TracyLua 0.14), %ld pairs, best of %d, thread CPU time, server connected\n",
           pairs, BENCH_LUA_RUNS);
    printf("  tracy.ZoneBeginN + ZoneEnd        %7.1f ns\n", tracy_pair);
    printf("  empty Lua function pair           %7.1f ns\n", empty_lua);
    printf("  empty C function pair             %7.1f ns\n", empty_c_pair);
    printf("ratio tracy / empty Lua pair        %7.2f\n", tracy_pair / empty_lua);
    return 0;
}
