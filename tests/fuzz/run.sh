#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/targets, with clang, ASan and UBSan) and runs
# them.
#
#   tests/fuzz/run.sh [--quick] [BUILD_DIR]   replay every committed input, then fuzz each
#                                             target for a bounded number of runs (CI)
#   tests/fuzz/run.sh --long [BUILD_DIR]      fuzz each target for FUZZ_SECONDS (600);
#                                             new inputs go to BUILD_DIR/corpus/<target>,
#                                             crashes to BUILD_DIR/crashes/<target>
#
# BUILD_DIR defaults to build/fuzz. FUZZ_RUNS (--quick, 4000 per target), FUZZ_SECONDS
# (--long) and FUZZ_SEED (1; fixed so a CI failure reproduces) tune it. Prints one line
# per target (executions, crashes) and ends with "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=quick
case "${1:-}" in
  --quick) shift ;;
  --long) mode=long; shift ;;
esac
build=${1:-$root/build/fuzz}
targets="fuzz_decode fuzz_decode_handshake fuzz_decode_items fuzz_queries fuzz_export fuzz_collector fuzz_serve"
corpus=$root/tests/fuzz/corpus
runs=${FUZZ_RUNS:-4000}
seconds=${FUZZ_SECONDS:-600}
seed=${FUZZ_SEED:-1}
# LeakSanitizer's scan at exit can die on the __tls_get_addr interceptor of LLVM's runtime before 17 (the
# same as GCC 12's, where it was seen: tests/CMakeLists.txt)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0

mkdir -p "$build"
if ! cmake -S "$root/tests/fuzz/targets" -B "$build" -DCMAKE_C_COMPILER=clang >"$build/configure.log" 2>&1 ||
   ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
  echo "fuzz targets: build failed (clang and libclang-rt-14-dev needed): see $build/build.log"
  tail -20 "$build/configure.log" "$build/build.log"
  echo "0 passed, 1 failed"
  exit 1
fi

# LuaRemove's target exists when the Lua binding and lua5.4 are there.
[ -x "$build/fuzz_lua_remove" ] && targets="$targets fuzz_lua_remove"

passed=0 failed=0
for t in $targets; do
  bin=$build/$t
  log=$build/$t.log
  mkdir -p "$corpus/$t" "$build/crashes/$t"
  # The project's own Lua scripts seed LuaRemove, read where they live rather than copied.
  seeds=("$corpus/$t")
  [ $t = fuzz_lua_remove ] && seeds+=("$root/examples/lua" "$root/tests/lua/fixtures")
  # 1. Replay: every committed input (seeds and the reproducers of past findings) once.
  inputs=$(find "${seeds[@]}" -type f | sort)
  : >"$log.replay"
  if [ -n "$inputs" ] && ! echo "$inputs" | xargs "$bin" >"$log.replay" 2>&1; then
    echo "$t: replay of $corpus/$t FAILED"; tail -30 "$log.replay"
    failed=$((failed + 1)); continue
  fi
  # 2. Fuzz, starting from the committed corpus; new inputs stay in the build tree.
  work=$build/corpus/$t
  mkdir -p "$work"
  if [ $mode = quick ]; then limit=(-runs="$runs"); else limit=(-max_total_time="$seconds"); fi
  "$bin" "${limit[@]}" -seed="$seed" -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$t/" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(find "$build/crashes/$t" -type f -newer "$log.replay" | wc -l)
  n_inputs=$(echo "$inputs" | grep -c . || true)
  if [ $rc = 0 ]; then
    echo "$t: ${execs:-0} executions, 0 crashes ($n_inputs corpus inputs replayed)"
    passed=$((passed + 1))
  else
    echo "$t: ${execs:-?} executions, ${crashes} crash(es) FAILED: reproducer in $build/crashes/$t"
    grep -E "ERROR|SUMMARY|runtime error|depends on|not valid" "$log" | head -5 | sed 's/^/  /'
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
