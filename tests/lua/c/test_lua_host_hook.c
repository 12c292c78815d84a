/* tracyc_lua_hook: a host that sets its own hook (here counting lines too) and calls
 * tracyc_lua_hook from it gets hook mode's zones, and keeps its hook. */
#include "lua_host.h"

#include <string.h>

static long lines;

static void host_hook(lua_State *L, lua_Debug *ar)
{
    if (ar->event == LUA_HOOKLINE)
        lines++;
    else
        tracyc_lua_hook(L, ar);
}

static const char *script = "local function leaf() return 1 end\n"                   /* 1 */
                            "local function middle() return leaf() + leaf() end\n"   /* 2 */
                            "local function top()\n"                                 /* 3 */
                            "  middle()\n"                                           /* 4 */
                            "  pcall(error, 'caught')\n"                             /* 5 */
                            "  tracy.ZoneBeginN('by hand') leaf() tracy.ZoneEnd()\n" /* 6 */
                            "  local co = coroutine.wrap(function() leaf() end)\n"   /* 7 */
                            "  co()\n"                                               /* 8 */
                            "end\n"                                                  /* 9 */
                            "top()\n";                                               /* 10 */

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    lua_sethook(L, host_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE, 0);
    CHECK(lh_run(L, "@host.lua", script));
    CHECK(lua_gethook(L) == host_hook); /* the module never touches the host's hook */
    lua_sethook(L, NULL, 0, 0);
    lua_close(L);
    lh_capture_finish(cap);
    CHECK(lines > 0);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);
    const struct lh_zone *top = lh_find(&t, "top"), *middle = lh_find(&t, "middle"), *hand = lh_find(&t, "by hand");
    CHECK(top && top->loc->line == 3 && !strcmp(top->loc->file, "host.lua"));
    CHECK(top && middle && middle->parent == top - t.zones);
    size_t leaves = 0, fiber_leaves = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (strcmp(t.zones[i].name, "leaf"))
            continue;
        leaves++;
        fiber_leaves += lh_is_fiber(t.zones[i].thread);
    }
    CHECK_EQ_INT(leaves, 4);
    CHECK_EQ_INT(fiber_leaves, 1);
    CHECK(hand && top && hand->loc->line == 6);
    CHECK_EQ_INT(lh_count(&t, "ZoneBeginN") + lh_count(&t, "ZoneEnd"), 0);
    if (lh_lua_version() != 1) { /* LuaJIT zones no C function */
        const struct lh_zone *pc = lh_find(&t, "pcall"), *err = lh_find(&t, "error");
        CHECK(pc && err && top && pc->parent == top - t.zones && err->parent == pc - t.zones);
    }

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_host_hook");
}
