#!/usr/bin/env bash
# Two commits side by side: is the newer one slower or bigger anywhere? Builds each commit
# (Release, from `git archive`, in a temporary directory) and runs their benchmarks
# interleaved, round by round, so that the machine's load falls on both alike:
#   - a zone begin+end pair on one thread with a capture connected (bench_zone_cost, ns);
#   - the decoder alone on a recorded stream of zones and on one of samples (bench_capture,
#     M events/s and M samples/s);
#   - tracyc-capture's peak resident memory recording a synthetic client (this checkout's
#     bench/fake_client.c, the same client for both) to a CSV and to a Chrome JSON.
# Prints each figure's median, range and the ratio new / old. Figures only, no verdict.
#
#   bench/compare_commits.sh OLD [NEW]      (NEW defaults to HEAD)
#   COMPARE_ROUNDS  rounds (default 5)      COMPARE_ZONES  the client's zones (default 2000000)
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(git rev-parse --short "${1:?usage: bench/compare_commits.sh OLD [NEW]}")
new=$(git rev-parse --short "${2:-HEAD}")
rounds=${COMPARE_ROUNDS:-5}
zones=${COMPARE_ZONES:-2000000}
work=$(mktemp -d)
client_pid=""
cleanup() {
  [ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

build() { # build COMMIT: its tracyc-capture, bench_zone_cost and bench_capture in $work/COMMIT
  mkdir -p "$work/$1/src"
  git archive "$1" | tar -x -C "$work/$1/src"
  cmake -S "$work/$1/src" -B "$work/$1/build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$work/$1/build" -j"$(nproc)" --target tracyc-capture bench_zone_cost bench_capture >/dev/null
}
echo "building $old and $new ..."
build "$old"
build "$new"
# The synthetic client and the memory gauge: this checkout's, the same for both.
cmake -S . -B "$work/tools" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/tools" -j"$(nproc)" --target bench_fake_client bench_measure >/dev/null

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
results=$work/results
: >"$results"
note() { echo "$1 $2 $3" >>"$results"; } # note FIGURE COMMIT VALUE

zone_pair() { # zone_pair COMMIT: ns of a pair, a capture of the same commit draining
  local port b=$work/$1/build
  port=$(free_port)
  TRACY_PORT=$port "$b/bench/bench_zone_cost" "$1" >"$work/zone.out" &
  local pid=$!
  "$b/tools/tracyc-capture" -a 127.0.0.1 -p "$port" -o "$work/zone.txt" -f >/dev/null 2>&1 || true
  wait "$pid"
  note zone_pair_ns "$1" "$(sed -n 's/.*1 thread *\([0-9.]*\) ns.*/\1/p' "$work/zone.out")"
}

decoder() { # decoder COMMIT: the decoder alone, zones then samples
  "$work/$1/build/bench/bench_capture" >"$work/capture.out"
  local rates
  rates=$(sed -n 's/.*decoder alone: *[0-9.]* ms = *\([0-9.]*\) M.*/\1/p' "$work/capture.out")
  note decoder_Mevents_s "$1" "$(echo "$rates" | sed -n 1p)"
  note decoder_Msamples_s "$1" "$(echo "$rates" | sed -n 2p)"
}

capture_rss() { # capture_rss COMMIT EXT: tracyc-capture's peak RSS (MiB) recording the fake client
  rm -f "$work/port"
  "$work/tools/bench/bench_fake_client" -n "$zones" >"$work/port" 2>"$work/client.log" &
  client_pid=$!
  local port=""
  for _ in $(seq 100); do
    port=$(head -1 "$work/port" 2>/dev/null || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  "$work/tools/bench/bench_measure" -- "$work/$1/build/tools/tracyc-capture" -a 127.0.0.1 -p "$port" \
    -o "$work/out.$2" -f >/dev/null 2>"$work/measure.err" || true
  wait "$client_pid" || true
  client_pid=""
  rm -f "$work/out.$2"
  local kib
  kib=$(grep -o 'peak_rss_kib=[0-9]*' "$work/measure.err" | cut -d= -f2)
  note "capture_rss_MiB_$2" "$1" "$(awk -v k="$kib" 'BEGIN{printf "%.1f", k / 1024}')"
}

for round in $(seq "$rounds"); do
  echo "round $round of $rounds ..."
  for c in "$old" "$new"; do zone_pair "$c"; done
  for c in "$new" "$old"; do decoder "$c"; done
  for c in "$old" "$new"; do capture_rss "$c" csv; capture_rss "$c" json; done
done

echo
echo "$old (old) against $new (new): medians of $rounds interleaved rounds [min, max]"
/usr/bin/python3 - "$results" "$old" "$new" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
old, new = sys.argv[2], sys.argv[3]
figures = list(dict.fromkeys(r[0] for r in rows))
for fig in figures:
    vals = {c: [float(r[2]) for r in rows if r[0] == fig and r[1] == c and r[2:]] for c in (old, new)}
    if not vals[old] or not vals[new]:
        print(f"  {fig:24s} missing in {old if not vals[old] else new}")
        continue
    m = {c: statistics.median(v) for c, v in vals.items()}
    span = lambda c: f"{m[c]:9.1f} [{min(vals[c]):.1f}, {max(vals[c]):.1f}]"
    print(f"  {fig:24s} old {span(old)}   new {span(new)}   new/old {m[new] / m[old]:.2f}")
EOF
