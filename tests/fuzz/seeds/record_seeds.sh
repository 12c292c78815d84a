#!/usr/bin/env bash
# Records the seed corpus from the example programs: each example runs with
# TRACY_NO_EXIT=1 on a free loopback port while record_stream captures its stream.
#
#   tests/fuzz/seeds/record_seeds.sh RECORD_STREAM EXAMPLES_DIR
#
# Writes tests/fuzz/corpus/<target>/<example>, plus queries_arena: one query of every
# kind for each object fuzz_queries registers (at its fixed arena address).
set -euo pipefail
recorder=$1 examples=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
corpus=$root/tests/fuzz/corpus

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

for example in game_loop workers all_events; do
  port=$(free_port)
  TRACY_NO_EXIT=1 TRACY_PORT=$port "$examples/example_$example" >/dev/null &
  pid=$!
  "$recorder" "$port" "$corpus" "$example" || { kill "$pid"; exit 1; }
  wait "$pid"
done

# fuzz_queries: the arena of fuzz_queries.c starts at 0x5a5a00000000; its fields lie at
# these offsets (three 32-byte source locations, then 16-byte strings).
python3 - "$corpus/fuzz_queries/queries_arena" <<'PY'
import struct, sys
base = 0x5a5a00000000
srclocs = [0, 32, 64]
strings = [96 + 16 * i for i in range(8)]
out = b""
for kind in [k for k in range(1, 17) if k != 9]:  # all but Terminate and Disconnect
    for off in srclocs + strings + [4096, 4096 + 256]:  # the last two: the no-access page
        out += struct.pack("<BQI", kind, base + off, 0)
out += struct.pack("<BQI", 2, 77, 0)  # the name of the registered thread
out += struct.pack("<BQI", 0, 0, 0)  # Terminate
open(sys.argv[1], "wb").write(out)
PY
echo "wrote $corpus/fuzz_queries/queries_arena"
