/* coroutines.c - coroutine.resume, wrap and close, with each coroutine a Tracy fiber.
 *
 * resume enters the coroutine's fiber, and when lua_resume returns (a yield, the end, or
 * an error) goes back to the resumer's fiber; a coroutine that ended (returned or failed)
 * has its open zones ended and its fiber name recycled. Everything else is the behaviour
 * of the Lua it runs on, messages included: each version's coroutine library checks its
 * arguments, orders its checks and words its errors differently, and the replacements
 * follow the one they replace (#if below). Coroutines resumed some other way (lua_resume
 * from C, a resume function saved before the module was loaded) still record each event
 * in their own fiber -- every event switches lazily -- but their fiber is left only at the
 * next event of another thread, and their zones end when they are collected. */
#include "binding.h"

#include <string.h>

enum co_status { CO_RUNNING, CO_SUSPENDED, CO_NORMAL, CO_DEAD };

/* As coroutine.status tells it. */
static enum co_status status_of(lua_State *L, lua_State *co)
{
    lua_Debug ar;
    if (co == L)
        return CO_RUNNING;
    switch (lua_status(co)) {
    case LUA_YIELD:
        return CO_SUSPENDED;
    case LUA_OK:
        if (lua_getstack(co, 0, &ar))
            return CO_NORMAL;
        return lua_gettop(co) == 0 ? CO_DEAD : CO_SUSPENDED;
    default:
        return CO_DEAD;
    }
}

static int resume_thread(lua_State *co, lua_State *from, int narg, int *nres)
{
#if LUA_VERSION_NUM >= 504
    return lua_resume(co, from, narg, nres);
#else
#if LUA_VERSION_NUM == 503
    int status = lua_resume(co, from, narg);
#else
#if !defined(TL_LUAJIT)
    lua_setlevel(from, co); /* as 5.1's auxresume: C calls count across the resume */
#endif
    int status = lua_resume(co, narg);
#endif
    *nres = status == LUA_OK || status == LUA_YIELD ? lua_gettop(co) : 0;
    return status;
#endif
}

/* The checks each version's auxresume makes before resuming: 0, or -1 with the message on
 * L (raises where that version raises). */
static int check_resumable(lua_State *L, lua_State *co, int narg)
{
#if LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    static const char *const names[] = {"running", "suspended", "normal", "dead"};
    enum co_status status = status_of(L, co);
    if (!lua_checkstack(co, narg))
        luaL_error(L, "too many arguments to resume");
    if (status != CO_SUSPENDED) {
        lua_pushfstring(L, "cannot resume %s coroutine", names[status]);
        return -1;
    }
    return 0;
#elif defined(TL_LUAJIT)
    enum co_status status = status_of(L, co);
    if (status != CO_SUSPENDED) {
        lua_pushstring(L, status == CO_DEAD ? "cannot resume dead coroutine" : "cannot resume running coroutine");
        return -1;
    }
    if (!lua_checkstack(co, narg)) /* LuaJIT grows the stack or fails as out of memory */
        luaL_error(L, "stack overflow");
    return 0;
#else
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
#if LUA_VERSION_NUM == 503
    if (lua_status(co) == LUA_OK && lua_gettop(co) == 0) {
        lua_pushliteral(L, "cannot resume dead coroutine");
        return -1;
    }
#endif
    return 0; /* 5.3 and 5.4: lua_resume itself refuses what is not suspended */
#endif
}

/* Resumes co with the narg values on top of L. Returns the number of results moved to L,
 * or -1 with an error message on top of L. */
static int resume(lua_State *L, lua_State *co, int narg)
{
    if (check_resumable(L, co, narg) != 0)
        return -1;
    struct tl_state *S = tl_state_get(L);
    struct tl_co *self = tl_self_in(S, L);
    struct tl_co *target = status_of(L, co) == CO_SUSPENDED ? tl_co_get(S, L, co) : NULL;
    lua_xmove(L, co, narg);
    struct tl_co_cache saved = tl_co_last;
    if (target) {
        tl_enter(target);
        /* co is an argument of this call, so it lives while it runs: no lookup needed */
        tl_co_last = (struct tl_co_cache){co, target, tl_threads_epoch()};
    }
    int nres;
    int status = resume_thread(co, L, narg, &nres);
    if (target) {
        if (status != LUA_YIELD) /* returned or failed: it is dead */
            tl_co_finish(target);
        tl_enter(self);
        tl_co_last = saved.L == L ? saved : (struct tl_co_cache){0};
    }
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
#if LUA_VERSION_NUM == 501
            luaL_error(L, "too many results to resume");
#endif
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    return -1;
}

static int co_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
#if LUA_VERSION_NUM >= 504
    luaL_argexpected(L, co, 1, "thread");
#elif LUA_VERSION_NUM == 503
    luaL_argcheck(L, co, 1, "thread expected");
#else
    luaL_argcheck(L, co, 1, "coroutine expected");
#endif
    int r = resume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

#if LUA_VERSION_NUM >= 504
static int close_thread(lua_State *co, lua_State *L)
{
#if LUA_VERSION_RELEASE_NUM >= 50406
    return lua_closethread(co, L);
#else
    (void)L;
    return lua_resetthread(co);
#endif
}
#endif

/* The function coroutine.wrap returns; upvalue 1 is the coroutine. */
static int wrapped(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = resume(L, co, lua_gettop(L));
    if (r >= 0)
        return r;
#if LUA_VERSION_NUM >= 504
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD) { /* an error in the coroutine: close it */
        status = close_thread(co, L);
        lua_xmove(co, L, 1);
    }
    int where = status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING;
#elif LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    int where = lua_isstring(L, -1);
#else
    int where = lua_type(L, -1) == LUA_TSTRING;
#endif
    if (where) { /* the caller's position, as the standard wrap adds it */
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int co_wrap(lua_State *L)
{
#if LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    luaL_argcheck(L, lua_isfunction(L, 1) && !lua_iscfunction(L, 1), 1, "Lua function expected");
#else
    luaL_checktype(L, 1, LUA_TFUNCTION);
#endif
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, wrapped, 1);
    return 1;
}

#if LUA_VERSION_NUM >= 504
/* coroutine.close: as lcorolib's, ending the zones of the coroutine before it closes. */
static int co_close(lua_State *L)
{
    static const char *const names[] = {"running", "suspended", "normal", "dead"};
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "thread");
    enum co_status status = status_of(L, co);
    if (status != CO_SUSPENDED && status != CO_DEAD)
        return luaL_error(L, "cannot close a %s coroutine", names[status]);
    struct tl_state *S = tl_state_get(L);
    struct tl_co *rec = tl_co_find(S, L, co);
    if (rec) {
        tl_co_finish(rec);
        tl_enter(tl_self_in(S, L));
    }
    int closed = close_thread(co, L);
    if (closed == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);
    return 2;
}
#endif

void tl_install_coroutines(lua_State *L)
{
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    if (tl_getfield(L, -1, "coroutine") == LUA_TTABLE) {
        lua_pushcfunction(L, co_resume);
        lua_setfield(L, -2, "resume");
        lua_pushcfunction(L, co_wrap);
        lua_setfield(L, -2, "wrap");
#if LUA_VERSION_NUM >= 504
        lua_pushcfunction(L, co_close);
        lua_setfield(L, -2, "close");
#endif
    }
    lua_pop(L, 2);
}
