-- Profiles a piece of Lua in Neovim with manual zones: `nvim --headless -u NONE -c 'luafile profile.lua' -c q`.
local tracy = require "tracy"
local function fib(n)
  tracy.ZoneBeginN "fib"
  local r = n < 2 and n or fib(n - 1) + fib(n - 2)
  tracy.ZoneEnd()
  return r
end
tracy.ZoneBeginN "buffer work"
local buf = vim.api.nvim_create_buf(false, true)
vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(("line\n"):rep(1000), "\n"))
tracy.Plot("lines", vim.api.nvim_buf_line_count(buf))
tracy.ZoneEnd()
fib(10)
