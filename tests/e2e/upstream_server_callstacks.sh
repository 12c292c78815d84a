#!/usr/bin/env bash
# The real Tracy 0.14.0 server records tracyc's callstacks, CPU samples and context
# switches: examples/c/callstacks.c captured by tracy-capture (assertions enabled) and read
# back by tracy-dump (a dump tool built on upstream's server library, outside this
# repository). Checks: no failure, zone/alloc/message callstacks resolved to the
# example's functions, files and lines, CPU samples with count_primes the most sampled
# function, context switches. Needs UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_DUMP (built
# outside this repository); skipped (77) without them.
set -uo pipefail
build_dir=$1
if [ -z "${UPSTREAM_TRACY_CAPTURE:-}" ] || [ -z "${UPSTREAM_TRACY_DUMP:-}" ]; then
  echo "skipped: set UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_DUMP"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset DEBUGINFOD_URLS
src=$(cd "$(dirname "$0")/../.." && pwd)/examples/c/callstacks.c
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
TRACY_NO_EXIT=1 TRACY_PORT=$port "$build_dir/examples/c/example_callstacks" 1 >/dev/null &
pid=$!
timeout 60 "$UPSTREAM_TRACY_CAPTURE" -a 127.0.0.1 -p "$port" -o "$work/cs.tracy" -f >"$work/capture.log" 2>&1
rc=$?
wait "$pid"
if [ $rc != 0 ]; then
  echo "tracy-capture failed ($rc)"; cat "$work/capture.log"; exit 1
fi
"$UPSTREAM_TRACY_DUMP" "$work/cs.tracy" >"$work/dump.txt" || { echo "tracy-dump failed"; exit 1; }
fail=0
expect() { grep -qE "$1" "$work/dump.txt" || { echo "missing: $1"; fail=1; }; }
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
expect '^failure: none$'
expect "^zone-callstack work step: work_step@callstacks.c:$(line_of 'TracyCZoneNS(zone, "work step"') < main@callstacks.c:[0-9]+"
expect "^zone-callstack checksum: checksum@callstacks.c:$(line_of 'TracyCZoneS(zone, DEPTH') < work_step@callstacks.c:[0-9]+ < main@"
expect "^alloc-callstack: work_step@callstacks.c:$(line_of 'TracyCAllocS(buffer') < main@"
expect "^free-callstack: work_step@callstacks.c:$(line_of 'TracyCFreeS(buffer') < main@"
expect "^message-callstack: main@callstacks.c:$(line_of 'TracyCMessageLS("callstacks example started"')"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] || [ "$paranoid" -le 2 ]; then
  expect '^samples: [1-9][0-9]*$'
  expect '^top-sampled: count_primes count=[0-9]+$'
  [ "$(grep -m1 '^top-sampled:' "$work/dump.txt")" = "$(grep -m1 '^top-sampled: count_primes' "$work/dump.txt")" ] ||
    { echo "count_primes is not the most sampled function"; fail=1; }
  expect '^context-switches: [1-9][0-9]*$'
fi
if [ $fail != 0 ]; then cat "$work/dump.txt"; exit 1; fi
grep -E '^(zone-callstack work step|samples|top-sampled|context-switches)' "$work/dump.txt" | head -5
echo "recorded by tracy-capture 0.14.0: callstacks, samples and context switches as expected"
