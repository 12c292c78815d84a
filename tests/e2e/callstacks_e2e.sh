#!/usr/bin/env bash
# End to end through tracyc's own decoder: examples/c/callstacks.c recorded by the
# in-process capture and by tracyc-capture into the folded-stacks output (one
# "frame;frame;frame count" line per stack, root first): its CPU samples resolve to the
# program's functions, with count_primes, where it spends its time, the most sampled.
# Skipped (77) while the folded output is not built in, or where the kernel refuses
# perf events to this user.
set -uo pipefail
build_dir=$1
example="$build_dir/examples/c/example_callstacks"
capture="$build_dir/tools/tracyc-capture"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset DEBUGINFOD_URLS

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 2 ]; then
  echo "skipped: perf_event_paranoid=$paranoid refuses sampling to this user"
  exit 77
fi

# check FILE LABEL: the folded stacks of one capture.
check() {
  local file=$1 label=$2
  if ! grep -qE '^[^ ].*[^ ] [0-9]+$' "$file" || head -1 "$file" | grep -q '^tracyc capture of'; then
    echo "skipped: $label wrote no folded stacks (tracyc's folded output is not built in yet)"
    exit 77
  fi
  local top
  top=$(awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); leaf[f[k]] += n }
             END { for (l in leaf) print leaf[l], l }' "$file" | sort -rn | head -1 | cut -d' ' -f2-)
  if [ "$top" != "count_primes" ]; then
    echo "$label: the most sampled function is '$top', not count_primes"; head -20 "$file"; exit 1
  fi
  if ! grep -q 'main;work_step;count_primes' "$file"; then
    echo "$label: no stack main;work_step;count_primes"; head -20 "$file"; exit 1
  fi
  echo "$label: folded stacks resolve, count_primes on top"
}

TRACYC_OUTPUT="$work/inproc.folded" "$example" 1 >/dev/null || exit 1
check "$work/inproc.folded" "in-process capture"

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
TRACY_NO_EXIT=1 TRACY_PORT=$port "$example" 1 >/dev/null &
pid=$!
timeout 60 "$capture" -a 127.0.0.1 -p "$port" -o "$work/tcp.folded" -f >/dev/null 2>&1
wait "$pid" || exit 1
check "$work/tcp.folded" "tracyc-capture"
