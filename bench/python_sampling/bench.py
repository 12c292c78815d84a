"""Python sampling mode: what sampling the stacks of every thread costs the program, by
mechanism and rate, against the untraced run, the profile hook and cProfile measured in
the same process; then how well the sampled top functions match the exact zone profile.

    python3 bench/python_sampling/bench.py [--repeat N] [--no-accuracy]

Needs the extension built for this interpreter (python3 setup.py build_ext --inplace, or
PYTHONPATH pointing at a build). Mechanisms (docs/python.md, "Sampling"):

  tracer    tracer's sampler: a per-thread CPU clock signals the thread, whose handler
            reads its own frames (what `python -m tracer --sample` uses)
  gil       a sampler thread that takes the GIL to read every thread's frames
  remote    a sampler thread that reads every thread's frames without the GIL, each read
            checked by the kernel (process_vm_readv)
  floor     the kernel's part of tracer's mechanism alone: the same per-thread clock and
            signal into an empty handler (tracer's cost above it is its handler's)

For each: the program thread's CPU time (what the program pays), wall time, the samples it
got per second of program CPU, and the sampler thread's own CPU time (tracer: its drain
thread; the others: their sampling thread). Best of N, round-robin, as the machine is shared.
"""
import argparse
import cProfile
import collections
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.append(os.path.join(REPO, "bindings", "python"))  # after PYTHONPATH: a build for another CPython
sys.path.insert(0, os.path.join(REPO, "bench", "python_overhead"))

from tracer import _sampling, _session, _tracer  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def build_protos(directory):
    """Compiles proto_samplers.c (the mechanisms not chosen) for this interpreter."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = os.path.join(directory, "proto_samplers" + suffix)
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    subprocess.run(cc + ["-shared", "-fPIC", "-O2", "-w", "-I", sysconfig.get_paths()["include"],
                         os.path.join(HERE, "proto_samplers.c"), "-o", target, "-lpthread"], check=True)
    spec = importlib.util.spec_from_file_location("proto_samplers", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Config:
    """One way of running the workload: start(), stop() -> (samples, sampler CPU ns)."""

    def __init__(self, name, start=None, stop=None):
        self.name, self._start, self._stop = name, start, stop

    def start(self):
        if self._start:
            self._start()

    def stop(self):
        return self._stop() if self._stop else (0, 0)


def tracer_config(hz):
    state = {}

    def start():
        state["before"] = _tracer.sampling_stats()
        _sampling.start(hz)

    def stop():
        _sampling.stop()
        after = _tracer.sampling_stats()
        return after["samples"] - state["before"]["samples"], after["sampler_cpu_ns"]  # (a new thread each run)
    return Config(f"tracer {hz // 1000}k", start, stop)


def proto_config(protos, kind, hz):
    def stop():
        samples, _, cpu = protos.stop()
        return samples, cpu
    return Config(f"{kind} {hz // 1000}k", lambda: protos.start(kind, hz), stop)


def measure(fn, repeat, configs):
    """Best thread-CPU and wall time of fn under each config, round-robin."""
    best = {c.name: [float("inf"), float("inf"), 0, 0] for c in configs}
    for _ in range(repeat):
        for c in configs:
            c.start()
            wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
            fn()
            cpu, wall = time.thread_time_ns() - cpu0, time.perf_counter_ns() - wall0
            samples, sampler_cpu = c.stop()
            b = best[c.name]
            if cpu < b[0]:
                best[c.name] = [cpu, min(b[1], wall), samples, sampler_cpu]
            else:
                b[1] = min(b[1], wall)
    return best


def repeated(fn, seconds):
    """fn repeated so that one run takes about `seconds` of CPU untraced."""
    start = time.thread_time()
    n = 0
    while time.thread_time() - start < 0.05:
        fn()
        n += 1
    reps = max(1, int(n * seconds / 0.05))

    def run():
        for _ in range(reps):
            fn()
    run.reps = reps
    return run


def overhead(args, protos):
    profile = cProfile.Profile()
    configs = [Config("untraced"), proto_config(protos, "floor", 1000), tracer_config(1000),
               proto_config(protos, "floor", 10000), tracer_config(10000),
               proto_config(protos, "gil", 1000), proto_config(protos, "gil", 10000),
               proto_config(protos, "remote", 1000), proto_config(protos, "remote", 10000),
               Config("profile hook", _tracer.start, lambda: (_tracer.stop(), (0, 0))[1]),
               Config("cProfile", profile.enable, lambda: (profile.disable(), (0, 0))[1])]
    stats = _tracer.sampling_stats()
    print(f"python_sampling: CPython {sys.version.split()[0]}, tracer's clock: {stats['clock']}, "
          f"best of {args.repeat}; each run ~{args.seconds:.1f} s of CPU untraced")
    names = [c.name for c in configs]
    for label, fn in WORKLOADS.items():
        run = repeated(fn, args.seconds)
        run()  # warm up
        best = measure(run, args.repeat, configs)
        base_cpu, base_wall = best["untraced"][0], best["untraced"][1]
        print(f"\n{label} x{run.reps}: untraced {base_cpu / 1e6:.1f} ms CPU, {base_wall / 1e6:.1f} ms wall")
        print(f"  {'':<28}" + "".join(f"{n:>13}" for n in names[1:]))
        rows = [
            ("program CPU, vs untraced", lambda b: f"{100 * (b[0] / base_cpu - 1):+.1f}%"),
            ("wall time, vs untraced", lambda b: f"{100 * (b[1] / base_wall - 1):+.1f}%"),
            ("samples per CPU second", lambda b: f"{b[2] / (b[0] / 1e9):.0f}" if b[2] else "-"),
            ("sampler thread CPU", lambda b: f"{100 * b[3] / b[0]:.1f}%" if b[3] else "-"),
        ]
        for title, cell in rows:
            print(f"  {title:<28}" + "".join(f"{cell(best[n]):>13}" for n in names[1:]))


# The workloads of bench/python_overhead, mixed: the profile hook costs a small function
# (fib) far more than a function that spends its time in C (json), which shifts the
# zone profile's shares toward call-heavy functions.
MIXED_PROGRAM = textwrap.dedent("""\
    import sys
    sys.path.insert(0, {workloads!r})
    from workloads import WORKLOADS
    fns = list(WORKLOADS.values())
    for _ in range({rounds}):
        for fn in fns:
            fn()
    """)

# Five functions with known shares of the CPU time (40, 25, 15, 12, 8 %), each spending it
# in one loop of its own: few calls, so the zone profile is close to exact too.
KNOWN_PROGRAM = textwrap.dedent("""\
    def forty():
        for _ in range(40):
            sum(range(2000))
    def twenty_five():
        for _ in range(25):
            sum(range(2000))
    def fifteen():
        for _ in range(15):
            sum(range(2000))
    def twelve():
        for _ in range(12):
            sum(range(2000))
    def eight():
        for _ in range(8):
            sum(range(2000))
    for _ in range({rounds} * 10):
        forty(); twenty_five(); fifteen(); twelve(); eight()
    """)


def zone_self_times(path):
    """Self time per zone name from a Chrome JSON capture."""
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    self_time = collections.Counter()
    by_thread = collections.defaultdict(list)
    for e in events:
        by_thread[e["tid"]].append(e)
    for zones in by_thread.values():
        zones.sort(key=lambda z: (z["ts"], -z["dur"]))
        stack = []
        for z in zones:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= z["ts"]:
                stack.pop()
            if stack:
                self_time[stack[-1]["name"]] -= z["dur"]
            self_time[z["name"]] += z["dur"]
            stack.append(z)
    return self_time


def sampled_self(path):
    """Self samples per function from folded stacks (the innermost frame)."""
    counts = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            counts[stack.split(";")[-1]] += int(n)
    return counts


def shares(counter):
    total = sum(v for v in counter.values() if v > 0)
    return {k: v / total for k, v in counter.items()}


def compare(args, title, source):
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "program.py")
        with open(program, "w") as f:
            f.write(source)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

        def run(*cli, output):
            path = os.path.join(tmp, output)
            subprocess.run([sys.executable, "-m", "tracer", "-o", path, *cli, program], env=env, check=True,
                           cwd=tmp)
            return path

        exact = shares(zone_self_times(run("--include", "*", "--no-c-calls", output="zones.json")))
        sampled = {hz: shares(sampled_self(run("--sample", str(hz), output=f"s{hz}.folded")))
                   for hz in (1000, 10000)}
    top = sorted(exact, key=exact.get, reverse=True)[:5]
    print(f"\naccuracy, {title}: the top 5 functions' shares of self time in the exact zone profile (every "
          "Python call a zone, C calls in their caller) and of self samples")
    print(f"  {'function':<36}{'zones':>9}{'1 kHz':>9}{'10 kHz':>9}")
    for name in top:
        print(f"  {name:<36}{100 * exact[name]:>8.1f}%" +
              "".join(f"{100 * sampled[hz].get(name, 0):>8.1f}%" for hz in (1000, 10000)))
    for hz in (1000, 10000):
        err = max(abs(exact[n] - sampled[hz].get(n, 0)) for n in top)
        print(f"  largest difference at {hz // 1000} kHz: {100 * err:.1f} points")


def untraced_fib_share():
    """fib's share of the mixed program's CPU time, from each workload timed apart untraced."""
    best = {}
    for label, fn in WORKLOADS.items():
        times = []
        for _ in range(7):
            start = time.thread_time_ns()
            for _ in range(20):
                fn()
            times.append(time.thread_time_ns() - start)
        best[label] = min(times)
    return best["fib(22)"] / sum(best.values())


def accuracy(args):
    compare(args, "five functions with known shares (40/25/15/12/8 %)", KNOWN_PROGRAM.format(rounds=args.rounds))
    compare(args, f"the workloads mixed ({args.rounds} rounds)",
            MIXED_PROGRAM.format(workloads=os.path.join(REPO, "bench", "python_overhead"), rounds=args.rounds))
    print(f"  untraced, fib takes {100 * untraced_fib_share():.1f}% of the mixed program's CPU time (the workloads "
          "timed apart): the hook's cost per call inflates it in the zone profile")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--rounds", type=int, default=40, help="rounds of the workloads for the accuracy check")
    parser.add_argument("--no-accuracy", action="store_true")
    args = parser.parse_args()
    # The profiler's own native samples of the interpreter run on every row unless turned off;
    # the sampling mode runs without them (docs/python.md, "Native samples"), so does the bench.
    os.environ.setdefault("TRACY_NO_SAMPLING", "1")
    with tempfile.TemporaryDirectory() as tmp:
        protos = build_protos(tmp)
        _tracer.capture_start(os.path.join(tmp, "bench-summary.txt"))
        _session.configure()
        overhead(args, protos)
        _tracer.shutdown()
    if not args.no_accuracy:
        accuracy(args)


if __name__ == "__main__":
    main()
