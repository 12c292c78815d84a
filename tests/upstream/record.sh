#!/usr/bin/env bash
# Records upstream Tracy's own client of each release talking to that release's
# tracy-capture, as the replay fixtures of tests/c/test_upstream_replay.c. Run by hand,
# outside CI: it needs upstream's tools and client library built outside this repository
# (one directory per release with bin/tracy-capture, bin/tracy-dump, client/ and src/tracy).
#
#   UPSTREAM_TRACY_ROOT=/path/to/builds tests/upstream/record.sh [RELEASE_DIR_NAME...]
#
# For each release: builds client.c against its TracyC.h and client library, runs it, and
# records on loopback (tcp_record.py) the session with that release's tracy-capture. Writes
# fixtures/<protocol>.client (the client's bytes, host description replaced),
# fixtures/<protocol>.server (the server's bytes: hello, queries) and
# fixtures/<protocol>.expect (what upstream's tracy-dump reads from the capture file).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${UPSTREAM_TRACY_ROOT:?set UPSTREAM_TRACY_ROOT to the directory of upstream builds}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$here/fixtures"
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=($(cd "$root" && ls -d v0.*/ | tr -d / | sort -V))
for release in "${releases[@]}"; do
  dir=$root/$release
  [ -x "$dir/bin/tracy-capture" ] && [ -f "$dir/client/libTracyClient.so" ] || { echo "$release: skipped"; continue; }
  protocol=$(sed -n 's/.*ProtocolVersion = \([0-9]*\).*/\1/p' "$dir/src/tracy/public/common/TracyProtocol.hpp")
  minor=$(echo "$release" | cut -d. -f2)
  # Built with a relative name, so the fixture's file names are "client.c", from a copy
  # older than the executable (see the capture below).
  cp "$here/client.c" "$work/client.c"
  touch -d '-1 minute' "$work/client.c"
  (cd "$work" && gcc -O1 -DTRACY_ENABLE -DUPSTREAM_MINOR="$minor" -I"$dir/src/tracy/public" client.c \
     -o "$work/client_$protocol" -L"$dir/client" -lTracyClient -Wl,-rpath,"$dir/client" -lpthread)
  p=$(port) q=$(port)
  TRACY_PORT=$p TRACY_NO_CONTEXT_SWITCH=1 TRACY_NO_SAMPLING=1 TRACY_NO_SYS_TRACE=1 "$work/client_$protocol" &
  client=$!
  python3 "$here/tcp_record.py" "$q" "$p" "$work/rec_$protocol" &
  proxy=$!
  # Where client.c is: upstream's server reads it there instead of asking the client for it
  # (as it would for a missing file, or one newer than the executable), so the recorded
  # queries are the ones tracyc's decoder sends too, which never asks for source code.
  (cd "$work" && timeout 60 "$dir/bin/tracy-capture" -a 127.0.0.1 -p "$q" -o "$work/$protocol.tracy" -f \
     >"$work/capture.log" 2>&1)
  wait "$client" "$proxy"
  "$dir/bin/tracy-dump" "$work/$protocol.tracy" | grep -v '^capture:' >"$here/fixtures/$protocol.expect"
  cp "$work/rec_$protocol.client" "$here/fixtures/$protocol.client"
  cp "$work/rec_$protocol.server" "$here/fixtures/$protocol.server"
  echo "$release: protocol $protocol, $(wc -c <"$here/fixtures/$protocol.client") client bytes," \
       "$(wc -c <"$here/fixtures/$protocol.server") server bytes"
done
