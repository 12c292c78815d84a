#!/usr/bin/env bash
# The real Tracy 0.14.0 server records the Python sampling mode: `python -m tracer --sample`
# on a two-thread program, captured by tracy-capture and read back by tracy-dump (built on
# upstream's server library outside this repository). Checks: no failure, both threads
# named, CPU samples whose frames the client resolved to the program's Python functions
# (fib on the main thread, Shape.area and its list comprehension on "shaper"), no native
# frame among the most sampled (--sample leaves the interpreter's C stacks out), context
# switches. Needs UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_DUMP and the tracer extension
# built in place (ctest's python_build); skipped (77) without them.
set -uo pipefail
if [ -z "${UPSTREAM_TRACY_CAPTURE:-}" ] || [ -z "${UPSTREAM_TRACY_DUMP:-}" ]; then
  echo "skipped: set UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_DUMP"
  exit 77
fi
python=${TRACYC_PYTHON:-/usr/bin/python3}
package=$(cd "$(dirname "$0")/../.." && pwd)/bindings/python
if ! PYTHONPATH=$package "$python" -c 'import tracer._tracer' 2>/dev/null; then
  echo "skipped: the tracer extension is not built for $python (setup.py build_ext --inplace)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/prog.py" <<'PROG'
import threading, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def work():
    end = time.process_time() + 0.4
    while time.process_time() < end:
        fib(15)

class Shape:
    def area(self):
        return sum([i * i for i in range(20000)])

def shapes():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        Shape().area()

thread = threading.Thread(target=shapes, name="shaper")
thread.start()
work()
thread.join()
PROG
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$work" && PYTHONPATH=$package TRACY_NO_EXIT=1 TRACY_PORT=$port "$python" -m tracer --sample prog.py \
  >"$work/prog.log" 2>&1) &
pid=$!
timeout 60 "$UPSTREAM_TRACY_CAPTURE" -a 127.0.0.1 -p "$port" -o "$work/py.tracy" -f >"$work/capture.log" 2>&1
rc=$?
wait "$pid"
prc=$?
if [ $rc != 0 ] || [ $prc != 0 ]; then
  echo "tracy-capture exited $rc, the program $prc"; cat "$work/capture.log" "$work/prog.log"; exit 1
fi
"$UPSTREAM_TRACY_DUMP" "$work/py.tracy" >"$work/dump.txt" || { echo "tracy-dump failed"; exit 1; }
fail=0
expect() { grep -qE "$1" "$work/dump.txt" || { echo "missing: $1"; fail=1; }; }
expect '^failure: none$'
expect '^thread id=[0-9]+ name="Main thread"$'
expect '^thread id=[0-9]+ name="shaper"$'
expect '^samples: [1-9][0-9]*$'
expect '^top-sampled: fib count=[1-9][0-9]*$'
expect '^top-sampled: Shape\.area(\.<locals>\.<listcomp>)? count=[1-9][0-9]*$'
if grep -E '^top-sampled: (_Py|Py|\[0x)' "$work/dump.txt"; then
  echo "native frames among the samples of --sample"; fail=1
fi
expect '^context-switches: [1-9][0-9]*$'
if [ $fail != 0 ]; then cat "$work/dump.txt"; exit 1; fi
grep -E '^(thread|samples|top-sampled)' "$work/dump.txt"
echo "recorded by tracy-capture 0.14.0: Python samples resolved to the program's functions"
