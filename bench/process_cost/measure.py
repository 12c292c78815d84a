#!/usr/bin/python3
"""measure.py - whole-process CPU of programs untraced and profiled, for bench/process_cost.sh.

Each program runs under run_traced (every thread's CPU time at its exit) with tracyc
preloaded (start.c), in four modes, interleaved round by round:
  untraced  TRACYC_DISABLE=1
  noserver  profiled, nothing ever connected: sampling from the start, its records kept for
            a server that never comes (within TRACYC_BUFFER_LIMIT)
  inproc    TRACYC_OUTPUT=<tmp>.txt: the in-process capture, sampling at the default rate
  live      a tracyc-capture connected over loopback (the program waits for it at start)
With --before LIB (another build's start library, whose rpath names its libtracyc), each
traced mode runs with that build too, as MODE@before, in the same rounds.
Prints, per program, the median process CPU of each mode with its range and its ratio to
the untraced median of the same run, the median of each round's ratio to that round's
untraced run ("paired": steadier when the machine's speed drifts), the median wall time and its ratio, the median
peak resident memory over untraced's, the samples kept per CPU second and in how many runs the capture kept any, then the median per-thread split of tracyc's CPU:
its worker, sampler and symbol resolver threads, and its shutdown on the program's main
thread at exit ("exit"). An idle program (--idle) runs for two lengths of time in each round
and mode; what a second of idling costs is the difference between the two runs' CPU over the
difference of their lengths (each round's, their median), and the rest is the fixed cost of
starting and ending (loading, the first connection, the exit). It runs in two more modes:
  children  TRACYC_OUTPUT and TRACYC_FOLLOW_FORK=1: the in-process capture ready to collect
            the program's children (none come)
  dialing   TRACYC_CONNECT to a loopback port nobody listens on: dialing a collector that
            is not there
"""
import argparse
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile

OWN = {"tracyc worker": "worker", "tracyc sampler": "sampler", "tracyc symbols": "symbols"}
PARTS = ["worker", "sampler", "symbols", "exit"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_once(args, cmd, mode, tmp):
    env = dict(os.environ)
    env["BENCH_PRELOAD"] = args.start
    if mode.endswith("@before"):
        env["BENCH_PRELOAD"] = args.before
        mode = mode[:-len("@before")]
    note = os.path.join(tmp, "exit_note")
    report = os.path.join(tmp, "threads")
    env["BENCH_EXIT_NOTE"] = note
    # Inflated debug files (native/debug_cache.h) in a directory of this run's: the first
    # traced run makes them (its CPU is in the range), the others read them.
    env.setdefault("TRACYC_DEBUG_CACHE", os.path.join(tmp, "debug-cache"))
    for f in (note, report):
        if os.path.exists(f):
            os.unlink(f)
    capture = None
    if mode == "untraced":
        env["TRACYC_DISABLE"] = "1"
    elif mode == "inproc":
        env["TRACYC_OUTPUT"] = os.path.join(tmp, "inproc.txt")
    elif mode == "noserver":
        pass
    elif mode == "children":
        env["TRACYC_OUTPUT"] = os.path.join(tmp, "inproc.txt")
        env["TRACYC_FOLLOW_FORK"] = "1"
    elif mode == "dialing":
        env["TRACYC_CONNECT"] = f"127.0.0.1:{free_port()}"
    elif mode == "live":
        port = free_port()
        env["TRACY_PORT"] = str(port)
        env["BENCH_WAIT_SERVER"] = "1"
    prog = subprocess.Popen([args.runner, report] + cmd, env=env, stdout=subprocess.DEVNULL)
    if mode == "live":
        capture = subprocess.Popen([args.capture, "-a", "127.0.0.1", "-p", str(port), "-o",
                                    os.path.join(tmp, "live.txt"), "-f"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rc = prog.wait()
    if capture:
        capture.wait()
    if rc != 0:
        sys.exit(f"process_cost: {' '.join(cmd)} ({mode}) exited with {rc}")
    threads, rusage, wall, maxrss = [], 0, 0, 0
    with open(report) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "rusage":
                rusage = int(fields[1])
            elif fields[0] == "wall":
                wall = int(fields[1])
            elif fields[0] == "maxrss":
                maxrss = int(fields[1]) * 1024
            else:
                threads.append((int(fields[1]), fields[2]))
    parts = dict.fromkeys(PARTS, 0)
    total = 0
    for ns, name in threads:
        total += ns
        if name in OWN:
            parts[OWN[name]] += ns
    if os.path.exists(note):
        with open(note) as f:
            parts["exit"] = int(f.read().strip() or 0)
    samples = None
    out = os.path.join(tmp, "live.txt" if mode == "live" else "inproc.txt")
    if mode in ("inproc", "children") and os.path.exists(out):
        samples = count_samples(out)
        os.unlink(out)
    elif mode == "live" and os.path.exists(out):
        samples = count_samples(out)
        os.unlink(out)
    return {"total": total, "rusage": rusage, "wall": wall, "parts": parts, "samples": samples,
            "maxrss": maxrss}


def count_samples(path):
    """The CPU samples the summary reports (its "N CPU samples" line), or None."""
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            for i in range(len(words) - 2):
                if words[i + 1] == "CPU" and words[i + 2].startswith("samples"):
                    try:
                        return int(words[i].replace(",", ""))
                    except ValueError:
                        pass
    return None


def med(values):
    return statistics.median(values) if values else float("nan")


def report(name, modes, runs):
    base = med([r["total"] for r in runs["untraced"]])
    print(f"-- {name}")
    print(f"  {'mode':<14} {'process CPU s':>14} {'range':>15} {'ratio':>7} {'paired':>7} {'wall s':>7} "
          f"{'ratio':>6} {'+RSS MB':>8} {'samples/CPU s':>14} {'sampled':>8}")
    base_wall = med([r["wall"] for r in runs["untraced"]])
    base_rss = med([r["maxrss"] for r in runs["untraced"]])
    for mode in modes:
        totals = [r["total"] for r in runs[mode]]
        m = med(totals)
        lo, hi = min(totals), max(totals)
        rates = [r["samples"] / (r["total"] / 1e9) for r in runs[mode] if r["samples"]]
        rate = f"{med(rates):14.0f}" if rates else f"{'-':>14}"
        wall = med([r["wall"] for r in runs[mode]])
        # runs whose capture kept samples (a short program's can have none)
        sampled = "-" if mode in ("untraced", "noserver") else f"{len(rates)}/{len(runs[mode])}"
        rss = med([r["maxrss"] for r in runs[mode]]) - base_rss
        # each round's run against the untraced run of the same round, their median: a
        # machine whose speed drifts between rounds moves both runs of a round alike
        paired = med([r["total"] / u["total"] for r, u in zip(runs[mode], runs["untraced"])])
        print(f"  {mode:<14} {m / 1e9:14.3f} {lo / 1e9:7.3f}-{hi / 1e9:<7.3f} {m / base:7.3f} {paired:7.3f} "
              f"{wall / 1e9:7.3f} {wall / base_wall:6.2f} {rss / 1e6:8.1f} {rate} {sampled:>8}")
    def cell(mode, part):
        v = med([part(r) for r in runs[mode]])
        return f"{v / 1e6:7.1f} ({100 * v / base:4.1f}%)"
    print_parts("median ms (% of untraced CPU)", modes[1:], cell)


def print_parts(what, modes, cell):
    """The table of tracyc's threads: cell(mode, part) for each part, part(run) its CPU."""
    print(f"  tracyc's threads, {what}:")
    print(f"  {'mode':<14}" + "".join(f" {p:>14}" for p in PARTS + ["all"]))
    for mode in modes:
        cells = [cell(mode, (lambda r: sum(r["parts"].values())) if p == "all" else (lambda r, p=p: r["parts"][p]))
                 for p in PARTS + ["all"]]
        print(f"  {mode:<14}" + "".join(f" {c:>14}" for c in cells))


def per_second_and_fixed(pairs, lengths, value):
    """An idle program's cost split: (ms per second of idling, fixed ms), medians over the
    rounds of each round's two runs (short, long)."""
    short, long = lengths
    slopes = [(value(b) - value(a)) / (long - short) for a, b in pairs]
    fixed = [value(a) - slope * short for (a, _), slope in zip(pairs, slopes)]
    return med(slopes) / 1e6, med(fixed) / 1e6


def report_idle(name, modes, runs, lengths):
    total = lambda r: r["total"]
    base_slope, base_fixed = per_second_and_fixed(runs["untraced"], lengths, total)
    print(f"-- {name}: idle for {lengths[0]:g} s and {lengths[1]:g} s")
    print(f"  {'mode':<14} {'CPU ms, short':>14} {'long':>8} {'ms/s idling':>12} {'over untraced':>14} "
          f"{'fixed ms':>9} {'over untraced':>14}")
    for mode in modes:
        slope, fixed = per_second_and_fixed(runs[mode], lengths, total)
        print(f"  {mode:<14} {med([a['total'] for a, _ in runs[mode]]) / 1e6:14.1f} "
              f"{med([b['total'] for _, b in runs[mode]]) / 1e6:8.1f} {slope:12.2f} {slope - base_slope:14.2f} "
              f"{fixed:9.1f} {fixed - base_fixed:14.1f}")
    def cell(mode, part):
        slope, fixed = per_second_and_fixed(runs[mode], lengths, part)
        return f"{slope:.2f} / {fixed:.1f}"
    print_parts("median ms a second of idling / fixed ms", modes[1:], cell)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--capture", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", help="another build's start.c library: its modes run too, marked @before")
    ap.add_argument("--program", action="append", default=[], help="NAME=COMMAND: a CPU-bound program")
    ap.add_argument("--idle", action="append", default=[],
                    help="NAME=SHORT,LONG=COMMAND: an idle program, run for SHORT and LONG seconds ({s} in "
                         "COMMAND is the length)")
    args = ap.parse_args()
    jobs = []

    def with_before(modes):
        return modes + [m + "@before" for m in modes if m != "untraced"] if args.before else modes

    for spec in args.program:
        name, cmd = spec.split("=", 1)
        jobs.append((name, shlex.split(cmd), with_before(["untraced", "noserver", "inproc", "live"]), None))
    for spec in args.idle:
        name, lengths, cmd = spec.split("=", 2)
        lengths = tuple(float(s) for s in lengths.split(","))
        if len(lengths) != 2 or lengths[0] >= lengths[1]:
            sys.exit(f"process_cost: --idle {spec!r}: two lengths, the shorter first")
        jobs.append((name, cmd, with_before(["untraced", "noserver", "live", "inproc", "children", "dialing"]),
                     lengths))
    results = {name: {m: [] for m in modes} for name, _, modes, _ in jobs}
    with tempfile.TemporaryDirectory(prefix="process_cost.") as tmp:
        for rnd in range(args.rounds):
            for name, cmd, modes, lengths in jobs:
                order = modes[rnd % len(modes):] + modes[:rnd % len(modes)]
                for mode in order:
                    if lengths:
                        results[name][mode].append(tuple(
                            run_once(args, shlex.split(cmd.replace("{s}", f"{s:g}")), mode, tmp) for s in lengths))
                    else:
                        results[name][mode].append(run_once(args, cmd, mode, tmp))
            print(f"  (round {rnd + 1} of {args.rounds} done)", file=sys.stderr)
    for name, _, modes, lengths in jobs:
        if lengths:
            report_idle(name, modes, results[name], lengths)
        else:
            report(name, modes, results[name])


if __name__ == "__main__":
    main()
