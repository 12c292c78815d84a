#!/usr/bin/env bash
# Runs every test: the C, Lua (on Lua 5.1, 5.3, 5.4 and LuaJIT), Python and FFI suites in a
# normal build, the C tests and the Lua 5.4 tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the threaded ones under ThreadSanitizer. Ends with one
# line: "N passed, N failed, N skipped", where a pytest suite counts as the tests pytest ran
# (scripts/count_tests.py) and a skipped test (ctest's or pytest's) as skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh gcc make cmake pkg-config liblz4-dev lua5.4 liblua5.4-dev lua5.3 liblua5.3-dev \
  lua5.1 liblua5.1-0-dev luajit libluajit-5.1-dev neovim \
  python3 python3-dev python3-pytest python3-pytest-xdist python3-setuptools libffi-dev clang clang-format libclang-rt-14-dev \
  libdw-dev libdw1 libiberty-dev libunwind8 protobuf-compiler python3-protobuf ||
  exit 1 # libdw-dev: headers; libdw1: loaded at run time; protoc and python3-protobuf read .pftrace back
command -v cargo >/dev/null || scripts/deps.sh cargo || exit 1

jobs=$(nproc)
passed=0 failed=0 skipped=0

# run_suite NAME BUILD_DIR CMAKE_ARGS CTEST_ARGS
run_suite() {
  local name=$1 dir=$2 cmake_args=$3 ctest_args=$4 log
  echo "=== $name"
  mkdir -p "$(dirname "$dir")"
  if ! cmake -S . -B "$dir" $cmake_args >"$dir.configure.log" 2>&1 ||
     ! cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1; then
    echo "build failed: see $dir.build.log"; tail -30 "$dir.build.log" "$dir.configure.log" 2>/dev/null
    failed=$((failed + 1)); return
  fi
  rm -rf "$dir/junit" "$dir/ctest-junit.xml" # pytest's files (tests/CMakeLists.txt) and ctest's
  log=$(cd "$dir" && ctest --output-on-failure --output-junit ctest-junit.xml -j"$jobs" $ctest_args 2>&1)
  echo "$log" | grep -E "Test +#|tests passed|Failed|\*\*\*" | sed 's/^/  /'
  echo "$log" | grep -q "No tests were found" && return
  local counts p f s
  if ! counts=$(/usr/bin/python3 scripts/count_tests.py "$dir/ctest-junit.xml" "$dir/junit"); then
    failed=$((failed + 1)); echo "$log" | tail -40; return
  fi
  echo "$counts" | sed '$d' | sed 's/^/  /'
  read -r p f s <<<"$(echo "$counts" | tail -1)"
  echo "  $name: $p passed, $f failed, $s skipped"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" != 0 ]; then # what the failing tests printed (ctest --output-on-failure), for CI's log
    echo "$log" | grep -v -E "Test +#[0-9]+: .* Passed|^ *Start +[0-9]+:|Skipped" | head -400 | sed 's/^/  | /'
  fi
}

run_suite "all tests" build/test "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ""
run_suite "C, Lua 5.4 and FFI tests under ASan+UBSan" build/asan \
  "-DCMAKE_BUILD_TYPE=Debug -DTRACYC_SANITIZE=address,undefined -DTRACYC_BUILD_BENCH=OFF -DTRACYC_LUA_VERSIONS=5.4" \
  "-L ^c$|^lua$|^ffi$"
run_suite "threaded tests under TSan" build/tsan \
  "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACYC_SANITIZE=thread -DTRACYC_BUILD_BENCH=OFF -DTRACYC_BUILD_LUA=OFF" "-L threaded"

echo "=== fuzz targets (libFuzzer, ASan+UBSan): replay the corpus, then bounded runs"
fuzz_log=$(tests/fuzz/run.sh --quick build/fuzz 2>&1)
echo "$fuzz_log" | sed 's/^/  /'
fp=$(echo "$fuzz_log" | tail -1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
ff=$(echo "$fuzz_log" | tail -1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
passed=$((passed + ${fp:-0})); failed=$((failed + ${ff:-1}))

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
