-- End to end through the in-process capture: runs the example under lua5.4 with
-- TRACYC_OUTPUT and reads the Chrome trace it writes.
local interpreter = arg[-1]
local out = os.tmpname() .. ".json"
local cmd = ("TRACYC_OUTPUT=%q %q ../../examples/lua/game_loop.lua 40"):format(out, interpreter)
assert(os.execute(cmd), "the example failed: " .. cmd)
local f = assert(io.open(out))
local json = f:read("*a")
f:close()
os.remove(out)

local function count(pattern)
  return select(2, json:gsub(pattern, ""))
end
-- zones with their call-site lines
assert(count('"ph":"X","name":"frame"') == 40, "frames")
assert(count('"ph":"X","name":"physics"[^\n]-"line":29') == 40, "physics zones at line 29")
assert(count('"ph":"X","name":"draw entities"[^\n]-"text":"%d+ entities"') == 40, "zone text")
-- the AI's zones are on a fiber, apart from the game thread
local ai_tid = json:match('"ph":"X","name":"ai plan","pid":%d+,"tid":(%d+)')
local frame_tid = json:match('"ph":"X","name":"frame","pid":%d+,"tid":(%d+)')
assert(ai_tid and frame_tid and ai_tid ~= frame_tid, "fiber")
assert(count('"ph":"X","name":"ai plan"') == 20, "ai zones")
-- messages and plots
assert(json:find('"ph":"i","name":"game over"', 1, true), "message")
assert(count('"ph":"i","name":"spawned entity %d+"') == 1, "colored message")
assert(count('"ph":"C","name":"entities"') == 40, "plot")
assert(json:find('"unfinished_zones":0', 1, true), "every zone ended")

-- Texts keep every byte: a NUL is a character of a message, a zone text or a zone name.
local script = os.tmpname()
f = assert(io.open(script, "w"))
f:write([[
local tracy = require "tracy"
tracy.Message("message a\0b")
tracy.ZoneBeginN("zone") tracy.ZoneText("text c\0d") tracy.ZoneName("name e\0f") tracy.ZoneEnd()
]])
f:close()
cmd = ("TRACYC_OUTPUT=%q %q %q"):format(out, interpreter, script)
assert(os.execute(cmd), "the script failed: " .. cmd)
f = assert(io.open(out))
json = f:read("*a")
f:close()
os.remove(out)
os.remove(script)
assert(json:find('"ph":"i","name":"message a\\u0000b"', 1, true), "message with a NUL")
assert(json:find('"ph":"X","name":"name e\\u0000f"', 1, true), "zone name with a NUL")
assert(json:find('"text":"text c\\u0000d"', 1, true), "zone text with a NUL")
print("test_output: ok")
