-- The module from the interpreter (every supported Lua): its functions, argument errors,
-- ZoneEnd misuse, coroutine library behaviour kept, LuaRemove and loadfile.
local tracy = require "tracy"
assert(require "tracy" == tracy, "one table per state")
local lua54 = _VERSION == "Lua 5.4"
local lua51 = _VERSION == "Lua 5.1" -- and LuaJIT

local names = {
  "ZoneBegin", "ZoneBeginN", "ZoneBeginS", "ZoneBeginNS", "ZoneEnd", "ZoneText", "ZoneName",
  "ZoneColor", "ZoneValue", "Message", "MessageC", "SectionEnter", "SectionLeave", "Plot",
  "PlotConfig", "FrameMark", "FrameMarkStart", "FrameMarkEnd", "SetThreadName", "IsConnected",
  "AppInfo", "HookEnable", "HookDisable", "LuaRemove", "loadfile",
}
for _, name in ipairs(names) do
  assert(type(tracy[name]) == "function", name)
end

local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error: " .. pattern)
  assert(tostring(err):find(pattern, 1, true), tostring(err))
end

local function pack(...)
  return { n = select("#", ...), ... }
end

-- ZoneEnd misuse, with the caller's position
local ok, err = pcall(function() tracy.ZoneEnd() end)
assert(not ok and err:match("^test_api.lua:%d+: tracy.ZoneEnd: no open zone$"), err)
for _, fn in ipairs { "ZoneText", "ZoneName" } do
  fails("tracy." .. fn .. ": no open zone", tracy[fn], "x")
end
fails("tracy.ZoneColor: no open zone", tracy.ZoneColor, 1)
fails("tracy.ZoneValue: no open zone", tracy.ZoneValue, 1)
fails("bad argument #1", tracy.ZoneBeginN, nil)
fails("bad argument #2", tracy.ZoneBeginNS, "x", "deep")
fails("bad argument #1", tracy.ZoneColor, "red")
fails("bad argument #1", tracy.Message, {})
fails("bad argument #1", tracy.FrameMarkStart)
fails("bad argument #2", tracy.SectionEnter, "s", 70000)
-- a frame end without its start would fail the whole capture: refused
fails('tracy.FrameMarkEnd: frame set "nope" has no FrameMarkStart open', tracy.FrameMarkEnd, "nope")

-- balanced use, every function
tracy.SetThreadName("lua main")
tracy.AppInfo("test_api")
tracy.PlotConfig("mem", "memory", false, true)
tracy.ZoneBeginN("outer")
tracy.ZoneName("renamed")
tracy.ZoneColor(0x00ff00)
tracy.ZoneValue(7)
tracy.ZoneBeginS(3)
tracy.ZoneBeginNS("ns", 3)
tracy.Plot("mem", 1024)
tracy.Plot("mem", 1024.5)
tracy.MessageC("colored", 0x0000ff)
tracy.ZoneEnd()
tracy.ZoneEnd()
tracy.ZoneEnd()
tracy.FrameMark()
tracy.FrameMark("named")
tracy.FrameMarkStart("f")
tracy.FrameMarkEnd("f")
fails('tracy.FrameMarkEnd: frame set "f" has no FrameMarkStart open', tracy.FrameMarkEnd, "f")
local id = tracy.SectionEnter("s")
assert(type(id) == "number" and id == math.floor(id) and id > 0)
tracy.SectionLeave(id)
-- a section left twice, or never entered, is refused
fails("tracy.SectionLeave: section " .. id .. " is not open", tracy.SectionLeave, id)
fails("tracy.SectionLeave: section 123456 is not open", tracy.SectionLeave, 123456)
ok, err = pcall(function() tracy.SectionLeave(id) end)
assert(not ok and err:match("^test_api.lua:%d+: tracy.SectionLeave: section %d+ is not open"), err)
assert(type(tracy.IsConnected()) == "boolean")

-- the coroutine library behaves as the standard one (test_coroutine_library.lua compares
-- every message with the original functions')
local co = coroutine.create(function(a, b)
  local c = coroutine.yield(a + b)
  local v = coroutine.yield(c * 2)
  return v, "end"
end)
local r = pack(coroutine.resume(co, 1, 2))
assert(r[1] == true and r[2] == 3 and r.n == 2)
assert(select(2, coroutine.resume(co, 5)) == 10)
r = pack(coroutine.resume(co, "v"))
assert(r[1] == true and r[2] == "v" and r[3] == "end" and r.n == 3)
assert(coroutine.status(co) == "dead")
local gen = coroutine.wrap(function() error("inside") end)
ok, err = pcall(gen)
assert(not ok and err:find("test_api.lua:%d+: inside"), err)
local gen2 = coroutine.wrap(function() error({ code = 1 }) end)
ok, err = pcall(gen2)
assert(not ok and type(err) == "table" and err.code == 1)
if not lua51 or jit then -- yield across pcall: 5.2+ and LuaJIT
  local y = coroutine.wrap(function() local _, v = pcall(coroutine.yield, 1) return v end)
  assert(y() == 1 and y(2) == 2)
end
if lua54 then -- to-be-closed variables run when a suspended coroutine is closed
  local c3 = assert(load([[
    return coroutine.create(function()
      local x <close> = setmetatable({}, { __close = function() _G.closed = true end })
      coroutine.yield()
    end)]]))()
  coroutine.resume(c3)
  assert(coroutine.close(c3) == true and _G.closed == true and coroutine.status(c3) == "dead")
end

-- LuaRemove keeps results and line numbers; loadfile (profiling on) keeps the calls
local path = "fixtures/instrumented.lua"
local f = assert(io.open(path))
local text = f:read("*a")
f:close()
local stripped = tracy.LuaRemove(text)
assert(#stripped == #text and not stripped:find("tracy%.Zone"))
assert(select(2, stripped:gsub("\n", "")) == select(2, text:gsub("\n", "")))
_G.tracy = tracy
local expected = assert(loadstring or load)(text)()
assert(assert((loadstring or load)(stripped))() == expected)
assert(expected:match("boolean 22$"), expected)
assert(tracy.loadfile(path)() == expected)
local env = setmetatable({ tracy = tracy }, { __index = _G })
assert(tracy.loadfile(path, "t", env)() == expected)
local nothing, msg = tracy.loadfile("no/such/file.lua")
assert(nothing == nil and msg:find("cannot open"), msg)
nothing, msg = tracy.loadfile(path, "b")
local _, standard = loadfile(path, "b") -- 5.1's loadfile takes no mode
assert(nothing == nil and msg == (standard or "attempt to load a text chunk (mode is 'b')"), msg)
print("test_api: ok (" .. (jit and jit.version or _VERSION) .. ")")
