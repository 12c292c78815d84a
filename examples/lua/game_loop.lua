-- A small game loop instrumented with tracy: frames, zones, plots, messages, and an
-- enemy AI running as a coroutine (its zones appear on their own fiber timeline).
--
-- In-process capture, no server:
--   TRACYC_OUTPUT=trace.json LUA_CPATH='build/release/lua/5.4/?.so' lua5.4 examples/lua/game_loop.lua
-- Live with the Tracy GUI (connect to 127.0.0.1; the script waits for it at exit):
--   TRACY_NO_EXIT=1 LUA_CPATH='build/release/lua/5.4/?.so' lua5.4 examples/lua/game_loop.lua 600
local tracy = require "tracy"

local frames = tonumber(arg and arg[1]) or 120

tracy.AppInfo("tracyc Lua example: game_loop.lua")
tracy.SetThreadName("game")
tracy.PlotConfig("entities", "number", true, true, 0x33aa55)
tracy.PlotConfig("frame work", "percentage", false, true)

local entities = {}
for i = 1, 200 do
  entities[i] = { x = i, y = 0, vx = (i % 7) - 3, vy = (i % 5) - 2 }
end

local function spin(n) -- stands in for real work
  local s = 0
  for i = 1, n do s = s + i % 3 end
  return s
end

local function update_physics(dt)
  tracy.ZoneBeginN("physics")
  for _, e in ipairs(entities) do
    e.x, e.y = e.x + e.vx * dt, e.y + e.vy * dt
  end
  tracy.ZoneEnd()
end

local function render()
  tracy.ZoneBeginN("render")
  tracy.ZoneBeginN("draw entities")
  spin(20000)
  tracy.ZoneText(("%d entities"):format(#entities))
  tracy.ZoneEnd()
  tracy.ZoneBeginN("present")
  spin(5000)
  tracy.ZoneEnd()
  tracy.ZoneEnd()
end

-- The AI thinks across frames: it yields in the middle of a zone, which stays open on
-- the coroutine's fiber while the main loop goes on.
local ai = coroutine.wrap(function()
  while true do
    tracy.ZoneBeginN("ai plan")
    spin(8000)
    coroutine.yield()
    spin(8000)
    tracy.ZoneEnd()
    coroutine.yield()
  end
end)

for frame = 1, frames do
  tracy.ZoneBeginN("frame")
  tracy.ZoneValue(frame)
  update_physics(1 / 60)
  ai()
  render()
  if frame % 30 == 0 then
    entities[#entities + 1] = { x = 0, y = 0, vx = 1, vy = 1 }
    tracy.MessageC(("spawned entity %d"):format(#entities), 0xffaa00)
  end
  tracy.Plot("entities", #entities)
  tracy.Plot("frame work", 40 + 20 * math.sin(frame / 10))
  tracy.ZoneEnd()
  tracy.FrameMark()
end
tracy.Message("game over")
