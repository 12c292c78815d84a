"""Python auto-tracing overhead: each workload untraced, under an empty C callback of
tracer's own hook kind (the interpreter's floor), traced by tracer into the in-process
capture (as if a server were connected), and under cProfile; one process, best of N.

    python3 bench/python_overhead/bench.py [--repeat N]

Needs the extension built in place (python3 setup.py build_ext --inplace) or installed.
Prints CPU ns per call (Python and C calls, as counted by a profile hook) and the ratios that
DESIGN.md sets targets for: tracer's overhead <= 1.2 x the empty hook's, and below cProfile's.
Also the floor under the first: the empty hook reading tracyc's clock at each event (a
timestamp per event is what tracer records), and tracer's overhead over that one.
"""
import argparse
import cProfile
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))
sys.path.insert(0, HERE)

from tracer import _session, _tracer  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def build_emptyhook(directory):
    """Compiles emptyhook.c for this interpreter and imports it."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = os.path.join(directory, "emptyhook" + suffix)
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    subprocess.run(cc + ["-shared", "-fPIC", "-O2", "-I", sysconfig.get_paths()["include"],
                         os.path.join(HERE, "emptyhook.c"), "-o", target], check=True)
    spec = importlib.util.spec_from_file_location("emptyhook", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def count_calls(fn):
    """Python and C calls one run makes: the events a profile hook sees."""
    calls = 0

    def counter(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1
    sys.setprofile(counter)
    fn()
    sys.setprofile(None)
    return calls - 1  # the call of sys.setprofile that removes the counter


def best_times(fn, repeat, configs):
    """Best CPU time of the calling thread running fn under each config, measured
    round-robin so that noise from other processes hits every config alike. CPU time
    leaves out the capture's decoding thread, whose work a server does elsewhere."""
    best = {name: float("inf") for name in configs}
    for _ in range(repeat):
        for name, (before, after) in configs.items():
            before()
            start = time.thread_time_ns()
            fn()
            elapsed = time.thread_time_ns() - start
            after()
            best[name] = min(best[name], elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat

    with tempfile.TemporaryDirectory() as tmp:
        emptyhook = build_emptyhook(tmp)
        _tracer.capture_start(os.path.join(tmp, "bench-summary.txt"))
        _session.configure()
        profile = cProfile.Profile()
        hook = "sys.monitoring" if sys.version_info >= (3, 12) else "PyEval_SetProfile"
        print(f"python_overhead: CPython {sys.version.split()[0]}, hook {hook}, best of {repeat}")
        print(f"{'workload':<18}{'calls':>8}{'untraced':>11}{'empty hook':>12}{'clocked hook':>14}{'tracer':>10}"
              f"{'cProfile':>10}   ns per call")
        for name, fn in WORKLOADS.items():
            calls = count_calls(fn)
            fn()  # warm up caches, imports and the tracer's per-code data
            times = best_times(fn, repeat, {
                "untraced": (lambda: None, lambda: None),
                "empty": (emptyhook.install, emptyhook.uninstall),
                "clocked": (emptyhook.install_clocked, emptyhook.uninstall),
                "tracer": (_tracer.start, _tracer.stop),
                "cprofile": (profile.enable, profile.disable),
            })
            per_call = {k: v / calls for k, v in times.items()}
            print(f"{name:<18}{calls:>8}{per_call['untraced']:>11.1f}{per_call['empty']:>12.1f}"
                  f"{per_call['clocked']:>14.1f}{per_call['tracer']:>10.1f}{per_call['cprofile']:>10.1f}")
            base = per_call["untraced"]
            over = {k: per_call[k] - base for k in ("empty", "clocked", "tracer", "cprofile")}
            print(f"{'':<18}overhead ns/call: empty hook {over['empty']:.1f}, clocked hook {over['clocked']:.1f}, "
                  f"tracer {over['tracer']:.1f}, cProfile {over['cprofile']:.1f}")
            print(f"{'':<18}tracer/empty-hook overhead {over['tracer'] / over['empty']:.2f} (target <= 1.2; "
                  f"the clocked hook alone is {over['clocked'] / over['empty']:.2f}), "
                  f"tracer/clocked-hook {over['tracer'] / over['clocked']:.2f}, "
                  f"tracer/cProfile overhead {over['tracer'] / over['cprofile']:.2f} (target < 1); "
                  f"slowdown x{per_call['tracer'] / base:.2f}")
        _tracer.shutdown()


if __name__ == "__main__":
    main()
