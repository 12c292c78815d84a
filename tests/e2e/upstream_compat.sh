#!/usr/bin/env bash
# Records the C examples with the real Tracy 0.14.0 tracy-capture and compares
# tracy-csvexport's statistics with tracyc's own CSV for the same program: same rows,
# same counts. Needs UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_CSVEXPORT (paths to
# upstream binaries built outside this repository); skipped (exit 77) without them.
set -euo pipefail
build_dir=$1
if [ -z "${UPSTREAM_TRACY_CAPTURE:-}" ] || [ -z "${UPSTREAM_TRACY_CSVEXPORT:-}" ]; then
  echo "skipped: set UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_CSVEXPORT"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# name,counts of each row, sorted: the comparison ignores row order and timings.
rows() { awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $6 }' "$1" | sort; }
for example in game_loop workers all_events; do
  p=$(port)
  # Two runs of the same deterministic program: one recorded by upstream's tracy-capture,
  # one by our in-process capture (which, when on, would keep the backlog from a server
  # that connects late).
  TRACYC_OUTPUT="$work/$example.ours.csv" "$build_dir/examples/c/example_$example" >/dev/null
  TRACY_NO_EXIT=1 TRACY_PORT=$p "$build_dir/examples/c/example_$example" >/dev/null &
  pid=$!
  timeout 60 "$UPSTREAM_TRACY_CAPTURE" -a 127.0.0.1 -p "$p" -o "$work/$example.tracy" -f >"$work/$example.log" 2>&1
  wait "$pid"
  if grep -q "Instrumentation failure" "$work/$example.log"; then
    cat "$work/$example.log"; exit 1
  fi
  "$UPSTREAM_TRACY_CSVEXPORT" "$work/$example.tracy" >"$work/$example.upstream.csv"
  if ! diff <(rows "$work/$example.upstream.csv") <(rows "$work/$example.ours.csv"); then
    echo "$example: tracyc's CSV differs from tracy-csvexport's"; exit 1
  fi
  echo "$example: recorded by tracy-capture; CSV rows and counts agree"
done
