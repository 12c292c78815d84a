/* module.c - the module table: luaopen_tracy and tracyc_lua_register. */
#include "binding.h"
#include "tracyc_lua.h"

static const char module_key = 0; /* registry[&module_key] = the table, made once per state */

int luaopen_tracy(lua_State *L)
{
    if (tl_rawgetp(L, LUA_REGISTRYINDEX, &module_key) == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    tl_state_new(L);
    lua_pop(L, 1);
    lua_createtable(L, 0, 40);
    tl_open_zones(L);
    tl_open_events(L);
    tl_open_hook(L);
    tl_open_remove(L);
    tl_open_loader(L);
    lua_pushvalue(L, -1);
    tl_rawsetp(L, LUA_REGISTRYINDEX, &module_key);
    tl_install_coroutines(L);
    tl_install_sethook(L);
    return 1;
}

void tracyc_lua_register(lua_State *L)
{
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    luaopen_tracy(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "tracy"); /* so that scripts may also require "tracy" */
    lua_setglobal(L, "tracy");
    lua_pop(L, 1);
}
