#!/usr/bin/env python3
"""test_ctypes_demo.py - runs examples/ffi/ctypes_demo.py under the in-process capture
and checks the trace: every zone, thread name, plot point and message it emitted.

usage: test_ctypes_demo.py DEMO LIBTRACYC.so SCRATCH_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_json import Checker, Summary, run_captured  # noqa: E402

THREADS, ITEMS = 3, 50


def main():
    demo, library, scratch = sys.argv[1:4]
    output = os.path.join(scratch, "ctypes_demo.json")
    s = Summary(run_captured([sys.executable, demo, library], output)[0])
    c = Checker("ffi_ctypes_demo")
    for i in range(THREADS):
        worker = "ctypes worker %d" % i
        c.check(s.zones_by_thread[(worker, "ctypes work")] == ITEMS, "%d zones on %s" % (ITEMS, worker))
    c.check(s.zones_by_thread[("ctypes main", "ctypes main")] == 1, "the main zone on the main thread")
    c.check(sorted(s.counters["ctypes progress"]) == sorted(list(range(ITEMS)) * THREADS), "plot points")
    c.check("ctypes demo done" in s.instants, "the message")
    c.check(s.other.get("dropped_events") == 0 and s.other.get("unfinished_zones") == 0, "nothing lost")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
