#!/bin/sh
# Runs a test program as the unprivileged user nobody (what a normal user's profiled
# program may do with perf events), when this runs as root and setpriv is there; else
# skipped (exit 77).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
  echo "skipped: needs root and setpriv to become nobody"
  exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups "$@"; }
if ! as_nobody test -x "$1"; then
  echo "skipped: nobody cannot run $1 (directory permissions)"
  exit 77
fi
cd /tmp && exec setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups "$@"
