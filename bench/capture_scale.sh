#!/usr/bin/env bash
# Capture at scale: tracyc-capture recording a synthetic client (bench/fake_client.c) over
# loopback at 10 M and 200 M zones, once per output format, with its peak resident memory
# (ru_maxrss, bench/measure.c), wall time, events/s of decode + write and the output's size;
# and upstream's tracy-capture on the same streams when given. Not a test: figures only.
#
#   bench/capture_scale.sh [BUILD_DIR]        (bench/run.sh runs it with CAPTURE_SCALE=1)
#
#   SCALE_ZONES     zone counts (default "10000000 200000000"); those up to 20 M run SCALE_REPEAT
#                   times (default 3: medians and ranges, the machine is shared), larger ones once
#   SCALE_FORMATS   output extensions (default "json csv txt folded svg pftrace"; pftrace only
#                   when this tracyc-capture writes it: tried first)
#   SCALE_DIR       where outputs and tracyc-capture's temporary files go (default $TMPDIR or
#                   /tmp); each output is deleted as soon as it is measured, and a run the free
#                   space there cannot hold (its size estimated from the first count's) is skipped
#   UPSTREAM_TRACY_CAPTURE   upstream's tracy-capture 0.14.0: recorded on the same streams, its
#                   zone counts checked with tracy-csvexport (UPSTREAM_TRACY_CSVEXPORT, default
#                   the one beside it); stopped with SIGINT (it saves what it has) when its
#                   resident size passes UPSTREAM_RSS_LIMIT_MIB (default 85 % of MemAvailable);
#                   UPSTREAM_ZONES: the counts it records (default SCALE_ZONES)
#
# Every run is checked: the client saw the server's goodbye (every query answered, nothing
# dropped), tracyc-capture says "Capture complete" with exactly the zones and messages sent
# (the CSV's counts add up to them too), upstream's CSV export counts exactly the zones and
# messages sent.
# Events are what the client sent: zone begins and ends, zone texts, values and colours,
# messages, plot points, frame marks, CPU samples. Targets shown: peak RSS <= 64 MiB, and
# 200 M within +-10 % of 10 M, for each format.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target tracyc-capture bench_fake_client bench_measure >/dev/null
capture=$(realpath "$build/tools/tracyc-capture")
client=$(realpath "$build/bench/bench_fake_client")
measure=$(realpath "$build/bench/bench_measure")
zone_counts=(${SCALE_ZONES:-10000000 200000000})
repeat=${SCALE_REPEAT:-3}
formats=(${SCALE_FORMATS:-json csv txt folded svg pftrace})
upstream=${UPSTREAM_TRACY_CAPTURE:-}
csvexport=${UPSTREAM_TRACY_CSVEXPORT:-${upstream:+$(dirname "$upstream")/tracy-csvexport}}
avail_kib=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
rss_limit_mib=${UPSTREAM_RSS_LIMIT_MIB:-$((avail_kib * 85 / 100 / 1024))}

work=$(mktemp -d -p "${SCALE_DIR:-${TMPDIR:-/tmp}}" capture_scale.XXXXXX)
client_pid=""
cleanup() {
  [ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
results=$work/results
: >"$results"

commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
# The value of key=value in a line of key=value pairs.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
free_bytes() { df -B1 --output=avail "$work" | tail -1 | tr -d ' '; }
size() { awk -v b="$1" 'BEGIN{u = "B"; if (b >= 1e9) {b /= 1e9; u = "GB"} else if (b >= 1e6) {b /= 1e6; u = "MB"}
  else if (b >= 1e3) {b /= 1e3; u = "kB"}; printf(u == "B" ? "%d %s" : "%.1f %s", b, u)}'; }

# start_client ZONES: the fake client listening; its port in $port.
start_client() {
  rm -f "$work/port" # else the last run's port may be read before the new client's redirection empties it
  "$client" -n "$1" >"$work/port" 2>"$work/client.log" &
  client_pid=$!
  for _ in $(seq 100); do
    port=$(head -1 "$work/port" 2>/dev/null || true)
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  echo "capture_scale: the fake client did not start" >&2
  return 1
}

# finish_client: waits for the client (10 s at most after its server ended); its line in $client_line.
finish_client() {
  local rc=0
  for _ in $(seq 100); do
    kill -0 "$client_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$client_pid" 2>/dev/null || true
  wait "$client_pid" || rc=$?
  client_pid=""
  client_line=$(grep '^fake_client:' "$work/client.log" || true)
  return $rc
}

# Whether the free space holds a run's output and temporary files, estimated from the
# largest of the first count's runs of the format, scaled to `zones`, plus 2 GB.
room_for() {
  local what=$1 zones=$2 need
  need=$(awk -v w="$what" -v z="$zones" '$1 == w {b = ($7 + $8) / $3 * z; if (b > m) m = b} END {printf "%.0f", m * 1.15 + 2e9}' "$results")
  [ "$(free_bytes)" -gt "$need" ] && return 0
  echo "  skipped: needs about $(size "$need") in $work, $(size "$(free_bytes)") free"
  return 1
}

# report WHAT ZONES MEASURE_LINE TAIL: one run's line.
report() {
  local events
  events=$(field events "$client_line")
  printf "  %-8s %12s zones: peak RSS %7.1f MiB, %7.2f s (%.2f s of CPU; live %.2f s), %6.2f M events/s, %s\n" "$1" \
    "$(commas "$2")" "$(awk -v k="$(field peak_rss_kib "$3")" 'BEGIN{print k / 1024}')" "$(field wall_s "$3")" \
    "$(field cpu_s "$3")" "$(field total_s "$client_line")" \
    "$(awk -v e="$events" -v s="$(field wall_s "$3")" 'BEGIN{print e / s / 1e6}')" "$4"
}

# record WHAT ZONES SENT_ZONES MEASURE_LINE SIZE: a line of $results, whose columns are
# what, zones asked, zones sent, peak RSS KiB, wall s, events, output bytes, temp bytes, CPU s,
# live s (the client's, from its first item to the server's goodbye: all of it decoded).
record() {
  echo "$1 $2 $3 $(field peak_rss_kib "$4") $(field wall_s "$4") $(field events "$client_line") $5" \
    "$(field temp_bytes "$4") $(field cpu_s "$4") $(field total_s "$client_line")" >>"$results"
}

run_tracyc() {
  local fmt=$1 zones=$2 out="$work/trace.$1" rc=0 crc=0 line size sent_zones messages sum
  room_for "tracyc-$fmt" "$zones" || return 0
  start_client "$zones"
  TMPDIR=$work "$measure" -- "$capture" -a 127.0.0.1 -p "$port" -o "$out" -f >"$work/capture.out" \
    2>"$work/capture.err" || rc=$?
  finish_client || crc=$?
  line=$(grep '^bench_measure:' "$work/capture.err" || true)
  size=$(stat -c %s "$out" 2>/dev/null || echo 0)
  sent_zones=$(field zones "$client_line")
  messages=$(field messages "$client_line")
  local problems=""
  [ "$rc" = 0 ] || problems+=" tracyc-capture exited $rc ($(grep -v '^bench_measure:' "$work/capture.err" | tail -1));"
  [ "$crc" = 0 ] || problems+=" the client did not finish cleanly ($client_line);"
  grep -q "^Capture complete: $(commas "$sent_zones") zones on .*, $(commas "$messages") messages" "$work/capture.out" ||
    problems+=" the summary does not count what was sent: $(head -1 "$work/capture.out");"
  if [ "$fmt" = csv ] && [ -s "$out" ]; then
    sum=$(awk -F, 'NR > 1 {s += $6} END {printf "%.0f", s}' "$out")
    [ "$sum" = "$sent_zones" ] || problems+=" the CSV counts $sum zones, $sent_zones sent;"
  fi
  rm -f "$out"
  report "$fmt" "$sent_zones" "$line" "output $(size "$size"), temporary files $(size "$(field temp_bytes "$line")")${problems:+ -- FAILED:$problems}"
  [ -z "$problems" ] || return 0
  record "tracyc-$fmt" "$zones" "$sent_zones" "$line" "$size"
}

run_upstream() {
  local zones=$1 out="$work/upstream.tracy" rc=0 crc=0 line size sent_zones counted messages note=""
  room_for upstream "$zones" || return 0
  start_client "$zones"
  "$measure" --rss-limit "$rss_limit_mib" -- "$upstream" -a 127.0.0.1 -p "$port" -o "$out" -f \
    >"$work/upstream.out" 2>"$work/upstream.err" || rc=$?
  finish_client || crc=$?
  line=$(grep '^bench_measure:' "$work/upstream.err" || true)
  size=$(stat -c %s "$out" 2>/dev/null || echo 0)
  sent_zones=$(field zones "$client_line")
  counted=$("$csvexport" "$out" 2>/dev/null | awk -F, 'NR > 1 {s += $6} END {printf "%.0f", s}' || echo "?")
  messages=$("$csvexport" -m "$out" 2>/dev/null | awk 'END {print NR - 1}' || echo "?")
  rm -f "$out"
  if [ "$(field limited "$line")" = 1 ]; then
    note=" -- STOPPED EARLY at ${rss_limit_mib} MiB resident (UPSTREAM_RSS_LIMIT_MIB): it recorded $(commas "$counted") of $(commas "$sent_zones") zones"
  elif [ "$rc" != 0 ] || [ "$crc" != 0 ] || [ "$counted" != "$sent_zones" ] ||
    [ "$messages" != "$(field messages "$client_line")" ]; then
    note=" -- FAILED: exit $rc, the client's $crc, tracy-csvexport counts $counted zones and $messages messages: $client_line"
  fi
  report upstream "$sent_zones" "$line" "output $(size "$size") (.tracy)$note"
  [ -z "$note" ] || return 0
  record upstream "$zones" "$sent_zones" "$line" "$size"
}

# pftrace only when this tracyc-capture takes the extension: given a port where nobody
# listens, it keeps trying to connect (the timeout ends it) instead of refusing at once.
kept=()
for fmt in "${formats[@]}"; do
  if [ "$fmt" = pftrace ]; then
    rc=0
    timeout 3 "$capture" -a 127.0.0.1 -p 1 -o "$work/probe.pftrace" >/dev/null 2>"$work/probe.err" || rc=$?
    if [ "$rc" != 124 ]; then
      echo "(pftrace left out: this tracyc-capture refuses it: $(head -1 "$work/probe.err"))"
      continue
    fi
  fi
  kept+=("$fmt")
done
formats=("${kept[@]}")

echo "== the synthetic client alone, generating and compressing without a socket"
"$client" --dry-run -n "${zone_counts[0]}" 2>/dev/null
echo "== capture of the synthetic client over loopback ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
for zones in "${zone_counts[@]}"; do
  runs=1
  [ "$zones" -le 20000000 ] && runs=$repeat
  for ((r = 1; r <= runs; r++)); do
    for fmt in "${formats[@]}"; do
      run_tracyc "$fmt" "$zones"
    done
    if [ -n "$upstream" ] && [[ " ${UPSTREAM_ZONES:-${zone_counts[*]}} " == *" $zones "* ]]; then
      run_upstream "$zones"
    fi
  done
done

echo "== medians [ranges]; events/s = events sent / wall time of the capture, from connecting to the file written;"
echo "   live: / the time from the client's first item to the server's goodbye (everything received and decoded,"
echo "   before the file is written); per CPU-s: / the capture's CPU time; output: its size (median); temp: its"
echo "   spill files at most (sampled)"
printf "  %-14s %12s %4s  %-20s %-20s %-20s %-20s %-20s %9s %9s\n" what zones runs "peak RSS MiB" "wall s" "M events/s" \
  "live M events/s" "M events/CPU-s" output temp
stats() { # values on stdin -> "median [min-max]"
  sort -g | awk -v p="$1" '{v[NR] = $1} END {if (!NR) exit; m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    if (NR == 1) printf p, m; else printf p " [" p "-" p "]", m, v[1], v[NR]}'
}
for what in $(awk '{print $1}' "$results" | awk '!seen[$0]++'); do
  for zones in "${zone_counts[@]}"; do
    rows=$(awk -v w="$what" -v z="$zones" '$1 == w && $2 == z' "$results")
    [ -n "$rows" ] || continue
    printf "  %-14s %12s %4s  %-20s %-20s %-20s %-20s %-20s %9s %9s\n" "$what" \
      "$(commas "$(echo "$rows" | head -1 | cut -d' ' -f3)")" \
      "$(echo "$rows" | wc -l)" "$(echo "$rows" | awk '{print $4 / 1024}' | stats %.1f)" \
      "$(echo "$rows" | awk '{print $5}' | stats %.2f)" "$(echo "$rows" | awk '{print $6 / $5 / 1e6}' | stats %.2f)" \
      "$(echo "$rows" | awk '{print $6 / $10 / 1e6}' | stats %.2f)" \
      "$(echo "$rows" | awk '{print $6 / $9 / 1e6}' | stats %.2f)" \
      "$(size "$(echo "$rows" | awk '{print $7}' | stats %.0f | cut -d' ' -f1)")" \
      "$(size "$(echo "$rows" | awk '{print $8}' | stats %.0f | cut -d' ' -f1)")"
  done
done

for zones in "${zone_counts[@]}"; do
  awk -v z="$zones" '$2 == z && $1 == "tracyc-pftrace" {p = $7; n = $3} $2 == z && $1 == "tracyc-json" {j = $7}
    END {if (p && j) printf "== .pftrace against .json at %d zones: %.1f against %.1f bytes a zone, %.2f times smaller\n", n, p / n, j / n, j / p}' "$results"
done

if [ "${#zone_counts[@]}" -ge 2 ]; then
  small=${zone_counts[0]} large=${zone_counts[-1]}
  echo "== targets: tracyc-capture's peak RSS <= 64 MiB, and at $(commas "$large") zones within +-10 % of $(commas "$small") (medians)"
  for fmt in "${formats[@]}"; do
    sort -k4,4g "$results" | awk -v w="tracyc-$fmt" -v s="$small" -v l="$large" -v f="$fmt" '
      $1 == w && $2 == s {a[++n] = $4} $1 == w && $2 == l {b = $4}
      END {
        if (!n || !b) {printf "  %-8s not measured at both counts\n", f; exit}
        m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        d = (b - m) / m * 100; ok = b <= 65536 && m <= 65536 && d <= 10 && d >= -10
        printf "  %-8s %7.1f MiB -> %7.1f MiB (%+.1f %%, %+.2f MiB)  %s\n", f, m / 1024, b / 1024, d, (b - m) / 1024, ok ? "met" : "MISSED"
      }'
  done
fi
