#!/usr/bin/env bash
# The in-process capture's cost per event (bench/inproc_cost.c: zone pairs into TRACYC_OUTPUT,
# the summary's statistics sinks), one or more builds in the same rounds:
#
#   bench/inproc_cost.sh [BUILD_DIR...]      (default build/bench; ROUNDS=N, default 7;
#                                             PAIRS=N, default 2000000; CG_PAIRS=N, default 200000)
#
# Per build: medians (and range) over interleaved rounds of the worker thread's CPU and the
# process's CPU per event, and of the wall time, each run under bench_process_cost_run; then
# the process's instructions per event under callgrind (CG_PAIRS pairs against none; the
# recording thread's are in it too, about 60 an event): exact, whatever else the machine runs.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- build/bench
rounds=${ROUNDS:-7} pairs=${PAIRS:-2000000} cg_pairs=${CG_PAIRS:-200000}
export TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 TRACY_NO_CONTEXT_SWITCH=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A worker process wall
for _ in $(seq "$rounds"); do
  for b in "$@"; do
    TRACYC_OUTPUT=$tmp/out.txt "$b/bench/bench_process_cost_run" "$tmp/threads" "$b/bench/bench_inproc_cost" "$pairs" >/dev/null
    worker[$b]+="$(awk -F'\t' '$3 == "tracyc worker" {print $2}' "$tmp/threads") "
    process[$b]+="$(awk -F'\t' '$1 == "rusage" {print $2}' "$tmp/threads") "
    wall[$b]+="$(awk -F'\t' '$1 == "wall" {print $2}' "$tmp/threads") "
  done
done
# median_range SCALE VALUES...: "median [min..max]" of VALUES / SCALE
median_range() {
  local scale=$1; shift
  printf '%s\n' "$@" | sort -n | awk -v s="$scale" '{v[NR] = $1 / s}
    END {printf "%6.1f [%6.1f..%6.1f]", v[int((NR + 1) / 2)], v[1], v[NR]}'
}
# instructions PROGRAM PAIRS: every thread's, under callgrind
instructions() {
  (cd "$tmp" && TRACYC_OUTPUT=$tmp/out.txt valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$1" "$2" \
    >/dev/null 2>&1)
  awk '/^summary:/ {s += $2} END {print s}' "$tmp"/cg.*
  rm -f "$tmp"/cg.*
}
events=$((2 * pairs))
for b in "$@"; do
  program=$(realpath "$b/bench/bench_inproc_cost")
  i1=$(instructions "$program" "$cg_pairs")
  i0=$(instructions "$program" 0)
  # shellcheck disable=SC2086
  printf '%-24s worker %s ns/event  process %s ns/event  wall %s ms  instructions %.1f/event\n' "$b" \
    "$(median_range $events ${worker[$b]})" "$(median_range $events ${process[$b]})" \
    "$(median_range 1000000 ${wall[$b]})" "$(echo "($i1 - $i0) / (2 * $cg_pairs)" | bc -l)"
done
