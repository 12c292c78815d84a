#!/usr/bin/env bash
# An event's whole cost: the process CPU of a zone pair, counting the recording thread AND
# the worker's conversion, compression and sending, tracyc against upstream Tracy 0.14 in
# the same run, in C (bench/zone_cost.c) and in Lua (bench/lua: tracy.ZoneBeginN +
# ZoneEnd, on each Lua the module was built for, against upstream's own TracyLua).
#
#   bench/event_cost.sh [BUILD_DIR]      (ROUNDS=N, default 5; PAIRS=N, default 1000000)
#
# Each run is one process with a tracyc-capture connected and draining: clock() (every
# thread of the process) from just before a loop of PAIRS pairs on one thread to the
# moment the process has gone quiet after it, its worker having sent everything
# (bench/bench_whole.h: 30 ms in a row under 2 % of a CPU; the quiet is not counted).
# Rounds interleave tracyc and upstream; the figures are medians, with their range, and
# the ratio of the medians. Both clients run with sampling and system tracing off
# (TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 TRACY_NO_CONTEXT_SWITCH=1), so the figure is
# the event's alone.
#
# Upstream is built from UPSTREAM_TRACY_INCLUDE (its public/ directory): C against
# UPSTREAM_TRACY_LIB's libTracyClient.so (TRACY_MANUAL_LIFETIME, TRACY_DELAYED_INIT), Lua
# with TracyClient.cpp compiled in (bench/lua/upstream_lua_host.cpp). Without them only
# tracyc's figures are printed. BEFORE_BUILD=DIR (another build directory of tracyc, its
# bench/ built) adds that build's runs to the same rounds: before and after a change.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
rounds=${ROUNDS:-5}
pairs=${PAIRS:-1000000}
if [ ! -x "$build/bench/bench_zone_cost" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" >/dev/null
fi
capture="$build/tools/tracyc-capture"
export TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 TRACY_NO_CONTEXT_SWITCH=1

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# whole PROGRAM ARGS... : its "process N ns" with a tracyc-capture draining it.
whole() {
  local port out pid
  port=$(free_port)
  out=$(mktemp --suffix=.txt)
  TRACY_PORT=$port "$@" >"$out.log" &
  pid=$!
  "$capture" -a 127.0.0.1 -p "$port" -o "$out" -f >/dev/null 2>&1 || true
  wait "$pid" || true
  awk '/whole cost/ {for (i = 1; i <= NF; i++) if ($i == "process") print $(i+1)}' "$out.log"
  rm -f "$out" "$out.log"
}

up="$build/bench/upstream"
upstream_defs="-DTRACY_ENABLE -DTRACY_NO_BROADCAST -DTRACY_ONLY_LOCALHOST -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT"
up_c="" up_client=""
if [ -n "${UPSTREAM_TRACY_INCLUDE:-}" ]; then
  mkdir -p "$up"
  if [ -n "${UPSTREAM_TRACY_LIB:-}" ]; then
    cc -O2 -DTRACY_ENABLE -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT -I"$UPSTREAM_TRACY_INCLUDE" \
      -fno-optimize-sibling-calls -fomit-frame-pointer bench/zone_cost.c -o "$up/zone_cost" \
      -L"$UPSTREAM_TRACY_LIB" -lTracyClient -lpthread -Wl,-rpath,"$UPSTREAM_TRACY_LIB" && up_c="$up/zone_cost"
  fi
  if command -v g++ >/dev/null; then
    [ -s "$up/TracyClient.o" ] || g++ -O2 $upstream_defs -I"$UPSTREAM_TRACY_INCLUDE" \
      -c "$UPSTREAM_TRACY_INCLUDE/TracyClient.cpp" -o "$up/TracyClient.o"
    [ -s "$up/TracyClient.o" ] && up_client="$up/TracyClient.o"
  fi
fi
lua_pkg() { case $1 in luajit) echo luajit ;; lua5*) echo "lua5.${1#lua5}" ;; esac; }

# The benchmarks: NAME|tracyc command|before command|upstream command (empty: none).
benches=()
before_c=""
[ -n "${BEFORE_BUILD:-}" ] && before_c="$BEFORE_BUILD/bench/bench_zone_cost before $pairs whole"
benches+=("C zone pair|$build/bench/bench_zone_cost tracyc $pairs whole|$before_c|${up_c:+$up_c upstream $pairs whole}")
for lua_bench in "$build"/bench/lua/bench_lua_zones_*; do
  [ -x "$lua_bench" ] || continue
  id=${lua_bench##*_}
  pkg=$(lua_pkg "$id")
  host=""
  if [ -n "$up_client" ] && pkg-config --exists "$pkg"; then
    host="$up/lua_host_$id"
    g++ -O2 $upstream_defs -I"$UPSTREAM_TRACY_INCLUDE" -Ibench/lua $(pkg-config --cflags "$pkg") \
      bench/lua/upstream_lua_host.cpp "$up_client" -o "$host" $(pkg-config --libs "$pkg") -lpthread -ldl || host=""
  fi
  before=""
  [ -n "${BEFORE_BUILD:-}" ] && [ -x "$BEFORE_BUILD/bench/lua/${lua_bench##*/}" ] &&
    before="$BEFORE_BUILD/bench/lua/${lua_bench##*/} --whole $pairs"
  benches+=("Lua $pkg zone pair|$lua_bench --whole $pairs|$before|${host:+$host --whole $pairs}")
done

# median and range of a list of numbers
stats() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[++n] = $1} END {if (!n) {print "- - -"; exit}
  print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[1], v[n]}'; }

echo "whole cost of an event: process CPU ns per zone pair, loop + worker until everything is sent;"
echo "$pairs pairs, $rounds interleaved rounds, median [range]; sampling and system tracing off in both"
printf "  %-22s %22s %22s %22s %8s %8s\n" "" tracyc before upstream /before /upstream
for b in "${benches[@]}"; do
  IFS='|' read -r name ours before theirs <<<"$b"
  t="" p="" u=""
  for round in $(seq "$rounds"); do
    t="$t $(whole $ours)"
    [ -n "$before" ] && p="$p $(whole $before)"
    [ -n "$theirs" ] && u="$u $(whole $theirs)"
  done
  read -r tm tl th <<<"$(echo "$t" | stats)"
  read -r pm pl ph <<<"$(echo "$p" | stats)"
  read -r um ul uh <<<"$(echo "$u" | stats)"
  awk -v n="$name" -v tm="$tm" -v tl="$tl" -v th="$th" -v pm="$pm" -v pl="$pl" -v ph="$ph" \
    -v um="$um" -v ul="$ul" -v uh="$uh" 'function f(m, l, h) {return m == "-" ? "-" : sprintf("%.1f [%.0f-%.0f]", m, l, h)}
    function r(a, b) {return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2f", a / b)}
    BEGIN {printf "  %-22s %22s %22s %22s %8s %8s\n", n, f(tm, tl, th), f(pm, pl, ph), f(um, ul, uh), r(tm, pm), r(tm, um)}'
done
echo "  (target: tracyc <= 0.5 x upstream, C and Lua)"
