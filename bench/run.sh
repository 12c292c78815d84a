#!/usr/bin/env bash
# Runs the benchmarks and prints their figures with ratios against baselines measured
# in the same run.
#
#   bench/run.sh [BUILD_DIR]
#
# With UPSTREAM_TRACY_INCLUDE=/path/to/tracy/public and UPSTREAM_TRACY_LIB=/dir holding
# a libTracyClient.so of upstream Tracy 0.14 built with TRACY_MANUAL_LIFETIME and
# TRACY_DELAYED_INIT, the zone-cost and throughput benchmarks are also built from the
# same source against upstream's client and compared. UPSTREAM_TRACY_INCLUDE alone is
# enough for the Lua comparison, which compiles upstream's TracyClient.cpp in. Nothing
# of upstream is part of this repository.
#
# bench/event_cost.sh: an event's whole cost (the recording thread plus the worker's
# conversion, compression and sending, as process CPU), C and Lua, against upstream.
#
# bench/capture_live.sh: whether the capture keeps up with a client, per output format (a real
# client's zones into a live tracyc-capture, and a recorded stream decoded into each output).
#
# With CAPTURE_SCALE=1, also bench/capture_scale.sh: tracyc-capture's peak memory, time and
# events/s recording a synthetic client at 10 M and 200 M zones for each output format (and
# upstream's tracy-capture on the same streams, given UPSTREAM_TRACY_CAPTURE). It takes tens
# of minutes and, for the 200 M zones' JSON, some 35 GB of disk for a while: its header says
# how to choose the counts, formats and directory. With COLLECT_SCALE=1, bench/collect_scale.sh:
# 64 processes x 200,000 zones into one tracyc-capture --listen, its CPU time and peak memory
# (and upstream's way, one tracy-capture per process, given UPSTREAM_TRACY_CAPTURE).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_symbol_cache >/dev/null # not in the default build
capture="$build/tools/tracyc-capture"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run_with_capture LABEL PROGRAM ARGS... : the program and a tracyc-capture draining it.
run_with_capture() {
  local port out pid rc
  shift # the label only names the run
  port=$(free_port)
  out=$(mktemp --suffix=.txt)
  TRACY_PORT=$port "$@" &
  pid=$!
  "$capture" -a 127.0.0.1 -p "$port" -o "$out" -f >/dev/null 2>&1 || true
  wait "$pid"; rc=$?
  rm -f "$out"
  return $rc
}

if [ -n "${UPSTREAM_TRACY_LIB:-}" ]; then
  up="$build/bench/upstream"
  mkdir -p "$up"
  for b in zone_cost throughput callstack_cost; do
    cc -O2 -DTRACY_ENABLE -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT -I"$UPSTREAM_TRACY_INCLUDE" \
      -fno-optimize-sibling-calls -fomit-frame-pointer \
      "bench/$b.c" -o "$up/$b" -L"$UPSTREAM_TRACY_LIB" -lTracyClient -lpthread \
      -Wl,-rpath,"$UPSTREAM_TRACY_LIB"
  done
fi

echo "== zone begin+end cost (server connected and draining)"
run_with_capture zone "$build/bench/bench_zone_cost" tracyc
[ -n "${UPSTREAM_TRACY_LIB:-}" ] && run_with_capture zone "$up/zone_cost" upstream

echo "== whole cost of an event: process CPU per zone pair, worker included, C and Lua (bench/event_cost.sh)"
bench/event_cost.sh "$build"

echo "== zone with a 16-deep callstack (server connected; no sampling in either client: TRACY_NO_SYS_TRACE=1)"
cs_ns() { awk '/with a 16-deep callstack/ {for (i = 1; i <= NF; i++) if ($i == "callstack") print $(i+1)}'; }
cs_t=1e30 cs_u=1e30
for round in 1 2 3; do
  out=$(TRACY_NO_SYS_TRACE=1 run_with_capture cs "$build/bench/bench_callstack_cost" tracyc)
  echo "$out"
  cs_t=$(awk -v a="$cs_t" -v b="$(echo "$out" | cs_ns)" 'BEGIN{if (b == "") b = 1e30; print (b < a ? b : a)}')
  if [ -n "${UPSTREAM_TRACY_LIB:-}" ]; then
    out=$(TRACY_NO_SYS_TRACE=1 run_with_capture cs "$up/callstack_cost" upstream)
    echo "$out"
    cs_u=$(awk -v a="$cs_u" -v b="$(echo "$out" | cs_ns)" 'BEGIN{if (b == "") b = 1e30; print (b < a ? b : a)}')
  fi
done
[ -n "${UPSTREAM_TRACY_LIB:-}" ] &&
  awk -v t="$cs_t" -v u="$cs_u" 'BEGIN{printf "ratio tracyc / upstream TracyCZoneS(16) %.2f   (target <= 0.5; best of 3 rounds each: %.1f ns vs %.1f ns)\n", t / u, t, u}'

echo "== unwinders: cost per frame, with and without frame pointers"
"$build/bench/bench_unwind_cost"
"$build/bench/bench_unwind_cost_fp"

echo "== CPU sampling overhead on a CPU-bound program, on vs off in one run (server connected)"
for hz in default 1000 4000; do
  if [ "$hz" = default ]; then
    run_with_capture so "$build/bench/bench_sampling_overhead" 1000
  else
    TRACY_SAMPLING_HZ=$hz run_with_capture so "$build/bench/bench_sampling_overhead" 1000
  fi
done

echo "== whole-process CPU of real programs and an idle one, untraced / in-process capture / live capture (bench/process_cost.sh)"
bench/process_cost.sh "$build"

echo "== callstacks of CPU samples with libdw and without (the kernel's frame-pointer chain), by how the code was built"
for variant in nofp fp fpleaf; do
  for mode in libdw --no-libdw; do
    "$build/bench/bench_sample_stacks_$variant" "$mode" "$variant"
  done
done

echo "== symbol resolution: 10,000 distinct addresses of a library with debug information"
"$build/bench/bench_symbols"

echo "== debug cache: symbol resolution in a fresh process with no cache, making it and reading it (400 units; libc given its DWARF)"
"$build/bench/bench_symbol_cache"

echo "== sustained throughput into a connected capture"
run_with_capture tp "$build/bench/bench_throughput" tracyc
# Upstream buffers without bound; the same run with a limit too large to be reached:
TRACYC_BUFFER_LIMIT=4G run_with_capture tp "$build/bench/bench_throughput" tracyc-4G
[ -n "${UPSTREAM_TRACY_LIB:-}" ] && run_with_capture tp "$up/throughput" upstream

echo "== memory with no server connected"
"$build/bench/bench_memory"

echo "== capture decode speed"
"$build/bench/bench_capture"

echo "== does the capture keep up with a client, per output"
bench/capture_live.sh "$build"

if [ "${CAPTURE_SCALE:-}" = 1 ]; then
  echo "== capture at scale (CAPTURE_SCALE=1)"
  bench/capture_scale.sh "$build"
fi
if [ "${COLLECT_SCALE:-}" = 1 ]; then
  echo "== many processes into one capture (COLLECT_SCALE=1)"
  bench/collect_scale.sh "$build"
fi

# Lua: a zone pair (tracy.ZoneBeginN + ZoneEnd) on each Lua the module was built for,
# against an empty Lua call pair measured in the same process, and -- given
# UPSTREAM_TRACY_INCLUDE, upstream's public/ directory -- against upstream's own
# TracyLua.hpp: bench/lua/upstream_lua_host.cpp built with upstream's TracyClient.cpp
# compiled in, on the same Lua. Both run with a tracyc-capture connected; best of three
# alternating rounds, as the machine may be busy. Upstream runs with its sampling and
# system tracing off (it turns them on when run as root).
pair_ns() { awk -v what="$1" 'index($0, what) {print $(NF-1); exit}'; }
lua_pkg() { case $1 in luajit) echo luajit ;; lua5*) echo "lua5.${1#lua5}" ;; esac; }
upstream_client=""
if [ -n "${UPSTREAM_TRACY_INCLUDE:-}" ] && command -v g++ >/dev/null; then
  up="$build/bench/upstream"
  mkdir -p "$up"
  upstream_defs="-DTRACY_ENABLE -DTRACY_NO_BROADCAST -DTRACY_ONLY_LOCALHOST -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT"
  g++ -O2 $upstream_defs -I"$UPSTREAM_TRACY_INCLUDE" -c "$UPSTREAM_TRACY_INCLUDE/TracyClient.cpp" \
    -o "$up/TracyClient.o" && upstream_client="$up/TracyClient.o"
fi
lua_rows=""
for lua_bench in "$build"/bench/lua/bench_lua_zones_*; do
  [ -x "$lua_bench" ] || continue
  id=${lua_bench##*_}
  pkg=$(lua_pkg "$id")
  echo "== Lua zone pair cost, $pkg (in-process capture)"
  "$lua_bench"
  host=""
  if [ -n "$upstream_client" ] && pkg-config --exists "$pkg"; then
    host="$up/lua_host_$id"
    g++ -O2 $upstream_defs -I"$UPSTREAM_TRACY_INCLUDE" -Ibench/lua $(pkg-config --cflags "$pkg") \
      bench/lua/upstream_lua_host.cpp "$upstream_client" -o "$host" $(pkg-config --libs "$pkg") -lpthread -ldl || host=""
  fi
  t=1e30 u=1e30 e=1e30 c=1e30
  best() { awk -v a="$1" -v b="$2" 'BEGIN{print (b != "" && b < a ? b : a)}'; }
  for round in 1 2 3; do
    out=$(run_with_capture lua "$lua_bench" --server)
    t=$(best "$t" "$(echo "$out" | pair_ns "tracy.ZoneBeginN + ZoneEnd")")
    e=$(best "$e" "$(echo "$out" | pair_ns "empty Lua function pair")")
    c=$(best "$c" "$(echo "$out" | pair_ns "empty C function pair")")
    if [ -n "$host" ]; then
      out=$(TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 TRACY_NO_CONTEXT_SWITCH=1 run_with_capture lua "$host")
      u=$(best "$u" "$(echo "$out" | pair_ns "tracy.ZoneBeginN + ZoneEnd")")
    fi
  done
  lua_rows="$lua_rows$(awk -v l="$pkg" -v t="$t" -v u="$u" -v e="$e" -v c="$c" 'BEGIN{
    printf "  %-8s %9.1f ns %12s %10s %8.1f ns %8.1f ns %9.2f %9.2f\n", l, t, (u < 1e30 ? sprintf("%.1f ns", u) : "-"),
      (u < 1e30 ? sprintf("%.2f", t / u) : "-"), e, c, t / e, t / c}')
"
done
if [ -n "$lua_rows" ]; then
  echo "== Lua zone pair (ZoneBeginN + ZoneEnd), server connected, best of 3 rounds"
  printf "  %-8s %12s %12s %10s %11s %11s %9s %9s\n" Lua tracyc upstream /upstream "empty Lua" "empty C" "/empty Lua" "/empty C"
  printf "%s" "$lua_rows"
  echo "  (empty Lua/C: an empty Lua / C function called in the same loop, same process as tracyc's figure;"
  echo "   targets: <= 0.3 x upstream TracyLua, aim <= 3 x an empty Lua call pair, which LuaJIT compiles away)"
fi

bench/python_cost.sh "$build"
for extra in "$build"/bench/python_sampling/run.sh; do
  [ -x "$extra" ] && "$extra"
done
exit 0
