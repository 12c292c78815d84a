"""The sampling mode never takes the interpreter down and leaves the program's own signal
handling alone: frames pushed and popped under every sample, threads coming and going,
interpreter shutdown with threads still running, fork, sub-interpreters, a program with its
own SIGURG handler, signal.setitimer. Each on every CPython here where it matters."""
import pytest

from conftest import needs_capture, pythons, served_to_capture
from test_sampling import folded, samples_where

# Everything that pushes and pops frames, at 10 kHz on four threads for a few seconds: C
# calling Python (map, sorted), generators, coroutines, recursion across data-stack chunks,
# exceptions, code compiled and dropped, garbage collection, threads starting and ending.
CHURN = """\
import asyncio, gc, sys, threading, time
import tracer

SECONDS = float(sys.argv[1])

def deep(n):
    return 0 if n == 0 else 1 + deep(n - 1)

def numbers(n):
    yield from range(n)

def churn():
    end = time.time() + SECONDS
    while time.time() < end:
        sum(map(lambda x: x + 1, range(200)))
        sorted(range(200), key=lambda x: -x)
        list(numbers(100))
        deep(300)
        deep(900)
        try:
            [][1]
        except IndexError:
            pass
        exec("def f(): return 1\\nf()")
        gc.collect(0)

def threads():
    end = time.time() + SECONDS
    while time.time() < end:
        short = [threading.Thread(target=lambda: sum(range(20000))) for _ in range(8)]
        for t in short:
            t.start()
        for t in short:
            t.join()

async def nested(n):
    return await nested(n - 1) if n else sum(range(100))

async def coroutines():
    end = time.time() + SECONDS
    while time.time() < end:
        await asyncio.gather(*(nested(20) for _ in range(50)))

sys.setrecursionlimit(3000)
tracer.start_sampling(10000)
workers = [threading.Thread(target=f) for f in (churn, threads, lambda: asyncio.run(coroutines()))]
for t in workers:
    t.start()
churn()
for t in workers:
    t.join()
tracer.stop_sampling()
stats = tracer._tracer.sampling_stats()
print("samples", stats["samples"], "broken", stats["broken"], "lost", stats["lost"])
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_frames_pushed_and_popped_under_every_sample(py, tmp_path):
    (tmp_path / "churn.py").write_text(CHURN)
    out = tmp_path / "out.folded"
    run = py.run(["churn.py", "3"], tmp_path, env={"TRACYC_OUTPUT": str(out)}, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    words = run.stdout.split()
    samples, broken = int(words[1]), int(words[3])
    assert samples > 1000
    assert broken < samples / 10  # a sample that cannot be read is dropped, and rare
    stacks = folded(out)
    assert samples_where(stacks, lambda s: "deep" in s) and samples_where(stacks, lambda s: "nested" in s)


SHUTDOWN = """\
import hashlib, threading, time
import tracer

def spin():
    while True:
        sum(range(1000))

def hash_forever():
    data = b"x" * (8 << 20)
    while True:
        hashlib.sha256(data).digest()

tracer.start_sampling(10000)
for target in (spin, spin, hash_forever):
    threading.Thread(target=target, daemon=True).start()
end = time.process_time() + 0.2
while time.process_time() < end:
    sum(range(1000))
print("main done")
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_interpreter_shutdown_with_threads_still_running(py, tmp_path):
    """Daemon threads still run (in Python, and in C without the GIL) when the interpreter
    shuts down: sampling stops before the thread states go away."""
    (tmp_path / "shutdown.py").write_text(SHUTDOWN)
    for i in range(3):
        out = tmp_path / f"out{i}.folded"
        run = py.run(["shutdown.py"], tmp_path, env={"TRACYC_OUTPUT": str(out)})
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.stdout == "main done\n"
        assert samples_where(folded(out), lambda s: "spin" in s) > 0


FORK = """\
import os, time
import tracer
from tracer import _tracer

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        sum(range(1000))

def parent_work():
    burn(0.2)

def child_work():
    burn(0.2)

tracer.start_sampling(2000)
parent_work()
pid = os.fork()
if pid == 0:
    child_work()
    # the profiler of a forked child is inert: asked to sample, it says no
    print("child", _tracer.sampling_rate(), tracer.start_sampling(1000), flush=True)
    child_work()
    os._exit(0)
_, status = os.waitpid(pid, 0)
parent_work()
tracer.stop_sampling()
print("parent", status)
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_fork_child_does_not_sample(py, tmp_path):
    (tmp_path / "fork.py").write_text(FORK)
    out = tmp_path / "out.folded"
    run = py.run(["-W", "error::DeprecationWarning", "fork.py"], tmp_path, env={"TRACYC_OUTPUT": str(out)})
    assert run.returncode == 0, run.stderr
    # the fork warning of 3.12+ (several threads) is not caused by tracer's threads
    assert run.stdout == "child 0 False\nparent 0\n"
    stacks = folded(out)
    assert samples_where(stacks, lambda s: "parent_work" in s) > 0
    assert samples_where(stacks, lambda s: "child_work" in s) == 0


SUBINTERPRETER = """\
import sys, threading, time
import tracer
try:
    import _interpreters as interpreters
except ImportError:
    import _xxsubinterpreters as interpreters

def create():
    try:
        return interpreters.create(isolated=False)  # 3.12: one that shares the GIL
    except TypeError:
        return interpreters.create()

def run(interp, code):
    interpreters.run_string(interp, code)

interp = create()
run(interp, '''
try:
    import tracer
    tracer.start_sampling()
except (RuntimeError, ImportError) as exc:
    open("refused.txt", "w").write(type(exc).__name__ + ": " + str(exc))
''')

def main_work():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        sum(range(1000))

tracer.start_sampling(2000)
busy = create()
worker = threading.Thread(target=run, args=(busy, '''
import time
def in_subinterpreter():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        sum(range(1000))
in_subinterpreter()
'''), name="runs-subinterpreter")
worker.start()
main_work()
worker.join()
tracer.stop_sampling()
print("ok")
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_subinterpreters(py, tmp_path):
    """Sampling starts only in the main interpreter; a thread running a sub-interpreter is
    sampled without harm (what its samples show depends on the version: docs/python.md)."""
    (tmp_path / "sub.py").write_text(SUBINTERPRETER)
    out = tmp_path / "out.folded"
    run = py.run(["sub.py"], tmp_path, env={"TRACYC_OUTPUT": str(out)})
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == "ok\n"
    refused = (tmp_path / "refused.txt").read_text()
    assert refused.startswith("RuntimeError: sampling can only be started from the main interpreter") or \
        refused.startswith("ImportError")
    stacks = folded(out)
    assert samples_where(stacks, lambda s: "main_work" in s) > 0
    assert samples_where(stacks, lambda s: s[0] == "runs-subinterpreter") > 0


def test_program_handler_for_sigurg_keeps_working(python_run):
    """signal.signal(SIGURG, ...) before or while sampling: the program's handler gets every
    SIGURG sent to it, none of the sampler's, and sampling goes on."""
    run = python_run("""\
        import os, signal, time
        import tracer

        received = []
        def on_urg(signum, frame):
            received.append(signum)

        def burn():
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(1000))

        def before_handler():
            burn()

        def after_handler():
            burn()

        signal.signal(signal.SIGURG, on_urg)       # before sampling starts
        tracer.start_sampling(5000)
        before_handler()
        os.kill(os.getpid(), signal.SIGURG)
        signal.signal(signal.SIGURG, signal.SIG_DFL)
        signal.signal(signal.SIGURG, on_urg)       # while sampling
        after_handler()
        for _ in range(3):
            os.kill(os.getpid(), signal.SIGURG)
        time.sleep(0.05)
        assert signal.getsignal(signal.SIGURG) is on_urg
        tracer.stop_sampling()
        print(len(received))
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "4\n"
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: "before_handler" in s) > 0
    assert samples_where(stacks, lambda s: "after_handler" in s) > 0


def test_handler_replaced_outside_python_stops_sampling_with_a_warning(python_run):
    run = python_run("""\
        import ctypes, signal, time
        import tracer
        from tracer import _tracer

        def burn():
            end = time.process_time() + 0.2
            while time.process_time() < end:
                sum(range(1000))

        tracer.start_sampling(2000)
        burn()
        libc = ctypes.CDLL(None)
        libc.signal.restype = ctypes.c_void_p
        libc.signal(int(signal.SIGURG), ctypes.c_void_p(1))  # SIG_IGN, behind Python's back
        deadline = time.time() + 10
        while _tracer.sampling_rate() and time.time() < deadline:
            burn()
        print(_tracer.sampling_rate(), _tracer.sampling_stats()["stopped_by_signal_handler"])
        burn()
        tracer.stop_sampling()
        """, output="summary.txt")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "0 True\n"
    summary = open(run.out_path).read()
    assert "tracer: sampling stopped: the program installed its own SIGURG" in summary


def test_sampling_opens_only_its_documented_descriptors(python_run):
    """A program may close or replace descriptors it did not open (a daemon closing what it
    does not know of), and the kernel gives a number it freed to the next descriptor made,
    the profiler's or the program's. Sampling opens only what docs/python.md says: a perf
    event per thread (none on POSIX timers) and /proc/self/task, at 256 and above, all
    closed again at the stop; the sampler's thread is woken through memory, not through a
    descriptor of its own. (The profiler makes descriptors of its own while it starts, an
    eventfd or a socket at a time: start_sampling is tried again until one try sees none
    of them, which a descriptor of sampling's own would spoil at every try.)"""
    run = python_run("""\
        import os, resource
        import tracer
        from tracer import _tracer

        def descriptors():
            found = {}
            for fd in os.listdir("/proc/self/fd"):
                try:
                    found[int(fd)] = os.readlink(f"/proc/self/fd/{fd}")
                except OSError:  # the listing's own descriptor
                    pass
            return found

        def changed(before, now):
            return {fd: target for fd, target in now.items() if before.get(fd) != target}

        documented = {"anon_inode:[perf_event]", f"/proc/{os.getpid()}/task"}
        floor = 256 if resource.getrlimit(resource.RLIMIT_NOFILE)[0] > 256 else 3
        _tracer.startup()
        for attempt in range(100):
            before = descriptors()
            tracer.start_sampling(1000)
            made = changed(before, descriptors())
            tracer.stop_sampling()
            left = changed(before, descriptors())
            if all(target in documented and fd >= floor for fd, target in made.items()) and not left:
                print("documented", sorted(set(made.values())))
                break
        else:
            print("undocumented", made, "left", left)
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("documented"), run.stdout


def test_sampler_wakes_for_a_new_thread_and_the_stop(python_run):
    """The sampler's thread waits up to a second between its passes when every thread is
    idle; a thread that threading starts and the stop post its wake-up (a ring half full
    too: test_sampling.py). What this shows: a thread started after an idle spell, running
    a fifth of a second, gets samples under its name, and the stop returns (the run's
    timeout only catches a hang). It does not show that the wake-up is what found the
    thread: a routine pass within its fifth of a second finds it as well, and telling the
    two apart would take a timing, which no test asserts."""
    run = python_run("""\
        import threading, time
        import tracer

        def burn(seconds):
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                sum(i * i for i in range(300))

        tracer.start_sampling(1000)
        time.sleep(2)  # idle: the sampler's wait grows to its longest
        late = threading.Thread(target=burn, args=(0.2,), name="started-when-idle")
        late.start()
        late.join()
        time.sleep(2)
        tracer.stop_sampling()
        print("stopped")
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "stopped\n"
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: s[0] == "started-when-idle" and "burn" in s) > 0, list(stacks)[:10]


def test_followed_fork_child_samples_and_stops(python_run):
    """A child forked while sampling runs, followed (TRACYC_FOLLOW_FORK=1), has a sampler
    of its own: its start succeeds, it counts at least two threads (its own and one it
    starts) and some samples, its stop returns and it exits 0; the parent's stop returns.
    (The child's wake-up semaphore is made anew at the fork; this does not show that: on
    glibc a copied semaphore at worst makes the child's sampler one pass more.)"""
    run = python_run("""\
        import os, threading, time
        import tracer
        from tracer import _tracer

        def burn(seconds):
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                sum(i * i for i in range(300))

        tracer.start_sampling(1000)
        burn(0.1)
        pid = os.fork()
        if pid == 0:
            started = tracer.start_sampling(1000)
            late = threading.Thread(target=burn, args=(0.2,), name="child-late")
            late.start()
            late.join()
            tracer.stop_sampling()
            stats = _tracer.sampling_stats()
            print("child", started, stats["threads"] >= 2, stats["samples"] > 0, flush=True)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        tracer.stop_sampling()
        print("parent", status)
        """, output="out.folded", env={"TRACYC_FOLLOW_FORK": "1"})
    assert run.returncode == 0, run.stderr
    assert run.stdout == "child True True True\nparent 0\n", run.stdout


def test_setitimer_keeps_working(python_run):
    """The program's interval timers (SIGPROF, SIGALRM) are its own: sampling uses neither."""
    run = python_run("""\
        import signal, time
        import tracer

        counts = {"prof": 0, "alarm": 0}
        signal.signal(signal.SIGPROF, lambda *a: counts.__setitem__("prof", counts["prof"] + 1))
        signal.signal(signal.SIGALRM, lambda *a: counts.__setitem__("alarm", counts["alarm"] + 1))
        tracer.start_sampling(5000)
        signal.setitimer(signal.ITIMER_PROF, 0.01, 0.01)
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)

        def timed_work():
            end = time.process_time() + 0.3
            while time.process_time() < end:
                sum(range(1000))

        timed_work()
        remaining = signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        tracer.stop_sampling()
        print(counts["prof"] > 0, counts["alarm"] > 0, remaining[1] == 0.01)
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "True True True\n"
    assert samples_where(folded(run.out_path), lambda s: "timed_work" in s) > 0


def test_blocking_io_is_not_sampled(python_run):
    run = python_run("""\
        import os, threading, time
        import tracer

        r, w = os.pipe()
        def reader():
            os.read(r, 1)

        tracer.start_sampling(5000)
        t = threading.Thread(target=reader, name="reader")
        t.start()
        end = time.process_time() + 0.3
        while time.process_time() < end:
            sum(range(1000))
        os.write(w, b"x")
        t.join()
        tracer.stop_sampling()
        """, output="out.folded")
    assert run.returncode == 0, run.stderr
    stacks = folded(run.out_path)
    main = samples_where(stacks, lambda s: s[0] == "Main thread")
    reader = samples_where(stacks, lambda s: s[0] == "reader" or "reader" in s)
    # Sampled by wall time, the reader would have as many samples as the main thread (~1500).
    # By its CPU time it has none while it waits, only the few its start and its end may take
    # (5 in 30 runs took one or two, in Thread._delete after the read).
    assert main > 100 and reader < main / 20, (main, reader)


@needs_capture
def test_live_to_the_capture_tool(write, tmp_path):
    """Over TCP, as the Tracy GUI gets them: the capture asks the program what each frame is."""
    script = write("live.py", """\
        import time
        import tracer

        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        deadline = time.time() + 20
        while not tracer.is_connected() and time.time() < deadline:
            time.sleep(0.01)
        end = time.process_time() + 0.3
        while time.process_time() < end:
            fib(15)
        """)
    out = tmp_path / "live.folded"
    (returncode, _, stderr), capture = served_to_capture(["--sample"], script, out, tmp_path)
    assert returncode == 0, stderr
    assert capture.returncode == 0, capture.stderr
    assert samples_where(folded(out), lambda s: s[:3] == ("Main thread", "<module>", "fib")) > 0
