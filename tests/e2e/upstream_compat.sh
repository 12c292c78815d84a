#!/usr/bin/env bash
# tracyc against the real Tracy tools, of every release given. Needs upstream's binaries,
# built outside this repository; skipped (exit 77) without them.
#
#   UPSTREAM_TRACY_ROOT=DIR upstream_compat.sh BUILD_DIR
#       every release directory DIR/v*/ found: bin/tracy-capture, bin/tracy-csvexport,
#       bin/tracy-dump (server side), client/libTracyClient.so with src/tracy (client side)
#   UPSTREAM_TRACY_CAPTURE=... UPSTREAM_TRACY_CSVEXPORT=... upstream_compat.sh BUILD_DIR
#       one release's tracy-capture and tracy-csvexport (server side only)
#
# Server side, for each release's tracy-capture: the C examples (tracyc, TRACY_NO_EXIT=1)
# are recorded; tracy-csvexport's zone rows and counts must equal tracyc's own CSV of the
# same program, and for all_events (every kind of event) tracy-dump must find exactly
# what the program sent: events the release's protocol lacks are not sent, and one
# message names them.
# Client side, for each release's client library: tests/upstream/client.c is built
# against it and recorded once by tracyc-capture and once by the release's own
# tracy-capture: zone rows, counts and messages must be the same.
set -euo pipefail
build_dir=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# name,file,line,counts of each row, sorted: the comparison ignores row order and timings.
rows() { awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $6 }' "$1" | sort; }
messages() { awk -F, 'NR > 1 { print $1 }' "$1" | sort; }
capture_tool=$build_dir/tools/tracyc-capture

# server_side NAME CAPTURE CSVEXPORT [DUMP]
server_side() {
  local name=$1 capture=$2 csvexport=$3 dump=${4:-} example p pid protocol
  for example in game_loop workers all_events; do
    p=$(port)
    # Two runs of the same deterministic program: one recorded by upstream's tracy-capture,
    # one by the in-process capture.
    TRACYC_OUTPUT="$work/$example.ours.csv" "$build_dir/examples/c/example_$example" >/dev/null
    TRACY_NO_EXIT=1 TRACY_PORT=$p "$build_dir/examples/c/example_$example" >/dev/null &
    pid=$!
    timeout 60 "$capture" -a 127.0.0.1 -p "$p" -o "$work/$example.tracy" -f >"$work/$example.log" 2>&1
    wait "$pid"
    if grep -q "Instrumentation failure" "$work/$example.log"; then
      cat "$work/$example.log"; exit 1
    fi
    "$csvexport" "$work/$example.tracy" >"$work/$example.upstream.csv"
    if ! diff <(rows "$work/$example.upstream.csv") <(rows "$work/$example.ours.csv"); then
      echo "$name: $example: tracyc's CSV differs from tracy-csvexport's"; exit 1
    fi
  done
  if [ -n "$dump" ]; then
    # What all_events sends (examples/c/all_events.c); a release lacking some kinds gets a
    # message saying so instead.
    "$dump" "$work/all_events.tracy" >"$work/dump.txt"
    "$csvexport" -m "$work/all_events.tracy" >"$work/messages.csv"
    protocol=$(sed -n 's/.*ProtocolVersion = \([0-9]*\).*/\1/p' "$(dirname "$dump")/../src/tracy/public/common/TracyProtocol.hpp")
    # five messages, and tracyc's report of the NaN plot value it did not send
    local lacking="" n_messages=6
    grep -q "^tracyc: skipped 1 plot values in total: NaN or infinity" "$work/messages.csv" ||
      { echo "$name: the message about the skipped plot value is missing:"; cat "$work/messages.csv"; exit 1; }
    [ "$protocol" -lt 82 ] && lacking="3 section events"
    [ "$protocol" -lt 74 ] && lacking="$lacking, 1 memory discards"
    if [ -n "$lacking" ]; then
      n_messages=7
      grep -q "^tracyc: not sent to this server, whose protocol $protocol (.*) lacks them: $lacking," "$work/messages.csv" ||
        { echo "$name: the message naming what was not sent is missing:"; cat "$work/messages.csv"; exit 1; }
    fi
    printf '%s\n' "zones: 3" "gpu zones: 1" "messages: $n_messages" "frames(base): 4" "lockables: 2" \
      "memory pools: 2" "memory events: 2" 'plot "value" points=1' 'plot "float plot" points=1' \
      'plot "int plot" points=1' "appinfo: all_events" "failure: none" >"$work/expected.txt"
    # The server makes plots of its own (frame times, memory pools) depending on timing:
    # only the plots the program sent are compared.
    if ! diff <(grep -v '^capture:\|^thread\|^callstacks\|^samples\|^context-switches' "$work/dump.txt" |
                grep -v '^plot "' ; grep '^plot "\(value\|float plot\|int plot\)"' "$work/dump.txt") \
              <(grep -v '^plot "' "$work/expected.txt"; grep '^plot "' "$work/expected.txt"); then
      echo "$name: tracy-dump of all_events differs from what it sent"; exit 1
    fi
  fi
  echo "$name: tracy-capture recorded tracyc's examples; CSV rows and counts agree${dump:+, all_events exact}"
}

# client_side NAME RELEASE_DIR
client_side() {
  local name=$1 dir=$2 minor p pid
  minor=$(echo "$name" | cut -d. -f2)
  (cd "$here/../upstream" && gcc -O1 -DTRACY_ENABLE -DUPSTREAM_MINOR="$minor" -I"$dir/src/tracy/public" client.c \
    -o "$work/client" -L"$dir/client" -lTracyClient -Wl,-rpath,"$dir/client" -lpthread)
  for server in upstream tracyc; do
    p=$(port)
    TRACY_PORT=$p TRACY_NO_CONTEXT_SWITCH=1 TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 "$work/client" &
    pid=$!
    if [ $server = upstream ]; then
      timeout 60 "$dir/bin/tracy-capture" -a 127.0.0.1 -p "$p" -o "$work/client.tracy" -f >"$work/client.log" 2>&1
      "$dir/bin/tracy-csvexport" "$work/client.tracy" >"$work/client.upstream.csv"
      "$dir/bin/tracy-csvexport" -m "$work/client.tracy" >"$work/client.upstream.messages.csv"
    else
      timeout 60 "$capture_tool" -p "$p" -o "$work/client.ours.csv" -f >"$work/client.log"
      grep -q "client: protocol" "$work/client.log" || { cat "$work/client.log"; exit 1; }
    fi
    wait "$pid"
  done
  # The messages: tracyc-capture's CSV of them comes from a second recording of its own.
  p=$(port)
  TRACY_PORT=$p TRACY_NO_CONTEXT_SWITCH=1 TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 "$work/client" &
  pid=$!
  timeout 60 "$capture_tool" -p "$p" -o "$work/client.ours.messages.csv" -f --messages >/dev/null
  wait "$pid"
  if ! diff <(rows "$work/client.upstream.csv") <(rows "$work/client.ours.csv") ||
     ! diff <(messages "$work/client.upstream.messages.csv" | grep -v '^Loaded .* kernel symbols') \
            <(messages "$work/client.ours.messages.csv" | grep -v '^Loaded .* kernel symbols'); then
    echo "$name: tracyc-capture and tracy-capture disagree on upstream's client"; exit 1
  fi
  echo "$name: tracyc-capture recorded upstream's client ($(sed -n 's/.*client: //p' "$work/client.log")); zones, counts and messages agree with tracy-capture"
}

if [ -n "${UPSTREAM_TRACY_ROOT:-}" ]; then
  found=0
  for dir in $(ls -d "$UPSTREAM_TRACY_ROOT"/v*/ 2>/dev/null | sort -V); do
    dir=${dir%/}
    name=$(basename "$dir")
    if [ -x "$dir/bin/tracy-capture" ] && [ -x "$dir/bin/tracy-csvexport" ]; then
      dump=""
      [ -x "$dir/bin/tracy-dump" ] && dump=$dir/bin/tracy-dump
      server_side "$name" "$dir/bin/tracy-capture" "$dir/bin/tracy-csvexport" "$dump"
      found=1
    fi
    if [ -f "$dir/client/libTracyClient.so" ] && [ -d "$dir/src/tracy/public" ] && [ -x "$dir/bin/tracy-capture" ]; then
      client_side "$name" "$dir"
      found=1
    fi
  done
  [ $found = 1 ] || { echo "skipped: no release found in $UPSTREAM_TRACY_ROOT"; exit 77; }
elif [ -n "${UPSTREAM_TRACY_CAPTURE:-}" ] && [ -n "${UPSTREAM_TRACY_CSVEXPORT:-}" ]; then
  server_side "tracy-capture" "$UPSTREAM_TRACY_CAPTURE" "$UPSTREAM_TRACY_CSVEXPORT"
else
  echo "skipped: set UPSTREAM_TRACY_ROOT, or UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_CSVEXPORT"
  exit 77
fi
