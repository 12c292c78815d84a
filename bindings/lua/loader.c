/* loader.c - tracy.loadfile: load an instrumented script, stripped when profiling is off.
 *
 * With profiling on it is loadfile. With the library inert (TRACYC_DISABLE=1) the
 * script's tracy.* calls are removed before it is compiled, so instrumentation costs
 * nothing at all; chunk name and line numbers stay those of the file. */
#include "binding.h"
#include "tracyc_lua.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Pushes the text of the file at path as a full userdata; its size in *len. On error
 * pushes a message and returns LUA_ERRFILE. */
static int read_file(lua_State *L, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        lua_pushfstring(L, "cannot open %s: %s", path, strerror(errno));
        return LUA_ERRFILE;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n;
    do {
        char *p = luaL_prepbuffer(&b);
        n = fread(p, 1, LUAL_BUFFERSIZE, f);
        luaL_addsize(&b, n);
    } while (n == LUAL_BUFFERSIZE);
    int failed = ferror(f);
    fclose(f);
    luaL_pushresult(&b);
    if (failed) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot read %s", path);
        return LUA_ERRFILE;
    }
    const char *text = lua_tolstring(L, -1, len);
    memcpy(lua_newuserdata(L, *len ? *len : 1), text, *len); /* a copy we may edit */
    lua_remove(L, -2);
    return LUA_OK;
}

/* As Lua 5.2+ checks a load's mode: 0, or -1 with the message pushed. */
static int check_mode(lua_State *L, const char *mode, int binary)
{
    if (!mode || strchr(mode, binary ? 'b' : 't'))
        return 0;
    lua_pushfstring(L, "attempt to load a %s chunk (mode is '%s')", binary ? "binary" : "text", mode);
    return -1;
}

/* Loads the file at path as loadfile does, with its tracy.* calls removed first if strip
 * is set. Pushes the chunk, or a message and returns an error status. */
static int load_file(lua_State *L, const char *path, const char *mode, int strip)
{
    size_t len;
    if (read_file(L, path, &len) != LUA_OK)
        return LUA_ERRFILE;
    char *text = lua_touserdata(L, -1);
    size_t start = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte order mark, as loadfile skips */
        start = 3;
    int binary = start < len && text[start] == LUA_SIGNATURE[0];
    if (!binary && start < len && text[start] == '#') /* "#!" line: blank it, keep its newline */
        for (size_t i = start; i < len && text[i] != '\n'; i++)
            text[i] = ' ';
    if (!binary && strip)
        tracyc_lua_remove(text + start, len - start);
    if (check_mode(L, mode, binary) != 0) {
        lua_remove(L, -2);
        return LUA_ERRSYNTAX;
    }
    lua_pushfstring(L, "@%s", path);
    int status = tl_loadbufferx(L, text + start, len - start, lua_tostring(L, -1), mode);
    lua_replace(L, -3); /* the chunk (or message) replaces the text */
    lua_pop(L, 1);
    return status;
}

static int loadfile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, NULL);
    int has_env = !lua_isnone(L, 3);
    lua_settop(L, 3);
    int strip = tl_upstate(L)->off;
#if LUA_VERSION_NUM == 501 && !defined(TL_LUAJIT)
    int status = load_file(L, path, mode, strip); /* 5.1's loader takes no mode */
#else
    int status = strip ? load_file(L, path, mode, 1) : luaL_loadfilex(L, path, mode);
#endif
    if (status != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env) { /* as load/loadfile: env becomes the chunk's first upvalue, _ENV */
#if TL_LUA_51
        if (!lua_isnil(L, 3)) { /* 5.1 and LuaJIT: the chunk's environment */
            luaL_checktype(L, 3, LUA_TTABLE);
            lua_pushvalue(L, 3);
            lua_setfenv(L, -2);
        }
#else
        lua_pushvalue(L, 3);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
#endif
    }
    return 1;
}

void tl_open_loader(lua_State *L)
{
    tl_push_state(L);
    lua_pushcclosure(L, loadfile, 1);
    lua_setfield(L, -2, "loadfile");
}
