/* state.c - the binding's state per Lua state, and its record per Lua thread.
 *
 * A coroutine's record is a full userdata stored in a weak-keyed table under the thread.
 * It holds the thread as its user value, so the thread cannot be freed (and its address
 * reused) before the record's finalizer has run: a record found by address is always
 * the record of that thread. The finalizer ends the zones a coroutine left open. */
#include "binding.h"

#include <stdlib.h>

static const char state_key = 0; /* registry[&state_key] = the tl_state userdata */
static const char coros_key = 0; /* registry[&coros_key] = { [thread] = record } (weak keys) */
#define CO_META "tracyc.coroutine"

_Thread_local struct tl_co_cache tl_co_last TL_FAST_TLS;
_Atomic unsigned tl_co_epoch;

/* A record is going away: no cached pointer to it may be used from now on. */
static void forget_records(void)
{
    atomic_fetch_add_explicit(&tl_co_epoch, 1, memory_order_relaxed);
}

struct tl_co *tl_self_slow(lua_State *L)
{
    unsigned epoch = atomic_load_explicit(&tl_co_epoch, memory_order_relaxed);
    struct tl_co *co = tl_co_self(tl_upstate(L), L);
    tl_co_last = (struct tl_co_cache){L, co, epoch};
    return co;
}

static int state_gc(lua_State *L)
{
    struct tl_state *S = lua_touserdata(L, 1);
    forget_records();
    tl_co_finish(&S->main);
    free(S->main.zones);
    S->main.zones = NULL;
    S->main.cap = 0; /* a finalizer that runs after this one may still begin a zone */
    tl_srcloc_cache_free(S);
    tl_intern_cache_free(S);
    return 0;
}

static int co_gc(lua_State *L)
{
    struct tl_co *co = lua_touserdata(L, 1);
    forget_records();
    if (co->S->last == co)
        co->S->last = &co->S->main;
    const char *before = tl_fiber_now;
    const char *own = co->fiber;
    tl_co_finish(co);
    /* A finalizer runs inside whatever code allocated: leave that code's fiber as it was. */
    const char *restore = before == own ? NULL : before;
    if (tl_fiber_now != restore)
        tl_fiber_set(restore);
    free(co->zones);
    co->zones = NULL;
    return 0;
}

struct tl_state *tl_state_new(lua_State *L)
{
    struct tl_state *S = lua_newuserdatauv(L, sizeof *S, 0);
    *S = (struct tl_state){0};
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    S->main.L = lua_tothread(L, -1);
    lua_pop(L, 1);
    S->main.S = S;
    S->main.is_main = 1;
    S->last = &S->main;
    S->off = tracyc_disabled();

    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &state_key);

    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &coros_key);

    if (luaL_newmetatable(L, CO_META)) {
        lua_pushcfunction(L, co_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    return S;
}

void tl_push_state(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &state_key);
}

struct tl_state *tl_state_get(lua_State *L)
{
    tl_push_state(L);
    struct tl_state *S = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return S;
}

/* Pushes coros[T] on L. */
static void push_record(lua_State *L, lua_State *T)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &coros_key);
    if (L == T) {
        lua_pushthread(L);
    } else {
        lua_pushthread(T); /* every thread has LUA_MINSTACK free slots for C code */
        lua_xmove(T, L, 1);
    }
    lua_rawget(L, -2);
}

struct tl_co *tl_co_find(struct tl_state *S, lua_State *L, lua_State *T)
{
    if (T == S->main.L)
        return &S->main;
    if (S->last->L == T)
        return S->last;
    push_record(L, T);
    struct tl_co *co = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return co;
}

struct tl_co *tl_co_get(struct tl_state *S, lua_State *L, lua_State *T)
{
    struct tl_co *co = tl_co_find(S, L, T);
    if (!co) {
        luaL_checkstack(L, 4, NULL);
        push_record(L, T); /* coros, nil */
        lua_pop(L, 1);
        co = lua_newuserdatauv(L, sizeof *co, 1);
        *co = (struct tl_co){.L = T, .S = S};
        luaL_setmetatable(L, CO_META);
        if (L == T) {
            lua_pushthread(L);
        } else {
            lua_pushthread(T);
            lua_xmove(T, L, 1);
        }
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, -3, 1); /* record keeps its thread alive until finalized */
        lua_pushvalue(L, -2);
        lua_rawset(L, -4); /* coros[thread] = record */
        lua_pop(L, 2);
    }
    S->last = co;
    return co;
}

void tl_co_finish(struct tl_co *co)
{
    if (co->nzones) {
        tl_enter(co);
        tl_zones_end_to(co, 0);
    }
    co->nhook = 0;
    if (co->fiber) {
        tl_fiber_release(co->fiber);
        co->fiber = NULL;
    }
}
