#!/usr/bin/env bash
# Replays every recorded stream of fixtures/streams through every output
# (tests/support/replay_outputs.c) and compares each file byte for byte with fixtures/golden.
#
#   golden_outputs.sh REPLAY_OUTPUTS              compare; exit 1 on any difference
#   golden_outputs.sh --update REPLAY_OUTPUTS     rewrite fixtures/golden from this build
set -uo pipefail
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
replay=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for stream in "$here"/fixtures/streams/*.stream; do
  name=$(basename "$stream" .stream)
  out=$work/$name
  mkdir -p "$out"
  if ! "$replay" "$stream" "$out"; then
    echo "FAIL $name: replay_outputs failed"; failed=1; continue
  fi
  golden=$here/fixtures/golden/$name
  if [ $update = 1 ]; then
    rm -rf "$golden"; mkdir -p "$golden"; cp "$out"/* "$golden"/; continue
  fi
  for file in "$out"/* "$golden"/*; do
    f=$(basename "$file")
    if ! cmp -s "$out/$f" "$golden/$f"; then
      echo "FAIL $name/$f differs from fixtures/golden:"
      diff "$golden/$f" "$out/$f" 2>&1 | head -20
      failed=1
    fi
  done
done
[ $failed = 0 ] && echo "every output of every stream is as in fixtures/golden"
exit $failed
