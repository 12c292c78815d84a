#!/usr/bin/env bash
# Builds tracyc in build/release: the library, tracyc-capture, the examples and the Lua
# modules (the README's commands use them). Then profiles examples/c/game_loop.c with the
# in-process capture (no server, no network) and shows the result: a summary on the
# terminal, plus a Perfetto trace, a Chrome trace and
# Tracy-style CSV statistics in build/demo/. Then profiles examples/c/callstacks.c, a
# CPU-bound program, and shows where its CPU samples fell, with their flame graph in
# build/demo/flamegraph.svg and a Perfetto trace of them in build/demo/callstacks.pftrace.
# Last, examples/c/processes.c, a parent and the three worker processes it forks, all
# recorded into one profile on one clock (TRACYC_FOLLOW_FORK=1): build/demo/processes.txt
# and build/demo/processes.pftrace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh gcc make cmake pkg-config liblz4-dev libdw-dev libdw1 libiberty-dev libunwind8 \
  lua5.1 liblua5.1-0-dev lua5.3 liblua5.3-dev lua5.4 liblua5.4-dev luajit libluajit-5.1-dev
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF -DTRACYC_BUILD_BENCH=OFF >/dev/null
cmake --build build/release -j"$(nproc)" >/dev/null
mkdir -p build/demo
for out in summary.txt trace.pftrace trace.json stats.csv; do
  TRACYC_OUTPUT="build/demo/$out" build/release/examples/c/example_game_loop >/dev/null
done
for out in callstacks.txt flamegraph.svg callstacks.pftrace; do
  TRACYC_OUTPUT="build/demo/$out" build/release/examples/c/example_callstacks >/dev/null
done
for out in processes.txt processes.pftrace; do
  TRACYC_FOLLOW_FORK=1 TRACYC_OUTPUT="build/demo/$out" build/release/examples/c/example_processes >/dev/null
done
cat build/demo/summary.txt
echo
echo "== CPU samples of examples/c/callstacks.c (from its summary, build/demo/callstacks.txt)"
sed -n '/^Sampling:/,/^Threads/p' build/demo/callstacks.txt | sed '$d'
echo
echo "== examples/c/processes.c: a parent and the three processes it forks, in one profile (build/demo/processes.txt)"
sed -n '/^Processes$/,/^$/p' build/demo/processes.txt
echo "Also written: build/demo/trace.pftrace, callstacks.pftrace and processes.pftrace (open them in https://ui.perfetto.dev),"
echo "build/demo/trace.json (the game loop as Chrome JSON), build/demo/stats.csv and build/demo/flamegraph.svg"
echo "(the samples as a flame graph; open it in a browser)"
