/* coroutines.c - coroutine.resume, wrap and close, with each coroutine a Tracy fiber.
 *
 * resume enters the coroutine's fiber, and when lua_resume returns (a yield, the end, or
 * an error) goes back to the resumer's fiber; a coroutine that died has its open zones
 * ended and its fiber name recycled. Everything else is lcorolib's behaviour, messages
 * included. Coroutines resumed some other way (lua_resume from C, a resume function
 * saved before the module was loaded) still record each event in their own fiber -- every
 * event switches lazily -- but their fiber is left only at the next event of another
 * thread, and their zones end when they are collected. */
#include "binding.h"

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

/* Resumes co with the narg values on top of L. Returns the number of results moved to L,
 * or -1 with an error message on top of L. */
static int resume(lua_State *L, lua_State *co, int narg)
{
    struct tl_state *S = tl_state_get(L);
    struct tl_co *self = tl_co_self(S, L);
    struct tl_co *target = status_of(L, co) == CO_SUSPENDED ? tl_co_get(S, L, co) : NULL;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    if (target)
        tl_enter(target);
    int nres;
    int status = lua_resume(co, L, narg, &nres);
    if (target) {
        if (status_of(L, co) == CO_DEAD)
            tl_co_finish(target);
        tl_enter(self);
        S->last = self; /* the resumer runs next: no lookup for its next event */
    }
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
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
    luaL_argexpected(L, co, 1, "coroutine");
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

static int close_thread(lua_State *co, lua_State *L)
{
#if LUA_VERSION_RELEASE_NUM >= 50406
    return lua_closethread(co, L);
#else
    (void)L;
    return lua_resetthread(co);
#endif
}

/* The function coroutine.wrap returns; upvalue 1 is the coroutine. */
static int wrapped(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = resume(L, co, lua_gettop(L));
    if (r >= 0)
        return r;
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD) { /* an error in the coroutine: close it */
        status = close_thread(co, L);
        lua_xmove(co, L, 1);
    }
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int co_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, wrapped, 1);
    return 1;
}

/* coroutine.close: ends the zones of a suspended or dead coroutine, then calls the
 * original (upvalue 1), which checks the argument and runs pending to-be-closed
 * variables. */
static int co_close(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    enum co_status status = co ? status_of(L, co) : CO_RUNNING;
    if (status == CO_SUSPENDED || status == CO_DEAD) {
        struct tl_state *S = tl_state_get(L);
        struct tl_co *rec = tl_co_find(S, L, co);
        if (rec) {
            tl_co_finish(rec);
            tl_enter(tl_co_self(S, L));
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void tl_install_coroutines(lua_State *L)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "coroutine") == LUA_TTABLE) {
        lua_pushcfunction(L, co_resume);
        lua_setfield(L, -2, "resume");
        lua_pushcfunction(L, co_wrap);
        lua_setfield(L, -2, "wrap");
        lua_getfield(L, -1, "close");
        lua_pushcclosure(L, co_close, 1);
        lua_setfield(L, -2, "close");
    }
    lua_pop(L, 2);
}
