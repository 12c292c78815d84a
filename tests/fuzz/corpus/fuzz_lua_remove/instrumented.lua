-- An instrumented script: its result must not depend on whether tracy calls are in it.
local results = {}
local function fib(n)
  tracy.ZoneBeginN("fib")
  local r = n < 2 and n or fib(n - 1) + fib(n - 2)
  tracy.ZoneEnd()
  return r
end
local id = tracy.SectionEnter("work")
for i = 1, 10 do
  tracy.ZoneBegin()
  tracy.ZoneText(("i = %d"):format(i))
  tracy.Plot("i", i)
  results[#results + 1] = fib(i)
  tracy.ZoneEnd()
end
tracy.SectionLeave(id)
tracy.Message [[done: tracy.ZoneEnd() here is text]]
tracy.FrameMark()
local connected = tracy.IsConnected()
results[#results + 1] = type(connected)
results[#results + 1] = debug.getinfo(1, "l").currentline
return table.concat(results, " ")
