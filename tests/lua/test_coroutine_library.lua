-- The module replaces coroutine.resume, coroutine.wrap, coroutine.close (5.4) and
-- debug.sethook. Each case below runs once with the original functions and once with the
-- replacements, and must return or raise exactly the same, messages and positions
-- included, on whichever Lua runs this.
local original = {
  resume = coroutine.resume, wrap = coroutine.wrap, close = coroutine.close, sethook = debug.sethook,
}
local tracy = require "tracy"
local replaced = {
  resume = coroutine.resume, wrap = coroutine.wrap, close = coroutine.close, sethook = debug.sethook,
}
assert(replaced.resume ~= original.resume and replaced.wrap ~= original.wrap)
assert(replaced.sethook ~= original.sethook)
assert(type(tracy.ZoneBegin) == "function")
local unpack = table.unpack or unpack

-- Scaffolding uses the original functions, so that only the call under test differs.
local create, resume, running = coroutine.create, original.resume, coroutine.running

local function dead()
  local co = create(function() end)
  resume(co)
  return co
end

local cases = {
  { "resume a number", function(lib) return lib.resume(42) end },
  { "resume nothing", function(lib) return lib.resume() end },
  { "resume a string", function(lib) return lib.resume("co") end },
  { "resume a dead coroutine", function(lib) return lib.resume(dead()) end },
  { "resume values", function(lib)
      local co = create(function(a, b) local c = coroutine.yield(a + b, "y") return c, nil, "end" end)
      local r1 = { lib.resume(co, 1, 2) }
      local r2 = { lib.resume(co, "c") }
      local r3 = { lib.resume(co) }
      return #r1, r1[1], r1[2], r1[3], #r2, r2[1], r2[2], r2[4], r3[1], r3[2]
    end },
  { "resume the running coroutine", function(lib)
      local co = create(function() return lib.resume(running()) end)
      return resume(co)
    end },
  { "resume a normal coroutine", function(lib)
      local outer
      outer = create(function()
        local inner = create(function() return lib.resume(outer) end)
        return resume(inner)
      end)
      return resume(outer)
    end },
  { "resume one that fails", function(lib)
      return lib.resume(create(function() error("oops") end))
    end },
  { "resume one that fails with a table", function(lib)
      local ok, e = lib.resume(create(function() error({ 1 }) end))
      return ok, type(e), e[1]
    end },
  { "resume one that fails with a number", function(lib)
      return lib.resume(create(function() error(42) end))
    end },
  { "wrap a number", function(lib) return lib.wrap(42) end },
  { "wrap nothing", function(lib) return lib.wrap() end },
  { "wrap a C function", function(lib) return pcall(lib.wrap(tostring), "wrapped") end },
  { "wrapped values", function(lib)
      local g = lib.wrap(function(a) local b = coroutine.yield(a * 2) return b, "done" end)
      local x = g(21)
      local y, z = g("b")
      return x, y, z
    end },
  { "wrapped dead", function(lib)
      local g = lib.wrap(function() end)
      g()
      return g()
    end },
  { "wrapped error", function(lib) return lib.wrap(function() error("inside") end)() end },
  { "wrapped error without position", function(lib) return lib.wrap(function() error("bare", 0) end)() end },
  { "wrapped error number", function(lib) return lib.wrap(function() error(42) end)() end },
  { "wrapped error table", function(lib)
      local ok, e = pcall(lib.wrap(function() error({ 7 }) end))
      return ok, type(e), e[1]
    end },
  { "wrapped running", function(lib)
      local g
      g = lib.wrap(function() return g() end)
      return g()
    end },
  { "sethook without a mask", function(lib) return lib.sethook(function() end) end },
  { "sethook with a number", function(lib) return lib.sethook(42, "c") end },
  { "sethook with a bad count", function(lib) return lib.sethook(function() end, "c", "many") end },
  { "sethook of a thread without a hook", function(lib) return lib.sethook(create(print), nil) end },
  { "sethook and gethook", function(lib)
      local function h() end
      lib.sethook(h, "c", 0)
      local f, mask, count = debug.gethook()
      lib.sethook()
      return f == h, mask, count, debug.gethook()
    end },
}

if original.close then -- Lua 5.4
  local more = {
    { "close a number", function(lib) return lib.close(42) end },
    { "close the running coroutine", function(lib)
        return resume(create(function() return lib.close(running()) end))
      end },
    { "close the main thread", function(lib) return lib.close(running()) end },
    { "close a normal coroutine", function(lib)
        local outer
        outer = create(function()
          return resume(create(function() return lib.close(outer) end))
        end)
        return resume(outer)
      end },
    { "close dead and suspended", function(lib)
        local co = create(function() coroutine.yield() end)
        resume(co)
        return lib.close(dead()), lib.close(co), coroutine.status(co)
      end },
    { "close one that failed", function(lib)
        local co = create(function() error("failed") end)
        resume(co)
        return lib.close(co)
      end },
  }
  for _, case in ipairs(more) do
    cases[#cases + 1] = case
  end
end

-- What a case did, as one string: its results, or its error.
local function outcome(case, lib)
  local r = { pcall(case, lib) }
  local n = select("#", unpack(r))
  local parts = {}
  for i = 1, math.max(n, #r) do
    local v = r[i]
    parts[#parts + 1] = type(v) == "string" and ("%q"):format(v) or type(v) == "table" and "table"
      or type(v) == "function" and "function" or type(v) == "thread" and "thread" or tostring(v)
  end
  return table.concat(parts, ", ")
end

local failed = 0
for _, case in ipairs(cases) do
  local want, got = outcome(case[2], original), outcome(case[2], replaced)
  if want ~= got then
    failed = failed + 1
    print(("FAIL %s:\n  standard: %s\n  tracy:    %s"):format(case[1], want, got))
  end
end
debug.sethook()
assert(failed == 0, failed .. " cases differ")
print(("test_coroutine_library: %d cases ok (%s)"):format(#cases, jit and jit.version or _VERSION))
