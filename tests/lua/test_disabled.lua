-- With TRACYC_DISABLE=1 (set by the test): every function still works and pairs, and
-- tracy.loadfile strips the instrumentation before compiling.
local tracy = require "tracy"
tracy.ZoneBeginN("inert")
tracy.ZoneText("ignored")
tracy.ZoneEnd()
local ok, err = pcall(tracy.ZoneEnd)
assert(not ok and err:find("no open zone"), err)
assert(tracy.IsConnected() == false)
-- nothing is recorded: the section is 0, and leaving it pairs
local section = tracy.SectionEnter("inert")
assert(section == 0)
tracy.SectionLeave(section)

-- Any access to `tracy` from the stripped chunk would raise.
local trap = setmetatable({}, { __index = function(_, k) error("tracy." .. k .. " was not removed") end })
local env = setmetatable({ tracy = trap }, { __index = _G })
local chunk = assert(tracy.loadfile("fixtures/instrumented.lua", "t", env))
local result = chunk()
assert(result:match("^1 1 2 3 5 8 13 21 34 55 boolean 22$"), result)

-- Errors keep their line numbers.
local path = os.tmpname()
local f = assert(io.open(path, "w"))
f:write("#!/usr/bin/env lua\ntracy.Message(\n'x')\nlocal t = nil\nreturn t.field\n")
f:close()
local broken = assert(tracy.loadfile(path, "t", env))
ok, err = pcall(broken)
os.remove(path)
assert(not ok and err:find(":5: attempt to index"), err)
print("test_disabled: ok")
