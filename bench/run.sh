#!/usr/bin/env bash
# Runs the benchmarks and prints their figures with ratios against baselines measured
# in the same run.
#
#   bench/run.sh [BUILD_DIR]
#
# With UPSTREAM_TRACY_INCLUDE=/path/to/tracy/public and UPSTREAM_TRACY_LIB=/dir holding
# a libTracyClient.so of upstream Tracy 0.14 built with TRACY_MANUAL_LIFETIME and
# TRACY_DELAYED_INIT, the zone-cost and throughput benchmarks are also built from the
# same source against upstream's client and compared. Nothing of upstream is part of
# this repository.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
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

echo "== symbol resolution: 10,000 distinct addresses of a library with debug information"
"$build/bench/bench_symbols"

echo "== sustained throughput into a connected capture"
run_with_capture tp "$build/bench/bench_throughput" tracyc
# Upstream buffers without bound; the same run with a limit too large to be reached:
TRACYC_BUFFER_LIMIT=4G run_with_capture tp "$build/bench/bench_throughput" tracyc-4G
[ -n "${UPSTREAM_TRACY_LIB:-}" ] && run_with_capture tp "$up/throughput" upstream

echo "== memory with no server connected"
"$build/bench/bench_memory"

echo "== capture decode speed"
"$build/bench/bench_capture"

lua_bench="$build/bench/lua/bench_lua_zones"
if [ -x "$lua_bench" ]; then
  echo "== Lua zone pair cost (in-process capture)"
  "$lua_bench"
  if [ -n "${UPSTREAM_TRACY_LIB:-}" ] && command -v g++ >/dev/null && pkg-config --exists lua5.4; then
    # Upstream's TracyLua.hpp in a host of ours, the same Lua loops, both with a capture
    # connected; best of a few alternating rounds, as the machine may be busy.
    g++ -O2 -DTRACY_ENABLE -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT -I"$UPSTREAM_TRACY_INCLUDE" -Ibench/lua \
      $(pkg-config --cflags lua5.4) bench/lua/upstream_lua_host.cpp -o "$up/lua_host" \
      -L"$UPSTREAM_TRACY_LIB" -lTracyClient $(pkg-config --libs lua5.4) -lpthread -Wl,-rpath,"$UPSTREAM_TRACY_LIB"
    echo "== Lua zone pair cost against upstream TracyLua (server connected and draining, both)"
    pair_ns() { awk '/tracy.ZoneBeginN \+ ZoneEnd/ {print $(NF-1)}'; }
    lua_t=1e30 lua_u=1e30
    for round in 1 2 3; do
      t=$(run_with_capture lua "$lua_bench" --server | pair_ns)
      u=$(run_with_capture lua "$up/lua_host" | pair_ns)
      lua_t=$(awk -v a="$lua_t" -v b="${t:-1e30}" 'BEGIN{print (b < a ? b : a)}')
      lua_u=$(awk -v a="$lua_u" -v b="${u:-1e30}" 'BEGIN{print (b < a ? b : a)}')
    done
    awk -v t="$lua_t" -v u="$lua_u" 'BEGIN{printf "tracyc   tracy.ZoneBeginN + ZoneEnd %7.1f ns\nupstream tracy.ZoneBeginN + ZoneEnd %7.1f ns (TracyLua.hpp)\nratio tracyc / upstream TracyLua     %6.2f   (target <= 0.3)\n", t, u, t / u}'
  fi
fi

for extra in "$build"/bench/python_overhead/run.sh; do
  [ -x "$extra" ] && "$extra"
done
exit 0
