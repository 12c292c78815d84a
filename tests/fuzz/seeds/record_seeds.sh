#!/usr/bin/env bash
# Records the seed corpus: each example program runs with TRACY_NO_EXIT=1 on a free
# loopback port while record_stream captures its stream, once in every protocol version
# (the client speaks the version the capture offers); the recorded streams of upstream
# Tracy's own clients (tests/upstream/fixtures) are added as they are.
#
#   tests/fuzz/seeds/record_seeds.sh RECORD_STREAM EXAMPLES_DIR
#
# Writes tests/fuzz/corpus/<target>/<example> (protocol 82), <example>_<protocol> (the
# others; not for the large workers example) and upstream_<protocol>, plus queries_arena: one query of every kind for each
# object fuzz_queries registers (at its fixed arena address).
set -euo pipefail
recorder=$1 examples=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
corpus=$root/tests/fuzz/corpus

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

for example in game_loop workers all_events; do
  protocols="82 76 74 69 66 64"
  [ $example = workers ] && protocols=82 # large; the others cover every version's paths
  for protocol in $protocols; do
    port=$(free_port)
    name=$example
    [ $protocol = 82 ] || name=${example}_$protocol
    TRACY_NO_EXIT=1 TRACY_PORT=$port "$examples/example_$example" >/dev/null &
    pid=$!
    "$recorder" "$protocol" "$port" "$corpus" "$name" || { kill "$pid"; exit 1; }
    wait "$pid"
  done
done
for fixture in "$root"/tests/upstream/fixtures/*.client; do
  protocol=$(basename "$fixture" .client)
  "$recorder" "$protocol" --replay "$fixture" "$corpus" "upstream_$protocol"
done

# fuzz_queries: the arena of fuzz_queries.c starts at 0x5a5a00000000; its fields lie at
# these offsets (three 32-byte source locations, then 16-byte strings).
python3 - "$corpus/fuzz_queries/queries_arena" <<'PY'
import struct, sys
base = 0x5a5a00000000
srclocs = [0, 32, 64]
strings = [96 + 16 * i for i in range(8)]
out = bytes([82])  # the protocol version byte (fuzz_util.h)
for kind in [k for k in range(1, 17) if k != 9]:  # all but Terminate and Disconnect
    for off in srclocs + strings + [4096, 4096 + 256]:  # the last two: the no-access page
        out += struct.pack("<BQI", kind, base + off, 0)
out += struct.pack("<BQI", 2, 77, 0)  # the name of the registered thread
out += struct.pack("<BQI", 0, 0, 0)  # Terminate
open(sys.argv[1], "wb").write(out)
PY
echo "wrote $corpus/fuzz_queries/queries_arena"
