#!/usr/bin/env bash
# docs/lua.md's Neovim recipes, run for real on Neovim (LuaJIT) with the in-process capture:
#   test_nvim.sh NVIM MODULE_DIR    (MODULE_DIR holds the LuaJIT tracy.so)
# 1. a Lua file with manual zones, loaded with -u NONE -c 'luafile ...';
# 2. a configuration's startup in hook mode (--cmd enables it before the config loads).
set -uo pipefail
nvim=$1 modules=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LUA_CPATH="$modules/?.so;;" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
fail=0
check() { grep -q -- "$2" "$1" || { echo "FAIL: $1 lacks: $2"; fail=1; }; }

TRACYC_OUTPUT="$work/file.txt" "$nvim" --headless -u NONE -c "luafile $here/profile.lua" -c q ||
  { echo "FAIL: nvim exited with $?"; fail=1; }
check "$work/file.txt" "^ *177 .* fib  profile.lua:4$"
check "$work/file.txt" "buffer work  profile.lua:9"
check "$work/file.txt" "^  lines  *1 *1001 *1001 *1001$"

# (Tracy's CSV statistics, every zone: the summary lists the top 20 by time, where the
# config's small functions rank near the cut and fell out of it one run in five.)
XDG_CONFIG_HOME="$here/config_home" TRACYC_OUTPUT="$work/startup.csv" \
  "$nvim" --headless --cmd 'lua require("tracy").HookEnable()' -c 'qa!' ||
  { echo "FAIL: nvim exited with $?"; fail=1; }
check "$work/startup.csv" "^main chunk,[^,]*/init.lua,0,"
check "$work/startup.csv" "^apply,[^,]*/settings.lua,7,"
check "$work/startup.csv" "^set,[^,]*/settings.lua,3,[0-9]*,[0-9.]*,4,"
check "$work/startup.csv" "^main chunk,[^,]*/lsp.lua,0,"
[ $fail = 0 ] && echo "test_nvim: ok" && head -5 "$work/startup.csv"
exit $fail
