#!/usr/bin/python3
"""measure.py - what profiling a Python program costs the whole process, for
bench/python_cost.sh: CPU time of every thread (tracyc's worker, sampler and symbol
resolver, tracer's sampler thread, the program's own), and wall time.

Each run is `python3 [-m cProfile | -m tracer ...] SCRIPT` under run_traced (every
thread's CPU time at its exit); modes run interleaved, round by round, and the figures are
medians with their range, each with its ratio to the untraced median of the same run:

  call-heavy   bench/python_overhead/workloads.py (recursion, and json+re+classes) about
               a second untraced: untraced, cProfile (-o), tracer's default hook mode into
               the in-process capture (-o FILE.txt) and into a live tracyc-capture, and
               --sample at 1 kHz (-o). Targets: tracer below cProfile; --sample <= 1.03 x.
  sleep 5 s    time.sleep(5): untraced and --sample: the CPU the profiler adds to an idle
               program (target <= 25 ms).
  empty        an empty script: the wall time `python -m tracer` adds to start-up and exit
               (target <= 20 ms), either mode.

With --before DIR (a directory holding another build's `tracer` package, extension built),
each tracer mode also runs with that one, as MODE@before, in the same rounds.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OWN = {"tracyc worker": "worker", "tracyc sampler": "native sampler", "tracyc symbols": "symbols",
       "tracer sampler": "py sampler"}
PARTS = ["worker", "native sampler", "symbols", "py sampler"]

CALL_HEAVY = f"""
import sys
sys.path.insert(0, {os.path.join(REPO, "bench", "python_overhead")!r})
from workloads import WORKLOADS
for _ in range({{fib}}):
    WORKLOADS["fib(22)"]()
for _ in range({{mix}}):
    WORKLOADS["json+re+classes"]()
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def command(args, mode, script, tmp):
    """The command line and environment of one mode."""
    env = dict(os.environ)
    env.pop("TRACYC_OUTPUT", None)
    env["PYTHONPATH"] = os.path.join(REPO, "bindings", "python")
    if mode.endswith("@before"):
        env["PYTHONPATH"] = args.before
        mode = mode[:-len("@before")]
    out = os.path.join(tmp, "out.txt")
    py = [args.python]
    if mode == "untraced":
        return py + [script], env, None
    if mode == "cProfile":
        return py + ["-m", "cProfile", "-o", os.path.join(tmp, "cprofile.out"), script], env, None
    if mode == "tracer":
        return py + ["-m", "tracer", "-o", out, script], env, None
    if mode == "sample":
        return py + ["-m", "tracer", "--sample", "-o", out, script], env, None
    if mode == "tracer live":
        port = free_port()
        return py + ["-m", "tracer", "--wait", "--port", str(port), script], env, port
    if mode == "tracer (summary)":  # no -o, no server: the summary at exit, on stdout
        return py + ["-m", "tracer", script], env, None
    if mode == "sample (summary)":
        return py + ["-m", "tracer", "--sample", script], env, None
    raise ValueError(mode)


def run_once(args, mode, script, tmp):
    cmd, env, port = command(args, mode, script, tmp)
    report = os.path.join(tmp, "threads")
    if os.path.exists(report):
        os.unlink(report)
    prog = subprocess.Popen([args.runner, report] + cmd, env=env, stdout=subprocess.DEVNULL)
    capture = None
    if port:
        capture = subprocess.Popen([args.capture, "-a", "127.0.0.1", "-p", str(port), "-o",
                                    os.path.join(tmp, "live.txt"), "-f"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rc = prog.wait()
    if capture:
        capture.wait()
    if rc != 0:
        sys.exit(f"python_cost: {' '.join(cmd)} ({mode}) exited with {rc}")
    parts = dict.fromkeys(PARTS, 0)
    total = wall = 0
    with open(report) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "wall":
                wall = int(fields[1])
            elif fields[0] != "rusage":
                total += int(fields[1])
                if fields[2] in OWN:
                    parts[OWN[fields[2]]] += int(fields[1])
    return {"total": total, "wall": wall, "parts": parts}


def med(values):
    return statistics.median(values) if values else float("nan")


def span(values, scale):
    return f"{min(values) / scale:.3f}-{max(values) / scale:.3f}"


def report(name, key, modes, runs, target):
    base = med([r[key] for r in runs["untraced"]])
    label = "wall" if key == "wall" else "process CPU"
    print(f"-- {name}: {label}, median of {len(runs['untraced'])} (range), ratio to untraced; {target}")
    print(f"  {'mode':<24} {label + ' s':>14} {'range':>15} {'ratio':>7} {'added ms':>9}   tracyc/tracer threads ms")
    for mode in modes:
        values = [r[key] for r in runs[mode]]
        m = med(values)
        threads = ""
        if mode != "untraced" and not mode.startswith("cProfile"):
            threads = ", ".join(f"{p} {med([r['parts'][p] for r in runs[mode]]) / 1e6:.1f}" for p in PARTS
                                if any(r["parts"][p] for r in runs[mode]))
        print(f"  {mode:<24} {m / 1e9:14.3f} {span(values, 1e9):>15} {m / base:7.3f} {(m - base) / 1e6:9.1f}   "
              f"{threads}")
    return base


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True, help="bench_process_cost_run")
    ap.add_argument("--capture", required=True, help="tracyc-capture")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fib", type=int, default=200, help="fib(22) runs of the call-heavy script")
    ap.add_argument("--mix", type=int, default=1000, help="json+re+classes runs of the call-heavy script")
    ap.add_argument("--only", help="comma-separated: call-heavy,sleep,empty")
    ap.add_argument("--before", help="a directory holding another build's tracer package")
    args = ap.parse_args()

    # tracer's modules are read from their bytecode, as an installed package's (and the
    # standard library's) are, not compiled anew by each run (PYTHONDONTWRITEBYTECODE=1, a
    # read-only checkout)
    for packages in [os.path.join(REPO, "bindings", "python")] + ([args.before] if args.before else []):
        subprocess.run([args.python, "-m", "compileall", "-q", os.path.join(packages, "tracer"),
                        os.path.join(packages, "tracy")], check=True, stdout=subprocess.DEVNULL)

    def with_before(modes):
        return modes + [m + "@before" for m in modes if m.startswith(("tracer", "sample"))] if args.before else modes

    with tempfile.TemporaryDirectory(prefix="python_cost.") as tmp:
        scripts = {"call-heavy": os.path.join(tmp, "call_heavy.py"), "sleep": os.path.join(tmp, "sleep5.py"),
                   "empty": os.path.join(tmp, "empty.py")}
        with open(scripts["call-heavy"], "w") as f:
            f.write(CALL_HEAVY.format(fib=args.fib, mix=args.mix))
        with open(scripts["sleep"], "w") as f:
            f.write("import time\ntime.sleep(5)\n")
        open(scripts["empty"], "w").close()
        jobs = [
            ("call-heavy", "total", with_before(["untraced", "cProfile", "tracer", "tracer live", "sample"]), 1,
             "targets: tracer < cProfile, sample <= 1.03 x"),
            ("sleep", "total", with_before(["untraced", "sample"]), 1, "target: sample adds <= 25 ms"),
            ("empty", "wall", with_before(["untraced", "tracer (summary)", "sample (summary)", "tracer", "sample"]), 5,
             "target: tracer adds <= 20 ms of wall"),
        ]
        if args.only:
            jobs = [j for j in jobs if j[0] in args.only.split(",")]
        results = {name: {m: [] for m in modes} for name, _, modes, _, _ in jobs}
        for rnd in range(args.rounds):
            for name, _, modes, reps, _ in jobs:
                order = modes[rnd % len(modes):] + modes[:rnd % len(modes)]
                for _ in range(reps):
                    for mode in order:
                        results[name][mode].append(run_once(args, mode, scripts[name], tmp))
            print(f"  (round {rnd + 1} of {args.rounds} done)", file=sys.stderr)
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    print(f"python_cost: CPython {version}, load {os.getloadavg()[0]:.2f}")
    titles = {"call-heavy": f"call-heavy (fib(22) x {args.fib}, json+re+classes x {args.mix})",
              "sleep": "time.sleep(5)", "empty": "empty script"}
    for name, key, modes, _, target in jobs:
        report(titles[name], key, modes, results[name], target)
        if name == "call-heavy":
            r = results[name]
            ratio = med([x["total"] for x in r["tracer"]]) / med([x["total"] for x in r["cProfile"]])
            print(f"  tracer / cProfile process CPU {ratio:.3f} (target < 1)")
        if name == "empty":
            base = med([x["total"] for x in results[name]["untraced"]])
            print("  process CPU ms: " + ", ".join(f"{m} {med([x['total'] for x in results[name][m]]) / 1e6:.1f}"
                                                   for m in modes) + f" (untraced {base / 1e6:.1f})")


if __name__ == "__main__":
    main()
