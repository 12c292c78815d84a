/* tracyc_lua.h - the `tracy` Lua module of tracyc, for programs that embed Lua (5.1, 5.3,
 * 5.4 or LuaJIT 2.1: the header works with any of them, the library is built per Lua).
 *
 * A script loads the module with `local tracy = require "tracy"` (tracy.so, entry point
 * luaopen_tracy). A host program that embeds Lua links the static library built for its
 * Lua (CMake: tracyc_lua_lua54, tracyc_lua_lua53, tracyc_lua_lua51, tracyc_lua_luajit; it
 * brings tracyc) and calls tracyc_lua_register(L), which sets the global `tracy` as
 * upstream Tracy's tracy::LuaRegister does. docs/lua.md lists the functions.
 *
 * Both entry points also replace coroutine.resume, coroutine.wrap and (5.4)
 * coroutine.close of the state by versions that make each coroutine a Tracy fiber, and
 * debug.sethook by one that ends hook mode cleanly when the program sets its own hook.
 *
 * A lua_State must stay on one OS thread while it has open zones: Tracy requires a zone
 * to end on the thread that began it.
 */
#ifndef TRACYC_LUA_H
#define TRACYC_LUA_H

#include <stddef.h>

#include <lua.h>

#if defined(__GNUC__)
#define TRACYC_LUA_API __attribute__((visibility("default")))
#else
#define TRACYC_LUA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Pushes the `tracy` module table (the same table on every call for one state). */
TRACYC_LUA_API int luaopen_tracy(lua_State *L);

/* Sets the global `tracy` (and package.loaded.tracy) to the module table. Leaves the
 * stack as it was. */
TRACYC_LUA_API void tracyc_lua_register(lua_State *L);

/* The zones of hook mode, for a host that sets its own lua_sethook hook (upstream's
 * tracy::LuaHook): call it from that hook with every LUA_HOOKCALL, LUA_HOOKRET and
 * LUA_HOOKTAILCALL (5.1: LUA_HOOKTAILRET) event, with the hook's own ar, before using ar
 * for anything else; other events are ignored. Each call becomes a zone named and placed
 * as tracy.HookEnable() names and places it, in the calling coroutine's fiber, with the
 * same rules for returns that do not pair up (docs/lua.md). The module must be loaded in
 * the state (tracyc_lua_register). It never sets or removes a hook itself, and
 * tracy.HookEnable/HookDisable must not be used in that state. On LuaJIT, compiled code
 * calls no hook: flush it when setting yours (luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE |
 * LUAJIT_MODE_FLUSH)), and expect zones for Lua functions only. */
TRACYC_LUA_API void tracyc_lua_hook(lua_State *L, lua_Debug *ar);

/* Removes every instrumentation call `tracy.<Name>(...)` from a Lua script in place,
 * so that an instrumented script costs nothing when profiling is off (upstream's
 * tracy::LuaRemove, made safe). It follows Lua's lexical rules: calls inside strings and
 * comments stay, `x.tracy.Name()` and `mytracy.Name()` stay, arguments may hold strings,
 * comments and nested parentheses and span lines. Every newline is kept, so line numbers
 * do not move. A call used as a statement becomes `do end` and spaces (valid anywhere in
 * every Lua); a call used as a value, a table constructor's field included, becomes a
 * value (`0` for SectionEnter, `false` for IsConnected, otherwise `nil`). A
 * call whose result is indexed or called again (`tracy.X().y`) is left as is. Reads and
 * writes only script[0 .. len-1]; the script need not be NUL-terminated. */
TRACYC_LUA_API void tracyc_lua_remove(char *script, size_t len);

#ifdef __cplusplus
}
#endif

#endif
