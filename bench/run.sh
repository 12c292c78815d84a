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
  port=$(free_port)
  out=$(mktemp --suffix=.txt)
  TRACY_PORT=$port "$@" &
  pid=$!
  "$capture" -a 127.0.0.1 -p "$port" -o "$out" -f >/dev/null 2>&1 || true
  wait "$pid"; rc=$?
  rm -f "$out"
  return $rc
}

programs=(tracyc:"$build/bench/bench_zone_cost" tracyc:"$build/bench/bench_throughput")
if [ -n "${UPSTREAM_TRACY_LIB:-}" ]; then
  up="$build/bench/upstream"
  mkdir -p "$up"
  for b in zone_cost throughput; do
    cc -O2 -DTRACY_ENABLE -DTRACY_MANUAL_LIFETIME -DTRACY_DELAYED_INIT -I"$UPSTREAM_TRACY_INCLUDE" \
      "bench/$b.c" -o "$up/$b" -L"$UPSTREAM_TRACY_LIB" -lTracyClient -lpthread \
      -Wl,-rpath,"$UPSTREAM_TRACY_LIB"
  done
fi

echo "== zone begin+end cost (server connected and draining)"
run_with_capture zone "$build/bench/bench_zone_cost" tracyc
[ -n "${UPSTREAM_TRACY_LIB:-}" ] && run_with_capture zone "$up/zone_cost" upstream

echo "== sustained throughput into a connected capture"
run_with_capture tp "$build/bench/bench_throughput" tracyc
[ -n "${UPSTREAM_TRACY_LIB:-}" ] && run_with_capture tp "$up/throughput" upstream

echo "== memory with no server connected"
"$build/bench/bench_memory"

echo "== capture decode speed"
"$build/bench/bench_capture"

for extra in "$build"/bench/lua/bench_lua "$build"/bench/python_overhead/run.sh; do
  [ -x "$extra" ] && "$extra"
done
exit 0
