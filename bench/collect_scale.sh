#!/usr/bin/env bash
# Many processes into one capture (issue 19): N synthetic clients (bench/fake_client.c) of Z zones each dial
# out to one tracyc-capture --listen, which records them all into one trace; its CPU time and peak resident
# memory (bench/measure.c) are printed, and every run is checked: each client saw the server's goodbye,
# tracyc-capture says "Capture complete" with N processes and exactly the zones and messages sent, the CSV's
# counts add up to the zones sent. Then upstream's way, when UPSTREAM_TRACY_CAPTURE is set: one tracy-capture
# per process (each client listening, as upstream's must), their CPU times and peak resident sizes summed,
# each recording checked with tracy-csvexport. Not a test: figures only.
#
#   bench/collect_scale.sh [BUILD_DIR]        (default build/bench)
#
#   COLLECT_PROCESSES  N (default 64)          COLLECT_ZONES  Z per process (default 200000)
#   COLLECT_THREADS    threads per client (default 4)
#   COLLECT_FORMATS    tracyc-capture's outputs, one run each (default "csv pftrace")
#   UPSTREAM_TRACY_CAPTURE   upstream's tracy-capture 0.14.0 (tracy-csvexport beside it, or
#                      UPSTREAM_TRACY_CSVEXPORT)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target tracyc-capture bench_fake_client bench_measure >/dev/null
capture=$(realpath "$build/tools/tracyc-capture")
client=$(realpath "$build/bench/bench_fake_client")
measure=$(realpath "$build/bench/bench_measure")
processes=${COLLECT_PROCESSES:-64}
zones=${COLLECT_ZONES:-200000}
threads=${COLLECT_THREADS:-4}
formats=(${COLLECT_FORMATS:-csv pftrace})
upstream=${UPSTREAM_TRACY_CAPTURE:-}
csvexport=${UPSTREAM_TRACY_CSVEXPORT:-${upstream:+$(dirname "$upstream")/tracy-csvexport}}

work=$(mktemp -d "${TMPDIR:-/tmp}/collect_scale.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
# The sum of key over the fake clients' lines.
sum_clients() { cat "$work"/client.*.log | grep -h '^fake_client:' | tr ' ' '\n' | sed -n "s/^$1=//p" |
  awk '{s += $1} END {printf "%.0f", s}'; }
# Waits for the processes in $pids; the number that failed goes into $failed.
wait_all() {
  failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
  pids=()
}

run_tracyc() {
  local fmt=$1 out="$work/all.$1" port="" line rc=0 problems="" sent messages
  rm -f "$work"/client.*.log "$out"
  "$measure" -- "$capture" --listen 0 --expect "$processes" -o "$out" >"$work/capture.out" 2>"$work/capture.err" &
  local capture_pid=$!
  for _ in $(seq 200); do
    port=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\) .*/\1/p' "$work/capture.err")
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || { echo "collect_scale: tracyc-capture did not listen: $(cat "$work/capture.err")" >&2; return 1; }
  for i in $(seq "$processes"); do
    "$client" --connect "127.0.0.1:$port" -n "$zones" -t "$threads" 2>"$work/client.$i.log" &
    pids+=($!)
  done
  wait_all
  wait "$capture_pid" || rc=$?
  line=$(grep '^bench_measure:' "$work/capture.err" || true)
  sent=$(sum_clients zones)
  messages=$(sum_clients messages)
  [ "$rc" = 0 ] || problems+=" tracyc-capture exited $rc ($(grep -v '^bench_measure:' "$work/capture.err" | tail -2));"
  [ "$failed" = 0 ] || problems+=" $failed clients did not finish cleanly;"
  grep -q "^Capture complete: $processes processes, $(commas "$sent") zones on .*, $(commas "$messages") messages" \
    "$work/capture.out" || problems+=" the summary does not count what was sent: $(head -1 "$work/capture.out");"
  if [ "$fmt" = csv ]; then
    local counted
    counted=$(awk -F, 'NR > 1 {s += $6} END {printf "%.0f", s}' "$out")
    [ "$counted" = "$sent" ] || problems+=" the CSV counts $counted zones, $sent sent;"
  fi
  printf "  tracyc-capture --listen, one process, .%-8s %s zones: CPU %6.2f s, peak RSS %7.1f MiB, wall %6.2f s, output %s%s\n" \
    "$fmt" "$(commas "$sent")" "$(field cpu_s "$line")" "$(awk -v k="$(field peak_rss_kib "$line")" 'BEGIN{print k / 1024}')" \
    "$(field wall_s "$line")" "$(du -h "$out" | cut -f1)" "${problems:+ -- FAILED:$problems}"
}

run_upstream() {
  local cpu=0 rss=0 wall_start wall counted=0 bad="" sent
  rm -f "$work"/client.*.log "$work"/u.*
  for i in $(seq "$processes"); do
    "$client" -n "$zones" -t "$threads" >"$work/port.$i" 2>"$work/client.$i.log" &
    pids+=($!)
  done
  local clients=("${pids[@]}") captures=()
  pids=()
  wall_start=$(date +%s.%N)
  for i in $(seq "$processes"); do
    local port=""
    for _ in $(seq 200); do
      port=$(head -1 "$work/port.$i" 2>/dev/null || true)
      [ -n "$port" ] && break
      sleep 0.05
    done
    "$measure" -- "$upstream" -a 127.0.0.1 -p "$port" -o "$work/u.$i.tracy" >"$work/u.$i.out" 2>"$work/u.$i.err" &
    captures+=($!)
  done
  pids=("${captures[@]}")
  wait_all
  local failed_captures=$failed
  wall=$(awk -v s="$wall_start" -v e="$(date +%s.%N)" 'BEGIN{print e - s}')
  pids=("${clients[@]}")
  wait_all
  failed=$((failed + failed_captures))
  for i in $(seq "$processes"); do
    local line
    line=$(grep '^bench_measure:' "$work/u.$i.err" || true)
    cpu=$(awk -v a="$cpu" -v b="$(field cpu_s "$line")" 'BEGIN{print a + b}')
    rss=$(awk -v a="$rss" -v b="$(field peak_rss_kib "$line")" 'BEGIN{print a + b}')
    local n
    n=$("$csvexport" "$work/u.$i.tracy" 2>/dev/null | awk -F, 'NR > 1 {s += $6} END {printf "%.0f", s}' || echo 0)
    counted=$((counted + n))
    rm -f "$work/u.$i.tracy"
  done
  sent=$(sum_clients zones)
  [ "$failed" = 0 ] || bad+=" $failed processes did not finish cleanly;"
  [ "$counted" = "$sent" ] || bad+=" tracy-csvexport counts $counted zones, $sent sent;"
  printf "  upstream: %d tracy-capture processes, .tracy   %s zones: CPU %6.2f s, peak RSS %7.1f MiB (summed), wall %6.2f s%s\n" \
    "$processes" "$(commas "$sent")" "$cpu" "$(awk -v k="$rss" 'BEGIN{print k / 1024}')" "$wall" "${bad:+ -- FAILED:$bad}"
}

echo "== $processes processes x $(commas "$zones") zones ($threads threads each) into one capture; $(nproc) CPUs," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for fmt in "${formats[@]}"; do
  run_tracyc "$fmt"
done
if [ -n "$upstream" ]; then
  run_upstream
else
  echo "  (upstream's way: set UPSTREAM_TRACY_CAPTURE to its tracy-capture 0.14.0)"
fi
