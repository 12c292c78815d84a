#!/bin/sh
# Runs a test program as the unprivileged user nobody (what a normal user's profiled
# program may do with perf events), when this runs as root and setpriv is there; else
# skipped (exit 77).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
  echo "skipped: needs root and setpriv to become nobody"
  exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups "$@"; }
# The build directory is often closed to other users (a clone in a mktemp -d): run a copy
# from a directory nobody can read. The program links tracyc statically.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$1" "$dir/test"
shift
cd /tmp && as_nobody "$dir/test" "$@"
