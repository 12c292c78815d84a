/* fuzz_lua_remove - LuaRemove on any script text: tracyc_lua_remove works in place on a
 * buffer of exactly the script's size (ASan catches a read or write past it), keeps every
 * newline where it was, and turns a script Lua can compile into one it still compiles. */
#include "tracyc_lua.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compiles(lua_State *L, const char *text, size_t len)
{
    int ok = luaL_loadbufferx(L, text, len, "=script", "t") == LUA_OK;
    lua_pop(L, 1); /* the chunk or the message */
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    static lua_State *L;
    if (!L && !(L = luaL_newstate()))
        abort();
    char *script = malloc(len ? len : 1);
    if (len)
        memcpy(script, data, len);
    int valid = compiles(L, (const char *)data, len);
    tracyc_lua_remove(script, len);
    for (size_t i = 0; i < len; i++) {
        if ((data[i] == '\n') != (script[i] == '\n')) {
            fprintf(stderr, "LuaRemove moved a newline at byte %zu\n", i);
            abort();
        }
    }
    if (valid && !compiles(L, script, len)) {
        fprintf(stderr, "LuaRemove broke a valid script:\n--- before\n%.*s\n--- after\n%.*s\n", (int)len,
                (const char *)data, (int)len, script);
        abort();
    }
    free(script);
    lua_gc(L, LUA_GCSTEP, 0);
    return 0;
}
