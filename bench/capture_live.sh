#!/usr/bin/env bash
# Does the capture keep up with a client? Two measures, each per output format, the formats
# taking turns round after round (the machine is shared): medians [ranges]. Not a test:
# figures and ratios only.
#
#   bench/capture_live.sh [BUILD_DIR]        (bench/run.sh runs it)
#
# 1. Live: a real tracyc client making zones as fast as it can (bench/throughput.c: two
#    threads of zone pairs, LIVE_PAIRS each, default 10,000,000) into tracyc-capture writing
#    one output. The client's figures: its zone pairs delivered per second (from its start
#    to the server having everything) and the events it dropped (its buffer, TRACYC_BUFFER_LIMIT,
#    full: the worker could not send them as fast as they were made); the capture's: its CPU
#    time per event received until the client finished (the live part; a JSON or .pftrace
#    output is written after that) and over its whole run, and its capacity, events per
#    CPU-second live, against the rate the client delivered. Baseline: LIVE_BASELINE (default
#    folded, the output whose sinks do least), in the same rounds.
# 2. Recorded: the fake client's stream (bench/fake_client.c: nested zones with texts,
#    values and colours, messages, plots, frames, samples; FORMATS_ZONES zones, default
#    5,000,000) recorded once, then decoded by bench_capture_formats into each output, in
#    CPU time, against the decoder alone.
#
#   LIVE_ROUNDS    rounds (default 3); LIVE_FORMATS: the outputs (default "folded txt csv svg
#                  json pftrace")
#   LIVE_DIR       where outputs go (default $TMPDIR or /tmp); each is deleted once measured
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target tracyc-capture bench_throughput bench_measure bench_fake_client \
  bench_capture_formats >/dev/null
capture=$(realpath "$build/tools/tracyc-capture")
client=$(realpath "$build/bench/bench_throughput")
measure=$(realpath "$build/bench/bench_measure")
pairs=${LIVE_PAIRS:-10000000}
rounds=${LIVE_ROUNDS:-3}
formats=(${LIVE_FORMATS:-folded txt csv svg json pftrace})
baseline=${LIVE_BASELINE:-folded}
ticks=$(getconf CLK_TCK)

work=$(mktemp -d -p "${LIVE_DIR:-${TMPDIR:-/tmp}}" capture_live.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
results=$work/results
: >"$results"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
# CPU seconds pid has used so far (utime + stime of /proc/PID/stat), or nothing once it has ended.
cpu_of() { awk -v t="$ticks" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / t}' "/proc/$1/stat" 2>/dev/null || true; }

# run FMT: the client into tracyc-capture -o trace.FMT; a line of $results: format, pairs
# delivered per second, events dropped, events received, capture CPU s live, in all.
run() {
  local fmt=$1 port out="$work/trace.$1" mpid cpid cap live="" rc=0 line made dropped total zones
  port=$(free_port)
  TRACY_PORT=$port "$client" "$fmt" "$pairs" >"$work/client.out" 2>"$work/client.err" &
  cpid=$!
  "$measure" -- "$capture" -a 127.0.0.1 -p "$port" -o "$out" -f >"$work/capture.out" 2>"$work/capture.err" &
  mpid=$!
  pids=("$cpid" "$mpid")
  wait "$cpid" || rc=$?
  # The client returns once the server has everything: the capture's CPU until then.
  cap=$(cat "/proc/$mpid/task/$mpid/children" 2>/dev/null | awk '{print $1}' || true)
  [ -n "$cap" ] && live=$(cpu_of "$cap")
  wait "$mpid" || rc=$?
  pids=()
  rm -f "$out"
  line=$(grep '^bench_measure:' "$work/capture.err" || true)
  [ -n "$live" ] || live=$(field cpu_s "$line") # it had ended already: all of it was live
  # "fmt N zone pairs from 2 threads: produced in A s, delivered in B s = C M pairs/s, dropped D"
  read -r made total dropped < <(awk '{for (i = 1; i <= NF; i++) {if ($i == "zone") m = $(i - 1);
    if ($i == "delivered") t = $(i + 2); if ($i == "dropped") d = $(i + 1)}} END {print m, t, d}' "$work/client.out")
  zones=$(sed -n 's/^Capture complete: \([0-9,]*\) zones.*/\1/p' "$work/capture.out" | tr -d ,)
  if [ "$rc" != 0 ] || [ -z "$zones" ] || [ -z "$total" ]; then
    echo "  $fmt: FAILED (exit $rc): $(cat "$work/client.out" "$work/client.err") $(head -3 "$work/capture.out") $(grep -v '^bench_measure' "$work/capture.err" | tail -2)"
    return 0
  fi
  echo "$fmt $(awk -v m="$made" -v d="$dropped" -v t="$total" 'BEGIN{print (2 * m - d) / 2 / t}') $dropped $((2 * zones))" \
    "$live $(field cpu_s "$line")" >>"$results"
  printf "  %-8s %6.2f M pairs/s delivered, %10s events dropped, capture CPU %5.2f s live, %5.2f s in all\n" "$fmt" \
    "$(awk -v m="$made" -v d="$dropped" -v t="$total" 'BEGIN{print (2 * m - d) / 2 / t / 1e6}')" "$dropped" "$live" \
    "$(field cpu_s "$line")"
}

stats() { # values on stdin -> "median [min-max]"
  sort -g | awk -v p="$1" '{v[NR] = $1} END {if (!NR) exit; m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    if (NR == 1) printf p, m; else printf p " [" p "-" p "]", m, v[1], v[NR]}'
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "== live: bench_throughput (2 threads x $pairs zone pairs) into tracyc-capture, per output" \
  "($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
for ((r = 1; r <= rounds; r++)); do
  for fmt in "${formats[@]}"; do
    run "$fmt"
  done
done
echo "== live, medians [ranges] of $rounds rounds; baseline: $baseline; capacity: events the capture decodes per"
echo "   CPU-second live, over the events per second the client delivered (above 1: it keeps up with CPU to spare)"
printf "  %-8s %-22s %9s %-26s %-21s %9s %-21s %9s\n" output "M pairs/s delivered" /baseline "events dropped" \
  "capture ns/event live" /baseline "ns/event in all" capacity
col() { awk -v f="$1" -v c="$2" '$1 == f {print $c}' "$results"; }
base_rate=$(col "$baseline" 2 | median)
base_ns=$(awk -v f="$baseline" '$1 == f {print $5 / $4 * 1e9}' "$results" | median)
for fmt in "${formats[@]}"; do
  [ -n "$(col "$fmt" 2)" ] || continue
  rate=$(col "$fmt" 2 | median)
  ns=$(awk -v f="$fmt" '$1 == f {print $5 / $4 * 1e9}' "$results" | median)
  printf "  %-8s %-22s %9s %-26s %-21s %9s %-21s %9s\n" "$fmt" "$(col "$fmt" 2 | awk '{print $1 / 1e6}' | stats %.2f)" \
    "$(awk -v a="$rate" -v b="$base_rate" 'BEGIN{printf "%.2f", b ? a / b : 0}')" "$(col "$fmt" 3 | stats %.0f)" \
    "$(awk -v f="$fmt" '$1 == f {print $5 / $4 * 1e9}' "$results" | stats %.1f)" \
    "$(awk -v a="$ns" -v b="$base_ns" 'BEGIN{printf "%.2f", b ? a / b : 0}')" \
    "$(awk -v f="$fmt" '$1 == f {print $6 / $4 * 1e9}' "$results" | stats %.1f)" \
    "$(awk -v f="$fmt" '$1 == f {print 1 / ($5 / $4) / (2 * $2)}' "$results" | median | awk '{printf "%.2f", $1}')"
done

zones=${FORMATS_ZONES:-5000000}
echo "== recorded: the fake client's stream ($zones zones), each output alone, CPU time"
rm -f "$work/port"
"$build/bench/bench_fake_client" -n "$zones" --record "$work/stream" >"$work/port" 2>"$work/fake.log" &
pids=($!)
for _ in $(seq 100); do
  port=$(head -1 "$work/port" 2>/dev/null || true)
  [ -n "$port" ] && break
  sleep 0.05
done
"$capture" -a 127.0.0.1 -p "$port" -o "$work/record.txt" -f >/dev/null 2>&1 || true
wait "${pids[0]}" || { echo "capture_live: recording the fake client failed: $(cat "$work/fake.log")" >&2; exit 1; }
pids=()
TMPDIR=$work "$build/bench/bench_capture_formats" "$work/stream" "$rounds" "${formats[@]}"
