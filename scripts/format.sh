#!/usr/bin/env bash
# Formats every C source of the project with the repository's .clang-format.
# --check: change nothing, list the files that are not formatted, exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || { echo "not formatted: $f"; bad=1; }
  done
  exit $bad
fi
clang-format -i "${files[@]}"
