-- The `tracy` module of tracyc for Lua 5.1, 5.3, 5.4 and LuaJIT 2.1. From the repository
-- root, for the Lua that LuaRocks targets:
--   luarocks --lua-version 5.4 make bindings/lua/tracy-scm-1.rockspec
--   luarocks --lua-version 5.1 make bindings/lua/tracy-scm-1.rockspec      (PUC Lua 5.1)
--   luarocks --lua-version 5.1 LUA_INCDIR=/usr/include/luajit-2.1 make bindings/lua/tracy-scm-1.rockspec
--                                                                          (LuaJIT: its headers)
-- The module is built against the headers in LuaRocks' LUA_INCDIR, its version (and
-- LuaJIT, by luajit.h) read from them. Needs a C11 compiler, CMake >= 3.16, pkg-config,
-- liblz4 and that Lua's headers (Debian: liblz4-dev and liblua5.4-dev, liblua5.3-dev,
-- liblua5.1-0-dev or libluajit-5.1-dev).
rockspec_format = "3.0"
package = "tracy"
version = "scm-1"
source = {
   url = "git+https://github.com/tracyc/tracyc.git",
}
description = {
   summary = "Tracy profiler client for Lua 5.1, 5.3, 5.4 and LuaJIT, in pure C (tracyc)",
   detailed = [[
      require "tracy" gives upstream Tracy's Lua API (ZoneBegin, ZoneBeginN, ZoneEnd, ZoneText,
      Message, ...) plus plots, frame marks, colours, hook mode, coroutines as fibers and a safe
      LuaRemove. Source locations are interned, so a hot zone allocates nothing. Profiles go to
      the Tracy GUI (protocol 82, Tracy 0.14.0) or, with TRACYC_OUTPUT=trace.json, to a file
      written by the program itself.
   ]],
   license = "BSD-3-Clause",
   labels = { "profiler", "tracy" },
}
dependencies = {
   "lua >= 5.1, < 5.5",
}
-- Only the module is built and installed, with tracyc linked into it.
build = {
   type = "command",
   build_command = [[
      cmake -S . -B build.luarocks -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF \
         -DTRACYC_BUILD_BENCH=OFF -DTRACYC_LUA_INCLUDE_DIR="$(LUA_INCDIR)" -DCMAKE_C_COMPILER="$(CC)" &&
      cmake --build build.luarocks --target tracy_lua_module &&
      cp build.luarocks/lua/*/tracy.so build.luarocks/tracy.so
   ]],
   install = {
      lib = { tracy = "build.luarocks/tracy.so" },
   },
}
