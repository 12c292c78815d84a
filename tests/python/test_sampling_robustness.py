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


# The program of the two tests below: REPLACED says whether it puts a descriptor of its own
# on the sampler's eventfd number (dup2), or closes the number.
WAKE_FD_TAKEN = """\
    import os, threading, time
    import tracer

    def eventfds():
        found = set()
        for fd in os.listdir("/proc/self/fd"):
            try:
                if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:[eventfd]":
                    found.add(int(fd))
            except OSError:  # the listing's own descriptor
                pass
        return found

    def burn(seconds):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            sum(i * i for i in range(300))

    from tracer import _tracer
    _tracer.startup()
    deadline = time.monotonic() + 30
    while len(eventfds()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # the profiler's own two (its worker's, its native sampler's), made as they start
    for attempt in range(100):
        before = eventfds()
        tracer.start_sampling(1000)
        made = eventfds() - before
        if len(made) == 1:  # the sampler's alone
            break
        tracer.stop_sampling()  # and one of the profiler's own, made late: again
    (wake,) = made
    r, w = os.pipe()
    if REPLACED:
        os.dup2(w, wake)
    else:
        os.close(wake)
    deadline = time.monotonic() + 30
    while not tracer.sampling_stats()["wake_descriptor_closed"] and time.monotonic() < deadline:
        time.sleep(0.01)  # the sampler's thread finds it gone (at the end of its wait)
    noticed = tracer.sampling_stats()["wake_descriptor_closed"]
    cpu = tracer.sampling_stats()["sampler_cpu_ns"]
    time.sleep(1)
    spent = tracer.sampling_stats()["sampler_cpu_ns"] - cpu
    thread = threading.Thread(target=burn, args=(0.3,), name="after-the-close")
    thread.start()  # a new thread: the sampler's thread is told
    thread.join()
    tracer.stop_sampling()  # and told to stop
    if REPLACED:
        os.close(wake)  # (EBADF if the profiler closed it)
    os.close(w)
    print("spent ms", spent / 1e6, "written", len(os.read(r, 64)), "noticed", noticed)
    """


def run_with_wake_fd_taken(python_run, replaced):
    run = python_run(WAKE_FD_TAKEN.replace("REPLACED", str(replaced)), output="out.folded")
    assert run.returncode == 0, run.stderr
    words = run.stdout.split()
    spent_ms, written, noticed = float(words[2]), int(words[4]), words[6]
    # Spinning, the thread takes the CPU it is given (about a second here); 10 ms passes, ~1 ms.
    assert spent_ms < 200 and written == 0 and noticed == "True", run.stdout
    stacks = folded(run.out_path)
    assert samples_where(stacks, lambda s: s[0] == "after-the-close" and "burn" in s) > 0, list(stacks)[:10]


def test_program_that_closes_the_samplers_descriptor(python_run):
    """A program may close descriptors it did not open (a daemon closing everything it does
    not know of). The sampler's thread waits on an eventfd; closed under it, the thread does
    not spin (poll answers POLLNVAL at once, for ever): it falls back to a pass every 10 ms,
    and the samples still come. (The number is then free for the profiler's next descriptor
    as much as for the program's.)"""
    run_with_wake_fd_taken(python_run, replaced=False)


def test_program_that_replaces_the_samplers_descriptor(python_run):
    """A program may put a descriptor of its own on a number it did not open, in place of
    what is there, in one step (dup2). The sampler's thread tells that the number is no
    longer its own: it writes nothing to the program's descriptor (a new thread, the stop
    and a ring half full each wrote 8 bytes into it), does not close it at the stop, and the
    samples still come. (An eventfd of the program's made close-on-exec is not told apart:
    util/fd.h.)"""
    run_with_wake_fd_taken(python_run, replaced=True)


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
