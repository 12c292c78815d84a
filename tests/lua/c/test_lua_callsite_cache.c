/* The caches of the ZoneBegin* hot path stay exact when Lua reuses memory: call sites are
 * cached by the calling function's address, and the calling thread's record by the
 * lua_State's address, and both addresses come back after a collection or lua_close. */
#include "lua_host.h"

#include <stdio.h>
#include <string.h>

#define CHUNKS 300
#define RUNS 8

/* Each chunk zones at line 1 with the same name: only the file tells them apart. Each
 * runs RUNS times (the cache trusts a function after a few calls), and is collected
 * before the next is loaded, so its function's address is reused. */
static const char *reuse =
    "for i = 1, (...) do\n"
    "  local f = assert((loadstring or load)(\"tracy.ZoneBeginN('g') tracy.ZoneEnd()\", '=chunk' .. i))\n"
    "  for _ = 1, select(2, ...) do f() end\n"
    "  f = nil\n"
    "  collectgarbage() collectgarbage()\n"
    "end\n"
    "-- called through a C function (pcall): the call site is [C]\n"
    "pcall(tracy.ZoneBeginN, 'via pcall') tracy.ZoneEnd()\n";

static int run_reuse(lua_State *L)
{
    if (luaL_loadbuffer(L, reuse, strlen(reuse), "@reuse.lua"))
        return 0;
    lua_pushinteger(L, CHUNKS);
    lua_pushinteger(L, RUNS);
    if (lua_pcall(L, 2, 0, 0)) {
        fprintf(stderr, "lua error: %s\n", lua_tostring(L, -1));
        return 0;
    }
    return 1;
}

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(run_reuse(L));

    /* Two states used in turn on this thread, then one closed and another made, which
     * tends to get the closed one's address. */
    lua_State *A = lh_state(), *B = lh_state();
    for (int i = 0; i < 3; i++) {
        CHECK(lh_run(A, "=a", "tracy.ZoneBeginN('a')"));
        CHECK(lh_run(B, "=b", "tracy.ZoneBeginN('b') tracy.ZoneEnd()"));
        CHECK(lh_run(A, "=a", "tracy.ZoneEnd()"));
    }
    CHECK(lh_run(A, "=a", "tracy.ZoneBeginN('left open in a')"));
    lua_close(A);
    for (int i = 0; i < 5; i++) {
        /* Blocks of every small size, filled with garbage, before the module: its state
         * lands elsewhere than the closed one's, whose memory a stale cache would read. */
        lua_State *C = luaL_newstate();
        luaL_openlibs(C);
        lua_createtable(C, 128, 0);
        for (int size = 8; size <= 1024; size += 8) {
            memset(lua_newuserdata(C, (size_t)size), 0xa5, (size_t)size);
            lua_rawseti(C, -2, size / 8);
        }
        lua_pushlightuserdata(C, C);
        lua_insert(C, -2);
        lua_rawset(C, LUA_REGISTRYINDEX);
        tracyc_lua_register(C);
        CHECK(lh_run(C, "=c",
                     "local ok, err = pcall(tracy.ZoneEnd)\n"
                     "assert(not ok and err:find('no open zone', 1, true), err)\n"
                     "tracy.ZoneBeginN('c') tracy.ZoneEnd()"));
        lua_close(C);
    }
    CHECK(lh_run(B, "=b", "local ok = pcall(tracy.ZoneEnd) assert(not ok)"));
    lua_close(B);
    lua_close(L);
    lh_capture_finish(cap);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);

    CHECK_EQ_INT(lh_count(&t, "g"), RUNS * CHUNKS);
    int k = 0, wrong = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (strcmp(t.zones[i].name, "g") != 0)
            continue;
        char want[32];
        snprintf(want, sizeof want, "chunk%d", k++ / RUNS + 1);
        if (strcmp(t.zones[i].loc->file, want) != 0 || t.zones[i].loc->line != 1) {
            if (!wrong++)
                fprintf(stderr, "zone %d: %s:%u, want %s:1\n", k, t.zones[i].loc->file, t.zones[i].loc->line, want);
        }
    }
    CHECK_EQ_INT(wrong, 0);
    const struct lh_zone *via = lh_find(&t, "via pcall");
    CHECK(via != NULL);
    if (via)
        CHECK_STR(via->loc->file, "[C]");
    CHECK_EQ_INT(lh_count(&t, "a"), 3);
    CHECK_EQ_INT(lh_count(&t, "b"), 3);
    CHECK_EQ_INT(lh_count(&t, "c"), 5);
    CHECK(lh_find(&t, "left open in a") != NULL);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_callsite_cache");
}
