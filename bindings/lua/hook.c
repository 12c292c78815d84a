/* hook.c - hook mode: every Lua and C function call is a zone, through lua_sethook.
 *
 * Each hook zone remembers the function whose call opened it, and a return ends the
 * innermost zone of that function together with every zone above it. That one rule keeps
 * the nesting right where call and return events do not pair up:
 *   - an error unwinding through pcall skips the return events of the unwound frames;
 *     the return of pcall (or of whatever C function caught the error) ends them;
 *   - a frame that began before HookEnable returns with no zone: nothing ends;
 *   - a tail call replaces its caller's frame, and only the callee returns: the tail-call
 *     event ends the caller's zone and begins the callee's.
 * Coroutines inherit the hook when created; their zones go to their own fibers like any
 * zone. The tracy.* functions themselves are not zoned. HookDisable stops beginning
 * zones at once; a thread keeps following returns, with unrecorded placeholders for new
 * calls, until its hook zones have ended, then drops the hook. */
#include "binding.h"

/* Is the function on the top of the stack one of the tracy.* functions? */
static int is_ours(lua_State *L, struct tl_state *S)
{
    if (!lua_iscfunction(L, -1) || !lua_getupvalue(L, -1, 1))
        return 0;
    int ours = lua_touserdata(L, -1) == S;
    lua_pop(L, 1);
    return ours;
}

static void on_call(lua_State *L, lua_Debug *ar, struct tl_state *S, struct tl_co *co)
{
    int zoned = S->hook_on && !S->off;
    lua_getinfo(L, zoned ? "Snf" : "f", ar);
    const void *func = lua_topointer(L, -1);
    int ours = is_ours(L, S);
    lua_pop(L, 1);
    if (ours)
        return;
    if (ar->event == LUA_HOOKTAILCALL) { /* the replaced frame's zone is the innermost hook zone */
        size_t i = co->nzones;
        while (i > 0 && !co->zones[i - 1].func)
            i--;
        if (i > 0)
            tl_zones_end_to(co, i - 1);
    }
    tl_zone_reserve(L, co);
    tl_zone_begin(co, zoned ? tl_srcloc_function(S, ar) : (struct tl_where){0}, func, 0);
}

static void on_return(lua_State *L, lua_Debug *ar, struct tl_state *S, struct tl_co *co)
{
    lua_getinfo(L, "f", ar);
    const void *func = lua_topointer(L, -1);
    int ours = is_ours(L, S);
    lua_pop(L, 1);
    if (ours)
        return;
    size_t i = co->nzones;
    while (i > 0 && co->zones[i - 1].func != func)
        i--;
    if (i > 0)
        tl_zones_end_to(co, i - 1);
}

static void hook(lua_State *L, lua_Debug *ar)
{
    struct tl_state *S = tl_state_get(L);
    if (!S)
        return;
    struct tl_co *co = tl_co_self(S, L);
    if (ar->event == LUA_HOOKRET)
        on_return(L, ar, S, co);
    else if (S->hook_on || co->nhook)
        on_call(L, ar, S, co);
    if (!S->hook_on && !co->nhook)
        lua_sethook(L, NULL, 0, 0);
}

static int hook_enable(lua_State *L)
{
    tl_upstate(L)->hook_on = 1;
    lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
    return 0;
}

static int hook_disable(lua_State *L)
{
    struct tl_state *S = tl_upstate(L);
    S->hook_on = 0;
    if (!tl_co_self(S, L)->nhook && lua_gethook(L) == hook)
        lua_sethook(L, NULL, 0, 0);
    return 0;
}

void tl_open_hook(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"HookEnable", hook_enable},
        {"HookDisable", hook_disable},
        {NULL, NULL},
    };
    tl_push_state(L);
    luaL_setfuncs(L, fns, 1);
}
