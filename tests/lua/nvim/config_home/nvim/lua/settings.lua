local M = {}

local function set(name, value)
  vim.o[name] = value
end

function M.apply(options)
  local names = vim.tbl_keys(options)
  table.sort(names)
  for _, name in ipairs(names) do
    set(name, options[name])
  end
end

return M
