-- Plot values end to end through the in-process capture (a child interpreter writes the
-- files): integers are exported exactly, and NaN and infinity, which Tracy plots cannot
-- hold, are counted and reported rather than lost without a word.
local interpreter = arg[-1]
local integers = math.maxinteger ~= nil -- Lua 5.3+; 5.1 and LuaJIT plot numbers as doubles
local script = os.tmpname()
local f = assert(io.open(script, "w"))
f:write([[
tracy = require "tracy"
if math.maxinteger then -- integer syntax: not for 5.1's parser
  load[==[
    tracy.Plot("ints", math.maxinteger)
    tracy.Plot("ints", math.mininteger)
    tracy.Plot("ints", 3)
    tracy.Plot("mixed", (1 << 53) + 1)
    tracy.Plot("mixed", 0.5)
  ]==]()
end
tracy.Plot("odd", 0 / 0)
tracy.Plot("odd", 1 / 0)
tracy.Plot("odd", -1 / 0)
tracy.Plot("odd", 2.5)
]])
f:close()

local function capture(ext)
  local out = os.tmpname() .. ext
  assert(os.execute(("TRACYC_OUTPUT=%q %q %q"):format(out, interpreter, script)))
  local file = assert(io.open(out))
  local text = file:read("*a")
  file:close()
  os.remove(out)
  return text
end

local json = capture(".json")
local function has(s)
  assert(json:find(s, 1, true), s .. " missing from the trace")
end
if integers then
  has('"ints":9223372036854775807}')
  has('"ints":-9223372036854775808}')
  has('"ints":3}')
  has('"mixed":9007199254740993}')
  has('"mixed":0.5}')
end
has('"odd":2.5}')
has('"skipped_plot_values":3')
assert(not json:find('"odd":[^2]'), "a non-finite value was written")

local summary = capture(".txt")
assert(summary:find("!! 3 plot values were SKIPPED", 1, true), summary)
if integers then
  assert(summary:find("ints +3 +%-9223372036854775808 +9223372036854775807 +3"), summary)
end
os.remove(script)
print("test_plot_values: ok")
