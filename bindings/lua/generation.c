/* generation.c - keeping a Lua value alive until the caches that trust its address are stale.
 *
 * The hot path caches addresses Lua hands out: the function calling ZoneBegin*, the
 * lua_State of the running coroutine. A cache entry trusts that the object at that address
 * is still the one it saw, so the object must not be freed (and its memory reused) while
 * the entry is valid. Entries carry an epoch (a state's for call sites, the process-wide
 * tl_co_epoch for thread records); tl_gen_keep keeps a value alive until the epochs move.
 *
 * A kept value goes into the table of the current generation. That table's only strong
 * reference is the user value (5.1: environment) of a sentinel userdata which nothing
 * refers to but a weak-valued registry slot. The next collection finds the sentinel
 * unreachable and queues it for finalization, which marks what it refers to: the table
 * and every kept value survive that cycle. The sentinel's finalizer then moves the
 * epochs, so every entry stamped before is stale before any kept value can be freed (a
 * cycle later at the earliest). This needs no ephemerons, so it works the same on Lua 5.1,
 * LuaJIT, 5.3 and 5.4. A program pays a slow lookup per cached address per collection. */
#include "binding.h"

static const char gens_key = 0; /* registry[&gens_key] = { sentinel } (weak values) */
#define SENTINEL_META "tracyc.generation"

_Atomic unsigned tl_co_epoch;

void tl_forget_threads(void)
{
    atomic_fetch_add_explicit(&tl_co_epoch, 1, memory_order_relaxed);
}

struct sentinel {
    struct tl_state *S;
};

static int sentinel_gc(lua_State *L)
{
    struct sentinel *s = lua_touserdata(L, 1);
    /* At lua_close this may run after the state's own finalizer: S's memory lives until
     * every finalizer has run, and only its epoch is touched. */
    s->S->epoch++;
    tl_forget_threads();
    return 0;
}

/* Pushes the table of the current generation, made if the last one was finalized. */
static void push_generation(struct tl_state *S, lua_State *L)
{
    luaL_checkstack(L, 5, NULL);
    if (tl_rawgetp(L, LUA_REGISTRYINDEX, &gens_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 0);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        tl_rawsetp(L, LUA_REGISTRYINDEX, &gens_key);
    }
    if (tl_rawgeti(L, -1, 1) == LUA_TUSERDATA) {
        tl_getuservalue(L, -1); /* gens, sentinel, table */
        lua_replace(L, -3);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    struct sentinel *s = tl_newuserdata(L, sizeof *s);
    s->S = S;
    if (luaL_newmetatable(L, SENTINEL_META)) {
        lua_pushcfunction(L, sentinel_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2); /* gens, sentinel */
    lua_createtable(L, 0, 8);
    lua_pushvalue(L, -1);
    tl_setuservalue(L, -3); /* gens, sentinel, table */
    lua_insert(L, -3);
    lua_rawseti(L, -2, 1); /* table, gens */
    lua_pop(L, 1);
}

void tl_gen_keep(struct tl_state *S, lua_State *L)
{
    push_generation(S, L); /* value, table */
    lua_insert(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}
