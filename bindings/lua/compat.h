/* compat.h - one C API for the binding on Lua 5.1, 5.3, 5.4 and LuaJIT 2.1.
 *
 * The binding is written against Lua 5.4's API; what older versions lack is supplied
 * here under tl_ names (never under Lua's own names, which a host may define too), and
 * the few places where behaviour differs test TL_LUA_51 (5.1 and LuaJIT), TL_LUAJIT or
 * LUA_VERSION_NUM. CMake defines TRACYC_LUAJIT when it builds against LuaJIT's headers.
 */
#ifndef TRACYC_LUA_COMPAT_H
#define TRACYC_LUA_COMPAT_H

#include <lauxlib.h>
#include <lua.h>

#if defined(TRACYC_LUAJIT)
#include <luajit.h>
#define TL_LUAJIT 1
#endif

#if LUA_VERSION_NUM < 501 || LUA_VERSION_NUM == 502 || LUA_VERSION_NUM > 504
#error "the tracy Lua module supports Lua 5.1, 5.3, 5.4 and LuaJIT 2.1"
#endif

#if LUA_VERSION_NUM == 501
#define TL_LUA_51 1 /* 5.1 or LuaJIT: no integers, no ephemerons, environments */
#ifndef LUA_OK
#define LUA_OK 0
#endif
#define TL_LOADED_TABLE "_LOADED"
#else
#define TL_LOADED_TABLE LUA_LOADED_TABLE
#endif

/* lua_getfield, lua_rawget and lua_rawgeti with the type of the value pushed. */
static inline int tl_getfield(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    return lua_type(L, -1);
}

static inline int tl_rawget(lua_State *L, int idx)
{
    lua_rawget(L, idx);
    return lua_type(L, -1);
}

static inline int tl_rawgeti(lua_State *L, int idx, int n)
{
    lua_rawgeti(L, idx, n);
    return lua_type(L, -1);
}

static inline int tl_absindex(lua_State *L, int idx)
{
    return idx > 0 || idx <= LUA_REGISTRYINDEX ? idx : lua_gettop(L) + idx + 1;
}

/* registry-style access keyed by a C address */
static inline int tl_rawgetp(lua_State *L, int idx, const void *p)
{
#if TL_LUA_51
    idx = tl_absindex(L, idx);
    lua_pushlightuserdata(L, (void *)p);
    return tl_rawget(L, idx);
#else
    return lua_rawgetp(L, idx, p);
#endif
}

static inline void tl_rawsetp(lua_State *L, int idx, const void *p)
{
#if TL_LUA_51
    idx = tl_absindex(L, idx);
    lua_pushlightuserdata(L, (void *)p);
    lua_insert(L, -2);
    lua_rawset(L, idx);
#else
    lua_rawsetp(L, idx, p);
#endif
}

/* A full userdata with room for one user value (the only kind the binding makes). */
static inline void *tl_newuserdata(lua_State *L, size_t size)
{
#if LUA_VERSION_NUM >= 504
    return lua_newuserdatauv(L, size, 1);
#else
    return lua_newuserdata(L, size);
#endif
}

/* Pops a table into the user value of the userdata at idx (5.1: its environment). */
static inline void tl_setuservalue(lua_State *L, int idx)
{
#if LUA_VERSION_NUM >= 504
    lua_setiuservalue(L, idx, 1);
#elif LUA_VERSION_NUM == 503
    lua_setuservalue(L, idx);
#else
    lua_setfenv(L, idx);
#endif
}

static inline void tl_getuservalue(lua_State *L, int idx)
{
#if LUA_VERSION_NUM >= 504
    lua_getiuservalue(L, idx, 1);
#elif LUA_VERSION_NUM == 503
    lua_getuservalue(L, idx);
#else
    lua_getfenv(L, idx);
#endif
}

/* luaL_setfuncs: the functions of l into the table below the nup upvalues on the top. */
static inline void tl_setfuncs(lua_State *L, const luaL_Reg *l, int nup)
{
#if LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    luaL_checkstack(L, nup, "too many upvalues");
    for (; l->name; l++) {
        for (int i = 0; i < nup; i++)
            lua_pushvalue(L, -nup);
        lua_pushcclosure(L, l->func, nup);
        lua_setfield(L, -(nup + 2), l->name);
    }
    lua_pop(L, nup);
#else
    luaL_setfuncs(L, l, nup);
#endif
}

/* luaL_getsubtable: pushes t[k] of the table at idx, made a new table if it was none. */
static inline int tl_getsubtable(lua_State *L, int idx, const char *k)
{
    idx = tl_absindex(L, idx);
    if (tl_getfield(L, idx, k) == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, idx, k);
    return 0;
}

static inline void tl_setmetatable(lua_State *L, const char *tname)
{
    luaL_getmetatable(L, tname);
    lua_setmetatable(L, -2);
}

/* Is the number at idx an integer the plot should send as one? (5.1: no integers) */
static inline int tl_isinteger(lua_State *L, int idx)
{
#if LUA_VERSION_NUM >= 503
    return lua_isinteger(L, idx);
#else
    (void)L, (void)idx;
    return 0;
#endif
}

/* luaL_loadbufferx and luaL_loadfilex; 5.1 has no mode (NULL asks for none). */
static inline int tl_loadbufferx(lua_State *L, const char *buf, size_t len, const char *name, const char *mode)
{
#if LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    (void)mode;
    return luaL_loadbuffer(L, buf, len, name);
#else
    return luaL_loadbufferx(L, buf, len, name, mode);
#endif
}

/* The main thread of L's state, pushed; 5.1 cannot tell it from another thread, so there
 * it pushes nothing and returns 0 unless L is the main thread. */
static inline int tl_pushmainthread(lua_State *L)
{
#if TL_LUA_51
    if (lua_pushthread(L))
        return 1;
    lua_pop(L, 1);
    return 0;
#else
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    return 1;
#endif
}

/* The length of lua_Debug.source (5.4 has it in srclen). */
static inline size_t tl_srclen(const lua_Debug *ar)
{
#if LUA_VERSION_NUM >= 504
    return ar->srclen;
#else
    size_t n = 0;
    while (ar->source[n])
        n++;
    return n;
#endif
}

#endif
