/* state.c - the binding's state per Lua state, and its record per Lua thread.
 *
 * A coroutine's record is a full userdata, the value of its thread in a weak-keyed table.
 * It does not refer to its thread (on 5.1 and LuaJIT, whose weak tables are not
 * ephemerons, that would keep the thread alive for ever), so a thread is collected as
 * usual and its record finalized then, which ends the zones the coroutine left open. A
 * record is found by looking its thread up in the table; only the one-entry cache
 * tl_co_last goes by address, and generation.c keeps the threads it names alive until
 * its epoch moves. */
#include "binding.h"

#include <stdlib.h>

static const char state_key = 0; /* registry[&state_key] = the tl_state userdata */
static const char coros_key = 0; /* registry[&coros_key] = { [thread] = record } (weak keys) */
#define CO_META "tracyc.coroutine"

_Thread_local struct tl_co_cache tl_co_last TL_FAST_TLS;

struct tl_co *tl_self_slow(struct tl_state *S, lua_State *L)
{
    unsigned epoch = tl_threads_epoch();
    struct tl_co *co = tl_co_get(S, L, L);
    if (!co->is_main) { /* a coroutine may be collected: keep it until the epoch moves */
        lua_pushthread(L);
        tl_gen_keep(S, L);
    }
    tl_co_last = (struct tl_co_cache){L, co, epoch};
    return co;
}

static int state_gc(lua_State *L)
{
    struct tl_state *S = lua_touserdata(L, 1);
    tl_forget_threads();
    tl_co_finish(&S->main);
    free(S->main.zones);
    S->main.zones = NULL;
    S->main.cap = 0; /* a finalizer that runs after this one may still begin a zone */
    tl_srcloc_cache_free(S);
    tl_intern_cache_free(S);
    tl_cnames_free(S);
    return 0;
}

static int co_gc(lua_State *L)
{
    struct tl_co *co = lua_touserdata(L, 1);
    tl_forget_threads();
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
    struct tl_state *S = tl_newuserdata(L, sizeof *S);
    *S = (struct tl_state){0};
    if (tl_pushmainthread(L)) {
        S->main.L = lua_tothread(L, -1);
        lua_pop(L, 1);
    }
    S->main.S = S;
    S->main.is_main = 1;
    S->off = tracyc_disabled();

    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    tl_rawsetp(L, LUA_REGISTRYINDEX, &state_key);

    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    tl_rawsetp(L, LUA_REGISTRYINDEX, &coros_key);

    if (luaL_newmetatable(L, CO_META)) {
        lua_pushcfunction(L, co_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    return S;
}

void tl_push_state(lua_State *L)
{
    tl_rawgetp(L, LUA_REGISTRYINDEX, &state_key);
}

struct tl_state *tl_state_get(lua_State *L)
{
    tl_push_state(L);
    struct tl_state *S = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return S;
}

/* Pushes thread T on L. */
static void push_thread(lua_State *L, lua_State *T)
{
    if (L == T) {
        lua_pushthread(L);
    } else {
        lua_pushthread(T); /* every thread has LUA_MINSTACK free slots for C code */
        lua_xmove(T, L, 1);
    }
}

/* Is T the main thread? Only 5.1 needs to ask: elsewhere main.L is known from the start. */
static int is_main(struct tl_state *S, lua_State *T)
{
    if (S->main.L)
        return T == S->main.L;
    int main = lua_pushthread(T);
    lua_pop(T, 1);
    if (main)
        S->main.L = T;
    return main;
}

struct tl_co *tl_co_find(struct tl_state *S, lua_State *L, lua_State *T)
{
    if (is_main(S, T))
        return &S->main;
    luaL_checkstack(L, 3, NULL);
    tl_rawgetp(L, LUA_REGISTRYINDEX, &coros_key);
    push_thread(L, T);
    lua_rawget(L, -2);
    struct tl_co *co = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return co;
}

struct tl_co *tl_co_get(struct tl_state *S, lua_State *L, lua_State *T)
{
    struct tl_co *co = tl_co_find(S, L, T);
    if (co)
        return co;
    luaL_checkstack(L, 4, NULL);
    tl_rawgetp(L, LUA_REGISTRYINDEX, &coros_key);
    push_thread(L, T);
    co = tl_newuserdata(L, sizeof *co);
    *co = (struct tl_co){.L = T, .S = S};
    tl_setmetatable(L, CO_META);
    lua_rawset(L, -3); /* coros[thread] = record */
    lua_pop(L, 1);
    return co;
}

void tl_co_each(struct tl_state *S, lua_State *L, void (*f)(struct tl_co *co))
{
    f(&S->main);
    luaL_checkstack(L, 3, NULL);
    tl_rawgetp(L, LUA_REGISTRYINDEX, &coros_key);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        struct tl_co *co = lua_touserdata(L, -1);
        if (co)
            f(co);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

void tl_co_finish(struct tl_co *co)
{
    if (co->nzones) {
        tl_enter(co);
        tl_zones_end_to(co, 0);
    }
    if (co->fiber) {
        tl_fiber_release(co->fiber);
        co->fiber = NULL;
    }
}
