#!/usr/bin/env bash
# What profiling a Python program costs the whole process (bench/python_cost/measure.py):
# CPU time of every thread, tracyc's and tracer's split by thread, and wall time, untraced
# against cProfile, python -m tracer (hook mode into the in-process capture and a live
# tracyc-capture) and python -m tracer --sample, on call-heavy code, an idle sleep(5) and an
# empty script; interleaved rounds, medians, ratios to the untraced run of the same rounds.
# Then the program thread's cost per call against an empty C hook of the same kind
# (bench/python_overhead/bench.py).
#
#   bench/python_cost.sh [BUILD_DIR]      (ROUNDS=N, default 5; PYTHON, default /usr/bin/python3)
#
# BEFORE=DIR (a directory holding another build's tracer package with its extension built in
# place, e.g. an older checkout's bindings/python) runs each tracer mode with that one too,
# in the same rounds: before and after a change.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
python=${PYTHON:-/usr/bin/python3}
if [ ! -x "$build/bench/bench_process_cost_run" ] || [ ! -x "$build/tools/tracyc-capture" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target bench_process_cost_run tracyc-capture >/dev/null
fi
"$python" setup.py -q build_ext --inplace --build-temp "$build/bench/python_cost/build" >/dev/null
echo "== whole-process cost of profiling Python (bench/python_cost.sh)"
"$python" bench/python_cost/measure.py --runner "$build/bench/bench_process_cost_run" \
  --capture "$build/tools/tracyc-capture" --python "$python" --rounds "${ROUNDS:-5}" ${BEFORE:+--before "$BEFORE"}
echo "== the program thread's cost per call: tracer's hook against an empty C hook and cProfile"
PYTHONPATH=bindings/python "$python" bench/python_overhead/bench.py --repeat 20
