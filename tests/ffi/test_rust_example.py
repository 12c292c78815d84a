#!/usr/bin/env python3
"""test_rust_example.py - builds examples/rust offline against the libtracyc.so under
test, runs it under the in-process capture and checks the trace: every worker's zones
and values, thread names, plot points and the final message.

usage: test_rust_example.py CARGO EXAMPLE_DIR LIB_DIR SCRATCH_DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_json import Checker, Summary, run_captured  # noqa: E402

THREADS, CHUNKS = 4, 25


def main():
    cargo, example, lib_dir, scratch = sys.argv[1:5]
    target = os.path.join(scratch, "rust-target")
    env = dict(os.environ, CARGO_TARGET_DIR=target, TRACYC_LIB_DIR=lib_dir)
    subprocess.run([cargo, "build", "--offline", "--locked", "--quiet"], cwd=example, env=env, check=True,
                   timeout=600)
    binary = os.path.join(target, "debug", "tracyc-rust-example")
    trace, stdout = run_captured([binary], os.path.join(scratch, "rust_example.json"))
    s = Summary(trace)
    c = Checker("ffi_rust_example")
    found = int(re.match(r"(\d+) primes", stdout).group(1))
    for i in range(THREADS):
        worker = "rust worker %d" % i
        c.check(s.zones_by_thread[(worker, "rust chunk")] == CHUNKS, "%d chunk zones on %s" % (CHUNKS, worker))
        c.check(s.zones_by_thread[(worker, "rust worker total")] == 1, "the run-time named zone on " + worker)
    c.check(s.zones_by_thread[("rust main", "rust main")] == 1, "the main zone on the main thread")
    c.check(s.zone_values["rust chunk"] == found, "chunk zone values add up to %d" % found)
    c.check(s.zone_values["rust worker total"] == found, "worker totals add up to %d" % found)
    c.check(len(s.counters["rust primes"]) == THREADS * CHUNKS, "plot points")
    c.check("rust example done: %d primes" % found in s.instants, "the message")
    c.check(s.other.get("dropped_events") == 0 and s.other.get("unfinished_zones") == 0, "nothing lost")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
