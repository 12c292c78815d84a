/* hook.c - hook mode: every function call is a zone, through lua_sethook.
 *
 * Call and return events do not pair up: an error unwinding through pcall skips the
 * return events of the unwound frames, a frame that began before HookEnable returns with
 * no zone, a tail call replaces its caller's frame, and LuaJIT reports no return of a C
 * function at all. So returns are matched by rule, not counted:
 *   - Lua 5.1, 5.3 and 5.4: each hook zone remembers the function whose call opened it,
 *     and a return ends the innermost zone of that function together with every hook
 *     zone above it. On 5.3 and 5.4 the tail-call event ends the replaced caller's zone
 *     and begins the callee's; 5.1 reports a tail call as a call, made from the frame it
 *     replaces, and the callee's return is followed by one tail-return event per replaced
 *     frame, each ending the innermost hook zone: there the callee shows inside its
 *     caller. During HookDisable's drain new calls get unrecorded placeholders, so a
 *     recursive call's return cannot end its caller's zone.
 *   - LuaJIT: each hook zone remembers the stack slot of its frame (lua_Debug.i_ci) as
 *     the call event gives it. A return ends the hook zones at that slot or above (a
 *     vararg function returns from another slot: call_position finds the first); a
 *     call ends those above its caller's frame. Both are frames that are gone (returned, unwound, or replaced by a
 *     tail call, which LuaJIT does not report), and since each call ends those, no gone
 *     frame's zone stays below a live one. C functions are not zoned: LuaJIT reports no
 *     return from them, so their zones could not end on time.
 * ZoneBegin* zones are never ended by a return (zones.c continues them). Coroutines
 * inherit the hook when created (on LuaJIT the hook is global); their zones go to their
 * own fibers like any zone. The tracy.* functions themselves are not zoned. HookDisable
 * stops beginning zones at once; a thread keeps following returns until its hook zones
 * have ended, then drops the hook. debug.sethook is replaced so that a program setting
 * its own hook ends hook mode cleanly (tl_install_sethook); a hook replaced from C is
 * noticed at the next ZoneBegin* or ZoneEnd (tl_hook_check). */
#include "binding.h"
#include "tracyc_lua.h"

#include <string.h>

#if defined(TL_LUAJIT)
#define POSITION_RULE 1
#endif

/* The state of L, without a registry lookup when L called a tracy.* function last. */
static struct tl_state *state_of(lua_State *L)
{
    if (tl_co_last.L == L && tl_co_last.epoch == tl_threads_epoch())
        return tl_co_last.co->S;
    return tl_state_get(L);
}

/* Is the function on the top of the stack one of the tracy.* functions? */
static int is_ours(lua_State *L, struct tl_state *S)
{
    if (!lua_iscfunction(L, -1) || !lua_getupvalue(L, -1, 1))
        return 0;
    int ours = lua_touserdata(L, -1) == S;
    lua_pop(L, 1);
    return ours;
}

#if POSITION_RULE
/* Stack positions, as LuaJIT's lua_Debug.i_ci gives them (lua_getstack adds the frame's
 * size in the high bits). */
static int position(const lua_Debug *ar)
{
    return ar->i_ci & 0xffff;
}

/* The position of the caller of the function being called, -1 if called from C. */
static int caller_position(lua_State *L)
{
    lua_Debug caller;
    return lua_getstack(L, 1, &caller) ? position(&caller) : -1;
}

/* The position the call event reported for the function returning now. A vararg
 * function (every chunk is one) moves its frame up past its arguments after the call
 * event, so its return comes from another slot. LuaJIT's lua_getstack gives the caller's
 * frame and, in the high bits of i_ci, the size up to the frame above it, which for a
 * vararg function is the slot of its call event, not the moved frame. 0 when nothing is
 * below: every zone of the thread belongs to a frame that is returning or gone. */
static int call_position(lua_State *L)
{
    lua_Debug caller;
    return lua_getstack(L, 1, &caller) ? position(&caller) + (caller.i_ci >> 16) : 0;
}

/* Ends the hook zones whose frames are at position frame or above. */
static void end_frames_from(struct tl_co *co, int frame)
{
    size_t i = co->nzones, lowest = co->nzones;
    while (i > 0 && (!co->zones[i - 1].func || co->zones[i - 1].frame >= frame))
        if (co->zones[--i].func)
            lowest = i;
    if (lowest < co->nzones)
        tl_zones_unwind(co, lowest);
}
#else
/* Ends the innermost hook zone (of func, if not NULL) and the hook zones above it. */
static void end_function(struct tl_co *co, const void *func)
{
    size_t i = co->nzones;
    while (i > 0 && (!co->zones[i - 1].func || (func && co->zones[i - 1].func != func)))
        i--;
    if (i > 0)
        tl_zones_unwind(co, i - 1);
}
#endif

static void on_call(lua_State *L, lua_Debug *ar, struct tl_state *S, struct tl_co *co, int zoned)
{
#if POSITION_RULE
    int frame = position(ar);
    end_frames_from(co, caller_position(L) + 1);
    if (!zoned)
        return; /* draining: frames need no placeholders */
    lua_getinfo(L, "Snf", ar);
#else
    int frame = 0;
    lua_getinfo(L, zoned ? "Snf" : "f", ar);
#endif
    const void *func = lua_topointer(L, -1);
    if (is_ours(L, S)) {
        lua_pop(L, 1);
        return;
    }
    char name[128];
    if (zoned && !ar->name && *ar->what == 'C')
        ar->name = tl_cfunction_name(S, L, ar, name, sizeof name);
    lua_pop(L, 1);
#if !POSITION_RULE && LUA_VERSION_NUM >= 502
    if (ar->event == LUA_HOOKTAILCALL) /* the replaced frame's zone is the innermost hook zone */
        end_function(co, NULL);
#endif
#if defined(TL_LUAJIT)
    if (*ar->what == 'C')
        return;
#endif
    tl_zone_reserve(L, co);
    tl_hook_zone_begin(co, zoned ? tl_srcloc_function(S, ar) : (struct tl_where){0}, func, frame);
}

static void on_return(lua_State *L, lua_Debug *ar, struct tl_co *co)
{
#if POSITION_RULE
    (void)ar;
    end_frames_from(co, call_position(L));
#else
#if LUA_VERSION_NUM == 501
    if (ar->event == LUA_HOOKTAILRET) { /* a frame a tail call replaced: the innermost hook zone */
        end_function(co, NULL);
        return;
    }
#endif
    lua_getinfo(L, "f", ar);
    const void *func = lua_topointer(L, -1);
    lua_pop(L, 1);
    end_function(co, func); /* a tracy.* function opened no zone: finds none */
#endif
}

static int is_return(const lua_Debug *ar)
{
#if LUA_VERSION_NUM == 501
    return ar->event == LUA_HOOKRET || ar->event == LUA_HOOKTAILRET;
#else
    return ar->event == LUA_HOOKRET;
#endif
}

static int is_call(const lua_Debug *ar)
{
#if LUA_VERSION_NUM == 501
    return ar->event == LUA_HOOKCALL;
#else
    return ar->event == LUA_HOOKCALL || ar->event == LUA_HOOKTAILCALL;
#endif
}

/* Are hook zones still open where lua_sethook(L) acts (LuaJIT: one hook for all threads)? */
static int hook_zones_open(struct tl_state *S, struct tl_co *co)
{
#if defined(TL_LUAJIT)
    (void)co;
    return S->hook_zones != 0;
#else
    (void)S;
    return co->nhook != 0;
#endif
}

static void hook(lua_State *L, lua_Debug *ar)
{
    struct tl_state *S = state_of(L);
    if (!S)
        return;
    struct tl_co *co = tl_self_in(S, L);
    if (is_return(ar))
        on_return(L, ar, co);
    else if (is_call(ar) && (S->hook_on || co->nhook))
        on_call(L, ar, S, co, S->hook_on && !S->off);
    if (!S->hook_on && !hook_zones_open(S, co))
        lua_sethook(L, NULL, 0, 0);
}

void tracyc_lua_hook(lua_State *L, lua_Debug *ar)
{
    struct tl_state *S = state_of(L);
    if (!S)
        return;
    S->host_hook = 1;
    struct tl_co *co = tl_self_in(S, L);
    if (is_return(ar))
        on_return(L, ar, co);
    else if (is_call(ar))
        on_call(L, ar, S, co, !S->off);
}

void tl_hook_check(lua_State *L, struct tl_co *co)
{
    if (co->S->host_hook || lua_gethook(L) == hook)
        return;
    tl_hook_zones_end(co); /* someone set another hook: our returns will not come */
#if defined(TL_LUAJIT)
    co->S->hook_on = 0;
#endif
}

static int hook_enable(lua_State *L)
{
    tl_upstate(L)->hook_on = 1;
#if defined(TL_LUAJIT)
    /* Compiled code calls no hooks, and none is compiled while a hook is set: drop it. */
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_FLUSH);
#endif
    lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
    return 0;
}

static int hook_disable(lua_State *L)
{
    struct tl_state *S = tl_upstate(L);
    S->hook_on = 0;
    if (!hook_zones_open(S, tl_self(L)) && lua_gethook(L) == hook)
        lua_sethook(L, NULL, 0, 0);
    return 0;
}

/* debug.sethook: the program's own hook replaces ours, so the calls our hook zoned will
 * not be seen returning: their zones end now. Upvalue 2 is the original. */
static int sethook(lua_State *L)
{
    struct tl_state *S = tl_upstate(L);
    int arg = lua_type(L, 1) == LUA_TTHREAD;
    lua_State *L1 = arg ? lua_tothread(L, 1) : L;
    if (!lua_isnoneornil(L, arg + 1)) {
        /* The original's checks, made here so their errors name this call as the program
         * made it; the original then cannot fail them. */
        luaL_checkstring(L, arg + 2);
        luaL_checktype(L, arg + 1, LUA_TFUNCTION);
        luaL_optinteger(L, arg + 3, 0);
    }
#if defined(TL_LUAJIT)
    (void)L1;
    if (lua_gethook(L) == hook) { /* one hook for every thread */
        tl_co_each(S, L, tl_hook_zones_end);
        S->hook_on = 0;
        lua_sethook(L, NULL, 0, 0);
    }
#else
    if (lua_gethook(L1) == hook) {
        struct tl_co *co = tl_co_find(S, L, L1);
        if (co)
            tl_hook_zones_end(co);
        lua_sethook(L1, NULL, 0, 0);
    }
#endif
    tl_enter(tl_self(L));
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 0);
    return 0;
}

void tl_install_sethook(lua_State *L)
{
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    if (tl_getfield(L, -1, "debug") == LUA_TTABLE) {
        if (tl_getfield(L, -1, "sethook") == LUA_TFUNCTION) {
            tl_push_state(L);
            lua_insert(L, -2);
            lua_pushcclosure(L, sethook, 2);
            lua_setfield(L, -2, "sethook");
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2);
}

void tl_open_hook(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"HookEnable", hook_enable},
        {"HookDisable", hook_disable},
        {NULL, NULL},
    };
    tl_push_state(L);
    tl_setfuncs(L, fns, 1);
}
