"""The sampling mode (python -m tracer --sample, tracer.start_sampling): Python stacks of
every thread as Tracy callstack samples, end to end through the client, the wire, the
decoder and the outputs (folded stacks, summary, Chrome JSON), on every CPython here.

No timing thresholds: a workload runs for a given amount of CPU time and the tests look
at what the samples name, not at how many there are beyond "some"."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import PYTHON, child_env, pythons


def folded(path):
    """{stack tuple (thread first, root to leaf): samples}"""
    stacks = {}
    with open(path) as f:
        for line in f:
            text, _, count = line.rstrip("\n").rpartition(" ")
            stacks[tuple(text.split(";"))] = stacks.get(tuple(text.split(";")), 0) + int(count)
    return stacks


def samples_where(stacks, predicate):
    return sum(n for stack, n in stacks.items() if predicate(stack))


# A CPU-bound program with work on the main thread, a named thread started before sampling
# and one after, a generator, a coroutine stack, C code that releases the GIL, and a
# thread that only sleeps (off the CPU: never sampled).
EVERYTHING = """\
import asyncio, hashlib, sys, threading, time
import tracer

def burn(seconds, clock=time.process_time):
    end = clock() + seconds
    while clock() < end:
        sum(i * i for i in range(300))

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def main_work():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        fib(15)

def numbers():
    for _ in range(4000):
        yield fib(10)

async def inner_coroutine():
    await asyncio.sleep(0)
    burn(0.2)

async def outer_coroutine():
    await inner_coroutine()

def hash_without_gil():
    data = b"x" * (64 << 20)
    for _ in range(4):
        hashlib.sha256(data).digest()

def sleep_only():
    time.sleep(0.6)

started = threading.Event()
def early_thread():
    started.set()
    burn(0.3)

early = threading.Thread(target=early_thread, name="started-before")
early.start()
started.wait()
tracer.start_sampling(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
# (its own CPU time: the process's, shared with four threads, left it a handful of samples)
late = threading.Thread(target=lambda: burn(0.3, time.thread_time), name="started-after")
hasher = threading.Thread(target=hash_without_gil, name="hasher")
sleeper = threading.Thread(target=sleep_only, name="sleeper")
for t in (late, hasher, sleeper):
    t.start()
main_work()
sum(numbers())
asyncio.run(outer_coroutine())
for t in (early, late, hasher, sleeper):
    t.join()
tracer.stop_sampling()
"""


def check_everything(stacks):
    main = {s: n for s, n in stacks.items() if s[0] == "Main thread"}
    assert samples_where(main, lambda s: s[1:4] == ("<module>", "main_work", "fib")) > 0
    assert samples_where(main, lambda s: s[1:3] == ("<module>", "numbers") and "fib" in s) > 0
    # the coroutine's stack, as the thread ran it: the event loop, then the awaits
    assert samples_where(main, lambda s: "outer_coroutine" in s and "inner_coroutine" in s and "burn" in s
                         and s.index("outer_coroutine") < s.index("inner_coroutine") < s.index("burn")) > 0
    assert samples_where(stacks, lambda s: s[0] == "started-before" and "early_thread" in s and "burn" in s) > 0
    assert samples_where(stacks, lambda s: s[0] == "started-after" and "burn" in s) > 0
    # C code without the GIL: under the Python function that called it, marked as such
    hashed = {s: n for s, n in stacks.items() if s[0] == "hasher"}
    released = samples_where(hashed, lambda s: s[-2:] == ("hash_without_gil", "<native code, GIL released>"))
    assert released > 0
    # (elsewhere only the odd sample of a thread taking a lock, in join() for instance)
    assert samples_where(stacks, lambda s: "<native code, GIL released>" in s and s[0] != "hasher") < released
    # off the CPU: not a single sample
    assert samples_where(stacks, lambda s: s[0] == "sleeper" or "sleep_only" in s) == 0


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_every_thread_generators_coroutines_gil_and_sleep(py, tmp_path):
    (tmp_path / "everything.py").write_text(EVERYTHING)
    out = tmp_path / "out.folded"
    run = py.run(["everything.py"], tmp_path, env={"TRACYC_OUTPUT": str(out)})
    assert run.returncode == 0, run.stderr
    check_everything(folded(out))


# Threads running before sampling starts, named in threading. Their names were once given
# only after sampling had started: a thread whose first samples had gone out by then kept
# its number for good. The program makes the late naming certain to show: asked for the
# threads while sampling already runs, it waits until many samples are recorded.
NAMED_BEFORE = """\
import sys, threading, time
import tracer
from tracer import _tracer

def burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(300))

original_enumerate = threading.enumerate
def enumerate_late():
    while _tracer.sampling_rate() and _tracer.sampling_stats()["samples"] < 300:
        time.sleep(0.001)
    return original_enumerate()
threading.enumerate = enumerate_late

stop = threading.Event()
busy = [threading.Thread(target=burn, args=(stop,), name=f"busy-{i}") for i in range(3)]
for thread in busy:
    thread.start()
tracer.start_sampling()
threading.enumerate = original_enumerate
while tracer.sampling_stats()["samples"] < 600:
    time.sleep(0.001)
stop.set()
for thread in busy:
    thread.join()
tracer.stop_sampling()
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_threads_started_before_sampling_are_named(py, tmp_path):
    (tmp_path / "named.py").write_text(NAMED_BEFORE)
    out = tmp_path / "out.folded"
    run = py.run(["named.py"], tmp_path, env={"TRACYC_OUTPUT": str(out)})
    assert run.returncode == 0, run.stderr
    threads = {stack[0] for stack in folded(out)}
    assert {"busy-0", "busy-1", "busy-2"} <= threads
    assert not [name for name in threads if name.isdigit()], threads


def test_posix_timer_clock_samples_the_same(tmp_path):
    """Without perf events (TRACER_SAMPLE_CLOCK=timer: what a kernel that refuses them gives)."""
    (tmp_path / "everything.py").write_text(EVERYTHING)
    out = tmp_path / "out.folded"
    run = subprocess.run([PYTHON, "everything.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=child_env(TRACYC_OUTPUT=str(out), TRACER_SAMPLE_CLOCK="timer"))
    assert run.returncode == 0, run.stderr
    check_everything(folded(out))


PROGRAM = """\
import threading, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def work():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        fib(15)

class Shape:
    def area(self):
        return sum(i * i for i in range(20000))

def shapes():
    end = time.process_time() + 0.2
    while time.process_time() < end:
        Shape().area()

thread = threading.Thread(target=shapes, name="shaper")
thread.start()
work()
thread.join()
"""


# A module whose frames tracer hides with every frame below them, as it hides its launcher,
# hashing with the GIL released; and a program calling it, and hashing in a frame of its own.
HIDDEN = """\
import hashlib, time

def hash_for(seconds):
    data = b"x" * (1 << 20)
    end = time.process_time() + seconds
    while time.process_time() < end:
        hashlib.sha256(data).digest()
"""

CALLS_HIDDEN = """\
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden
from tracer import _tracer

def visible(seconds):  # the same work, in a frame of the program's
    import hashlib, time
    data = b"x" * (1 << 20)
    end = time.process_time() + seconds
    while time.process_time() < end:
        hashlib.sha256(data).digest()

_tracer.start_sampling(1000, hide_below=[os.path.abspath(hidden.__file__)], hide_frame=[])
hidden.hash_for(0.3)
visible(0.1)
_tracer.stop_sampling()
"""


def test_hidden_frames_releasing_the_gil_are_not_the_program(tmp_path, write):
    """A sample of tracer's launcher in C code that released the GIL (waiting for the sampler's
    first pass at the start, joining it at exit) has no frame of the program's: it is dropped,
    as it is when the GIL is held, not kept as a lone '<native code, GIL released>' of the
    main thread."""
    write("hidden.py", HIDDEN)
    script = write("calls_hidden.py", CALLS_HIDDEN)
    out = str(tmp_path / "out.folded")
    proc = subprocess.run([PYTHON, script], env=child_env(TRACYC_OUTPUT=out, TRACY_NO_SAMPLING="1"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    stacks = folded(out)
    # the program's own frame hashing without the GIL is sampled as such
    assert samples_where(stacks, lambda s: s[1:] == ("<module>", "visible", "<native code, GIL released>")) > 0
    lone = samples_where(stacks, lambda s: s[0] == "Main thread" and s[1:] == ("<native code, GIL released>",))
    assert lone == 0, stacks


def test_the_profilers_threads_get_no_clock(write):
    """Only the program's threads are sampled: the profiler's own (its worker, started with it;
    the sampling thread itself) get no clock. start_sampling returns after the first look at
    the process's threads."""
    script = write("alone.py", """\
        import tracer
        from tracer import _tracer
        tracer.start_sampling(1000)
        print(_tracer.sampling_stats()["threads"], len(_tracer._own_threads()))
        tracer.stop_sampling()
    """)
    proc = subprocess.run([PYTHON, script], env=child_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    clocks, own = map(int, proc.stdout.split())
    assert own >= 2  # the worker and the sampling thread
    assert clocks == 1  # the main thread's


def test_cli_folded_summary_and_json(tracer_run, write):
    script = write("prog.py", PROGRAM)
    run = tracer_run("--sample", script, output="out.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    # the program's own stack: tracer's launcher (and runpy below it) are not in it
    assert samples_where(stacks, lambda s: s[:4] == ("Main thread", "<module>", "work", "fib")) > 0
    genexpr = ("Shape.area", "Shape.area.<locals>.<genexpr>")
    assert samples_where(stacks, lambda s: s[0] == "shaper" and s[-2:] == genexpr) > 0
    outside = [s for s in stacks if s[0] == "Main thread" and s[1] != "<module>"]
    assert not outside, outside
    # a thread's stack as under plain Python: tracer's own frame in its start (_bootstrap,
    # between Thread._bootstrap and Thread._bootstrap_inner) is not in it. (Thread.run below,
    # or Thread._delete for a sample at the thread's very end.)
    assert all(s[1:3] == ("Thread._bootstrap", "Thread._bootstrap_inner") and "_bootstrap" not in s
               for s in stacks if s[0] == "shaper")

    run = tracer_run("--sample", "2000", script, output="summary.txt")
    assert run.returncode == 0, run.stderr
    summary = open(run.out_path).read()
    assert "CPU samples" in summary
    self_table = summary[summary.index("by self samples"):summary.index("by total samples")]
    assert "fib" in self_table and "prog.py:3" in self_table  # function, file:line of its definition
    total_table = summary[summary.index("by total samples"):]
    assert "Shape.area" in total_table and "prog.py:12" in total_table
    assert "shaper" in summary

    run = tracer_run("--sample", script, output="trace.json")
    assert run.returncode == 0, run.stderr
    with open(run.out_path) as f:
        events = json.load(f)["traceEvents"]
    names = set()
    for e in events:
        if e.get("ph") == "P" and e.get("name") == "ProfileChunk":
            names |= {n["callFrame"]["functionName"] for n in e["args"]["data"]["cpuProfile"].get("nodes", [])}
    assert {"fib", "work", "Shape.area"} <= names


def test_summary_on_stdout_without_output(tracer_run, write):
    run = tracer_run("--sample", write("prog.py", PROGRAM), output=None)
    assert run.returncode == 0, run.stderr
    assert "by self samples" in run.stdout and "fib" in run.stdout


@pytest.mark.parametrize("rate, message", [
    ("0", "between 1 and 10000"), ("-5", "between 1 and 10000"), ("100000", "between 1 and 10000"),
    ("1.5", "not a sampling rate"), ("1e9", "not a sampling rate"), ("--sample=x", "not a sampling rate"),
])
def test_bad_rates_are_usage_errors(tracer_run, write, rate, message):
    script = write("prog.py", "print('ran')\n")
    args = [rate] if rate.startswith("--") else ["--sample", rate]
    run = tracer_run(*args, script, output=None)
    assert run.returncode == 2
    assert message in run.stderr and "ran" not in run.stdout


def test_sample_with_lines_is_a_usage_error(tracer_run, write):
    run = tracer_run("--sample", "-p", "-l", write("prog.py", "print('ran')\n"), output=None)
    assert run.returncode == 2
    assert "--lines cannot be combined with --sample" in run.stderr


NATIVE_PROGRAM = """\
import sys, time
import tracer

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

if sys.argv[1:] == ["api"]:
    tracer.start_sampling()
elif sys.argv[1:] == ["api-native"]:
    tracer.start_sampling(native=True)
end = time.process_time() + 0.4
while time.process_time() < end:
    fib(15)
print("clock", tracer.sampling_stats()["clock"])
"""


@pytest.mark.parametrize("how", ["cli", "cli-native", "api", "api-native"])
def test_native_samples_only_when_asked(tracer_run, python_run, write, how):
    """--sample (start_sampling()) records Python stacks only: the profiler's own perf samples
    of the interpreter's C code stay off; --native-samples (native=True) keeps them too."""
    if how.startswith("cli"):
        extra = ["--native-samples"] if how == "cli-native" else []
        run = tracer_run("--sample", *extra, write("prog.py", NATIVE_PROGRAM), output="out.folded")
    else:
        run = python_run(NATIVE_PROGRAM, output="out.folded", args=[how])
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    # the Python sampler's own frames: the program's functions, and its marker for time in C code
    # with the GIL released (print, the clock) under the Python function that called it
    python_only = {s: n for s, n in stacks.items() if set(s[1:]) <= {"<module>", "fib", "<native code, GIL released>"}}
    assert samples_where(python_only, lambda s: s[:3] == ("Main thread", "<module>", "fib")) > 0
    # the interpreter's C functions (not a Python sample at exit, in threading's _shutdown)
    native = {s: n for s, n in stacks.items() if any(f.startswith(("_Py", "Py", "__libc_")) for f in s)}
    if not how.endswith("native"):
        assert not native, f"native samples: {list(native)[:3]}"
    elif "clock perf" not in run.stdout:
        pytest.skip("no perf events here (the sampler runs on POSIX timers): no native samples either")
    else:
        assert samples_where(native, lambda s: "_PyEval_EvalFrameDefault" in s) > 0


def test_native_samples_without_sample_is_a_usage_error(tracer_run, write):
    run = tracer_run("--native-samples", write("prog.py", "print('ran')\n"), output=None)
    assert run.returncode == 2
    assert "--native-samples goes with --sample" in run.stderr and "ran" not in run.stdout


def test_api_rejects_bad_rates(python_run):
    run = python_run("""\
        import tracer
        for bad, error in ((0, ValueError), (-1, ValueError), (10001, ValueError), (10**30, ValueError),
                           ("100", TypeError), (1.5, TypeError), (True, TypeError)):
            try:
                tracer.start_sampling(bad)
            except error as exc:
                print(type(exc).__name__, exc)
            else:
                raise AssertionError(bad)
        assert tracer.start_sampling(500)
        try:
            tracer.start_sampling(500)
        except RuntimeError as exc:
            print("again:", exc)
        tracer.stop_sampling()
        tracer.stop_sampling()  # a second stop does nothing
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    assert "ValueError sampling rate must be between 1 and 10000 samples per second, not 0" in run.stdout
    assert "TypeError sampling rate must be an int" in run.stdout
    assert "again: sampling is running already" in run.stdout


def test_partial_samples_only_inside_the_profiler(tracer_run, write):
    script = write("partial.py", """\
        import time
        import tracer

        def burn():
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(1000))

        def outside():
            burn()

        def inside():
            burn()

        outside()
        with tracer.Profiler():
            inside()
        outside()
        """)
    run = tracer_run("--sample", "--partial", script, output="out.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: "inside" in s) > 0
    assert samples_where(stacks, lambda s: "outside" in s) == 0


def test_sample_with_include_also_traces_those_files(tracer_run, write, tmp_path):
    script = write("both.py", """\
        import time
        def traced():
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(1000))
        traced()
        """)
    run = tracer_run("--sample", "--include", str(tmp_path / "*"), script, output="trace.json")
    assert run.returncode == 0, run.stderr
    assert run.trace.named("traced")  # a zone from the hook
    with open(run.out_path) as f:
        events = json.load(f)["traceEvents"]
    assert any(e.get("ph") == "P" for e in events)  # and samples


@pytest.mark.skipif(subprocess.run([PYTHON, "-c", "import pytest"]).returncode != 0, reason=f"no pytest for {PYTHON}")
def test_pytest_plugin_samples(tmp_path):
    (tmp_path / "test_busy.py").write_text(textwrap.dedent("""\
        import time

        def spin():
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(1000))

        def test_busy():
            spin()
        """))
    out = tmp_path / "out.folded"
    run = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tracer.pytest_plugin",
                          "--tracer", "--tracer-sample", "2000", "--tracer-output", str(out), "test_busy.py"],
                         cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert samples_where(folded(out), lambda s: s[-3:-1] == ("test_busy", "spin") or s[-2:] == ("test_busy", "spin"))

    out = tmp_path / "cli.folded"
    run = subprocess.run([PYTHON, "-m", "tracer", "--sample", "-o", str(out), "-m", "pytest", "-q",
                          "-p", "no:cacheprovider", "test_busy.py"],
                         cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert samples_where(folded(out), lambda s: "spin" in s and "test_busy" in s) > 0


def test_walk_and_lines_match_the_interpreter(py, tmp_path):
    """The handler's walk, run on the calling thread, sees what traceback sees, and its
    line-table decoding agrees with co_lines() on every instruction of the stdlib's code."""
    (tmp_path / "walk.py").write_text(textwrap.dedent("""\
        import asyncio, collections, inspect, json, re, traceback
        from tracer import _tracer

        def expected():
            return [(f.f_code.co_qualname, f.f_code.co_filename, f.f_lineno) for f, _ in
                    traceback.walk_stack(inspect.currentframe().f_back)]

        def check():
            got = _tracer._sample_stack()
            want = expected()
            assert got[0][:2] == ("check", __file__), got
            assert got[1:] == want[1:], (got, want)
            return len(got)

        def gen():
            yield check()

        class K:
            def method(self):
                return [check() for _ in range(1)][0]

        async def coro():
            return check()

        depths = [check(), next(gen()), K().method(), asyncio.run(coro()), sum(map(lambda _: check(), [1])),
                  sorted([1], key=lambda _: check())[0]]
        assert all(depths), depths

        def codes(co):
            yield co
            for c in co.co_consts:
                if hasattr(c, "co_code"):
                    yield from codes(c)

        checked = 0
        for module in (json, re, collections, inspect, traceback, asyncio.base_events):
            for co in codes(compile(open(module.__file__).read(), module.__file__, "exec")):
                ours = dict(_tracer._code_lines(co))
                for start, end, line in co.co_lines():
                    for offset in range(start, end, 2):
                        assert ours[offset] == (line if line is not None else -1), (co, offset)
                        checked += 1
        assert checked > 10000
        print("ok", checked)
        """))
    run = py.run(["walk.py"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ok")


test_walk_and_lines_match_the_interpreter = pytest.mark.parametrize("py", pythons(), indirect=True)(
    test_walk_and_lines_match_the_interpreter)


def test_deep_stacks_are_cut_and_marked(python_run):
    run = python_run("""\
        import sys, time
        import tracer
        sys.setrecursionlimit(5000)
        def down(n):
            if n:
                return down(n - 1)
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(100))
        tracer.start_sampling(2000)
        down(400)
        tracer.stop_sampling()
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    marker = "<deeper frames not sampled>"
    cut = {s: n for s, n in stacks.items() if marker in s}
    # the innermost 256 frames are kept, what is below them is one marker frame (after the thread)
    assert all(s[1] == marker and s.count(marker) == 1 and len(s) == 2 + 256 for s in cut), list(cut)[:3]
    # A sample may land while down() returns, at any depth: one of 256 frames or fewer is whole.
    assert all(len(s) <= 1 + 256 for s in stacks if s not in cut), [len(s) for s in stacks if s not in cut]
    # most of the CPU is spent 401 frames deep
    assert sum(cut.values()) > sum(stacks.values()) / 2, (sum(cut.values()), sum(stacks.values()))


def test_the_documented_example(tracer_run):
    """examples/python/sampled.py, as README and docs/python.md show it."""
    example = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "examples", "python", "sampled.py")
    run = tracer_run("--sample", example, output="flame.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: s[0] == "renderer" and s[-1] == "escape_time") > 0
    assert samples_where(stacks, lambda s: s[0] == "indexer" and "index" in s) > 0
    assert samples_where(stacks, lambda s: s[0] == "checksum" and s[-1] == "<native code, GIL released>") > 0


def test_busy_sampler_wakes_as_seldom_as_the_rings_allow(python_run):
    """While a thread is busy, the sampler's thread empties the rings as often as they need
    (when one is half full, or each second), not every 10 ms: counted as the times it went to
    sleep (its voluntary context switches) per second of wall time, about a hundred when it
    wakes every 10 ms, and fewer, not more, on a busy machine. No sample is lost."""
    run = python_run("""\
        import os, time
        import tracer
        from tracer import _tracer

        def sleeps(tid):
            with open(f"/proc/self/task/{tid}/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches"))

        tracer.start_sampling(1000)
        (sampler,) = [tid for tid in os.listdir("/proc/self/task")
                      if open(f"/proc/self/task/{tid}/comm").read().strip() == "tracer sampler"]
        burn_until = time.thread_time() + 0.2
        while time.thread_time() < burn_until:
            sum(i * i for i in range(300))
        before, started = sleeps(sampler), time.monotonic()
        burn_until = time.thread_time() + 1
        while time.thread_time() < burn_until:
            sum(i * i for i in range(300))
        rate = (sleeps(sampler) - before) / (time.monotonic() - started)
        stats = _tracer.sampling_stats()
        tracer.stop_sampling()
        print("sleeps per second", rate, "samples", stats["samples"], "lost", stats["lost"])
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    words = run.stdout.split()
    rate, samples, lost = float(words[3]), int(words[5]), int(words[7])
    assert rate < 40 and lost == 0 and samples > 0, run.stdout


def test_idle_sampler_sleeps_longer_and_new_threads_are_sampled(python_run):
    """While every thread is idle the sampler's thread waits longer between its passes (up to
    a second), rather than waking every 10 ms: counted as the times it went to
    sleep (its context switches) while the program sleeps a second, which a thread waking
    every 10 ms does about a hundred times however busy the machine. A thread started after
    the idle second still gets its samples, under its name."""
    run = python_run("""\
        import os, threading, time
        import tracer

        def switches(tid):
            total = 0
            with open(f"/proc/self/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
            return total

        def burn(seconds):
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                sum(i * i for i in range(300))

        tracer.start_sampling(1000)
        (sampler,) = [tid for tid in os.listdir("/proc/self/task")
                      if open(f"/proc/self/task/{tid}/comm").read().strip() == "tracer sampler"]
        time.sleep(0.3)
        before = switches(sampler)
        time.sleep(1)
        print("sampler slept", switches(sampler) - before)
        late = threading.Thread(target=burn, args=(0.2,), name="started-when-idle")
        late.start()
        late.join()
        tracer.stop_sampling()
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    slept = int(run.stdout.split("sampler slept")[1].split()[0])
    assert slept <= 40, run.stdout
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: s[0] == "started-when-idle" and "burn" in s) > 0, list(stacks)[:10]


def test_deep_stacks_fill_no_ring_while_the_sampler_waits(python_run):
    """A ring reaching half full wakes the sampler's thread, which otherwise waits up to a
    second between its passes: a thread 200 calls deep, whose ring keeps about 160 of its
    samples, runs a second of CPU at 1 kHz and keeps most of them (waiting the second, it
    lost about two in three; a sampler starved of CPU by a busy machine may lose some)."""
    run = python_run("""\
        import time
        import tracer
        from tracer import _tracer

        def deep(n, seconds):
            if n:
                return deep(n - 1, seconds)
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                sum(i * i for i in range(300))

        tracer.start_sampling(1000)
        time.sleep(0.5)  # idle: the sampler's wait grows
        deep(200, 1.0)
        stats = _tracer.sampling_stats()
        tracer.stop_sampling()
        print("samples", stats["samples"], "lost", stats["lost"])
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    words = run.stdout.split()
    samples, lost = int(words[1]), int(words[3])
    assert samples > 0 and lost < samples, run.stdout


def test_a_thread_started_outside_threading_is_found_and_sampled(python_run):
    """A thread that threading does not start (here _thread's; in real programs, C code's)
    announces nothing: the sampler's thread finds it at one of its passes, at most a second
    apart, and its samples follow."""
    run = python_run("""\
        import _thread, time
        import tracer

        def burn(done):
            end = time.thread_time() + 2.5
            while time.thread_time() < end:
                sum(i * i for i in range(300))
            done.release()

        tracer.start_sampling(1000)
        time.sleep(0.5)  # idle: the sampler's wait grows
        done = _thread.allocate_lock()
        done.acquire()
        _thread.start_new_thread(burn, (done,))
        done.acquire()
        tracer.stop_sampling()
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: s[0] != "Main thread" and "burn" in s) > 0, list(stacks)[:10]
