"""The profiler's file descriptors never take a number the program has closed: a program
that closes 0, 1 or 2 and later puts a descriptor back there with dup2 (CPython's
subprocess and its tests do) finds the number free, whatever the profiler opened
meanwhile: a server's socket, perf events for a new thread, a library's file for the
unwinder, the sampler's look at the process's threads. Every descriptor the profiler
keeps is at 256 or above (core/util/fd.h)."""
import ctypes.util
import os
import subprocess

import pytest

from conftest import PYTHON, child_env, pythons
from test_fork import cpu_samples_allowed

FLOOR = 256

CLOSES_AND_RESTORES = """\
import errno, fcntl, os, sys, threading
import tracer

MODE = sys.argv[1]
FLOOR = 256

def free(fd):
    try:
        os.fstat(fd)
    except OSError as exc:
        return exc.errno == errno.EBADF
    return False

def files(part):
    # descriptors (not 0, 1, 2) whose target contains part, at any number
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if int(name) > 2 and part in os.readlink(f"/proc/self/fd/{name}"):
                found.append(name)
        except OSError:
            pass
    return found

def threads_named():
    names = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.add(f.read().strip())
        except OSError:
            pass
    return names

def work():
    sum(i * i for i in range(20000))

wanted = set(filter(None, sys.argv[2].split(",")))
while not wanted <= threads_named():  # tracer's threads, started in their time
    work()

def settle():
    # until the descriptors stay the same across three pieces of work: tracer has opened
    # what the last event made it open (and moved it above the floor)
    stable = 0
    while stable < 3:
        before = [free(fd) for fd in range(1024)]
        work()
        stable = stable + 1 if before == [free(fd) for fd in range(1024)] else 0

def kept(k):
    # k taken once tracer has settled, three times over (a descriptor it is opening and
    # moving above the floor is low for an instant only)
    for _ in range(3):
        settle()
        if free(k):
            return []
    try:
        return [f"fd {k} kept by tracer: {os.readlink(f'/proc/self/fd/{k}')}"]
    except OSError:
        return []

def burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(300))

def new_thread_sampled(k):
    # the sampling mode gives a new thread a clock (a perf event) when it first sees it
    stop = threading.Event()
    before = tracer.sampling_stats()["threads"]
    thread = threading.Thread(target=burn, args=(stop,))
    thread.start()
    while tracer.sampling_stats()["threads"] == before:
        pass
    found = kept(k)  # while the thread runs: its clock is open
    stop.set()
    thread.join()
    return found

def sampler_scans(k, scans=2):
    # the sampling mode looks at the process's threads at each of its passes (up to a second
    # apart, sooner while rings fill): once tracer has settled, nothing of its may take k
    # then, not even for an instant. Three times over: one of the
    # profiler's rare opens (the in-process capture's event tape going to a file once it
    # outgrows memory) may fall in one of them, a periodic one falls in each.
    for _ in range(3):
        settle()
        seen, last, taken = 0, tracer.sampling_stats()["sampler_cpu_ns"], False
        while seen < scans:
            taken = taken or not free(k)
            now = tracer.sampling_stats()["sampler_cpu_ns"]
            seen, last = seen + (now != last), now
        if not taken:
            return []
    return [f"fd {k} taken while the sampler looked for threads, three times"]

def library_open(part):
    # the library's file, or its copy in tracyc's debug cache (byte for byte the same, named
    # by its build ID), open in this process
    mapped = [line.split()[-1] for line in open("/proc/self/maps") if len(line.split()) >= 6]
    path = next(p for p in mapped if part in os.path.basename(p))
    with open(path, "rb") as f:
        head = f.read(4096)
    if files(part):
        return True
    for target in files(".elf"):
        try:
            with open(os.readlink(f"/proc/self/fd/{target}"), "rb") as f:
                if f.read(4096) == head and os.fstat(f.fileno()).st_size == os.stat(path).st_size:
                    return True
        except OSError:
            pass
    return False

def library_unwound(k, module, work):
    # native samples in a library loaded now: the unwinder opens its file
    __import__(module)
    part = module.lstrip("_")
    while not library_open(part):
        work()
    return kept(k)

WORK = [("_bz2", lambda: __import__("bz2").compress(os.urandom(1 << 16))),
        ("_lzma", lambda: __import__("lzma").compress(os.urandom(1 << 14))),
        ("_decimal", lambda: sum(__import__("decimal").Decimal(i).sqrt() for i in range(1, 200)))]

failures = []
for round_ in range(3):
    for k in (0, 1, 2):
        saved = fcntl.fcntl(k, fcntl.F_DUPFD_CLOEXEC, 100)
        os.close(k)
        try:
            if MODE == "sample":
                failures += sampler_scans(k)
                failures += new_thread_sampled(k)
            elif sys.argv[3] == "native" and round_ == 0:
                failures += library_unwound(k, *WORK[k])
            failures += kept(k)
        finally:  # (an error's traceback needs stderr back)
            while True:
                try:
                    os.dup2(saved, k)
                    break
                except OSError as exc:  # EBUSY: a thread's open() holds k for its instant
                    if exc.errno != errno.EBUSY:
                        raise
            os.close(saved)
low = []
for _ in range(3):  # (a descriptor tracer is moving above the floor is low for an instant)
    settle()
    now = []
    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        try:
            if 3 <= fd < FLOOR:
                now.append((fd, os.readlink(f"/proc/self/fd/{fd}")))
        except OSError:
            pass  # the listing's own descriptor, closed since
    low = [item for item in now if item in low] if _ else now
print("failures", failures)
print("below the floor", low)
"""


def native_unwinding():
    """Native samples are unwound (and their libraries' files opened) when the kernel lets
    the profiler sample and libdw is there."""
    return cpu_samples_allowed() and ctypes.util.find_library("dw") is not None


@pytest.mark.parametrize("mode", ["trace", "sample"])
@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_closed_standard_descriptors_stay_free(py, mode, tmp_path):
    (tmp_path / "closes.py").write_text(CLOSES_AND_RESTORES)
    threads = ["tracyc worker"]
    if cpu_samples_allowed():
        threads += ["tracyc sampler"] + (["tracyc symbols"] if mode == "trace" else [])
    args = ["--sample"] if mode == "sample" else []
    run = py.tracer(*args, "closes.py", mode, ",".join(threads), "native" if native_unwinding() else "none",
                    cwd=tmp_path, output="trace.json")
    assert run.returncode == 0, run.stderr
    assert "failures []\n" in run.stdout, run.stdout
    assert "below the floor []\n" in run.stdout, run.stdout
    assert os.path.exists(run.out_path)


# CPython's own tests of subprocess with 0, 1 or 2 closed, which the profiler's descriptors
# once broke (under --sample and the profile hook alike).
SUBPROCESS_TESTS = ["-m", "test_close_fd_*", "-m", "test_close_fds_0_*", "-m", "test_close_fds_1_*",
                    "-m", "test_close_fds_2_*", "-m", "test_swap_fds", "-m", "test_swap_std_fds_with_one_closed",
                    "-m", "test_small_errpipe_write_fd"]


@pytest.mark.parametrize("mode", [[], ["--sample"]], ids=["trace", "sample"])
def test_cpython_subprocess_tests_with_closed_descriptors(mode, tmp_path):
    if subprocess.run([PYTHON, "-c", "import test.test_subprocess"], capture_output=True).returncode != 0:
        pytest.skip("CPython's test suite is not installed (Debian: libpython3-testsuite)")
    for _ in range(3):
        run = subprocess.run([PYTHON, "-m", "tracer", *mode, "-o", str(tmp_path / "out.json"), "-m", "test",
                              "test_subprocess", *SUBPROCESS_TESTS], cwd=tmp_path, env=child_env(),
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0 and "Tests result: SUCCESS" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
