#!/usr/bin/env bash
# Replays every recorded stream of fixtures/streams through every output
# (tests/support/replay_outputs.c) and compares each file byte for byte with fixtures/golden,
# but for the Chrome JSON, whose events may come in another order than the golden file's:
# it must hold the same events (json_same.py).
#
#   golden_outputs.sh REPLAY_OUTPUTS [SPILL_MEMORY]   compare; exit 1 on any difference
#   golden_outputs.sh --update REPLAY_OUTPUTS         rewrite fixtures/golden from this build
# SPILL_MEMORY: what the capture keeps in memory before it uses the disk (a small value
# runs every output through its temporary files).
set -uo pipefail
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
replay=$1 spill=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for stream in "$here"/fixtures/streams/*.stream "$here"/fixtures/streams/*.streams; do
  name=$(basename "$(basename "$stream" .stream)" .streams)
  out=$work/$name
  mkdir -p "$out"
  if ! "$replay" "$stream" "$out" $spill; then
    echo "FAIL $name: replay_outputs failed"; failed=1; continue
  fi
  golden=$here/fixtures/golden/$name
  if [ $update = 1 ]; then
    rm -rf "$golden"; mkdir -p "$golden"; cp "$out"/* "$golden"/; continue
  fi
  for f in $( (ls "$out"; ls "$golden") | sort -u); do
    if [ "$f" = trace.json ] && [ -f "$out/$f" ] && [ -f "$golden/$f" ]; then
      if ! report=$(/usr/bin/python3 "$here/json_same.py" "$golden/$f" "$out/$f"); then
        echo "FAIL $name/$f holds other events than fixtures/golden: $report"; failed=1
      fi
    elif ! cmp -s "$out/$f" "$golden/$f"; then
      echo "FAIL $name/$f differs from fixtures/golden:"
      diff "$golden/$f" "$out/$f" 2>&1 | head -20
      failed=1
    fi
  done
done
[ $failed = 0 ] && echo "every output of every stream is as in fixtures/golden"
exit $failed
