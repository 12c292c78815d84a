#!/usr/bin/env bash
# Formats every C source of the project with the repository's .clang-format.
# --check: change nothing, list the files that are not formatted, exit 1 if any.
# One clang-format process for all files: one per file took minutes on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = "--check" ]; then
  errors=$(clang-format --dry-run -Werror "${files[@]}" 2>&1 >/dev/null) && exit 0
  bad=$(echo "$errors" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
  if [ -z "$bad" ]; then # another failure (a file it cannot read): show it as it is
    echo "$errors"
  else
    echo "$bad" | sed 's/^/not formatted: /'
  fi
  exit 1
fi
clang-format -i "${files[@]}"
