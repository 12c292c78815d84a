-- The `tracy` module of tracyc for Lua 5.4. From the repository root:
--   luarocks --lua-version 5.4 make bindings/lua/tracy-scm-1.rockspec
-- Builds with CMake; needs a C11 compiler, CMake >= 3.16, pkg-config, liblz4 and Lua 5.4's
-- headers (Debian: liblua5.4-dev liblz4-dev).
rockspec_format = "3.0"
package = "tracy"
version = "scm-1"
source = {
   url = "git+https://github.com/tracyc/tracyc.git",
}
description = {
   summary = "Tracy profiler client for Lua 5.4, in pure C (tracyc)",
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
   "lua >= 5.4, < 5.5",
}
-- Only the module is built and installed, with tracyc linked into it.
build = {
   type = "command",
   build_command = [[
      cmake -S . -B build.luarocks -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF \
         -DTRACYC_BUILD_BENCH=OFF -DCMAKE_C_COMPILER="$(CC)" &&
      cmake --build build.luarocks --target tracy_lua_module
   ]],
   install = {
      lib = { tracy = "build.luarocks/lua/tracy.so" },
   },
}
