-- A small Neovim configuration, profiled at startup by test_nvim.sh (docs/lua.md's recipe).
local settings = require "settings"
settings.apply { number = true, tabstop = 4, shiftwidth = 4, expandtab = true }
vim.api.nvim_create_autocmd("FileType", { pattern = "lua", callback = function() vim.bo.shiftwidth = 2 end })
require "vim.lsp" -- a large part of Neovim's own Lua
