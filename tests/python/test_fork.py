"""os.fork() under tracer: the program's warnings are those of plain Python. 3.12+ warns
("This process is multi-threaded, use of fork() may lead to deadlocks") when a process
forks with more than one thread; the profiler's own threads must not cause it, whenever
the program forks: its worker starts at once, its CPU sampler and symbol resolver some
milliseconds later, the sampling mode's thread with sampling. Nor may tracer leave any
trace in warnings.filters, which CPython's regrtest compares around every test."""
import os
import re

import pytest

from conftest import pythons

FORKS = """\
import os, sys, threading, warnings

def child_work():
    return 1

def threads_named():
    names = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.add(f.read().strip())
        except OSError:
            pass  # ended meanwhile
    return names

# Under tracer: first every thread it starts in its own time (the argument names them).
wanted = set(filter(None, sys.argv[2].split(","))) if len(sys.argv) > 2 else set()
while not wanted <= threads_named():
    sum(i * i for i in range(10000))
if sys.argv[1] == "with-a-thread":
    release = threading.Event()
    threading.Thread(target=release.wait).start()
filters, before = warnings.filters, list(warnings.filters)
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0 if warnings.filters is filters and warnings.filters == before else 3)
_, status = os.waitpid(pid, 0)
print("parent done, child", status, "filters unchanged", warnings.filters is filters and warnings.filters == before)
if sys.argv[1] == "with-a-thread":
    release.set()
"""


def without_pids(text):
    return re.sub(r"pid=\d+", "pid=N", text)


def cpu_samples_allowed():
    """What the profiler needs for its CPU sampler thread (as tt_sampling_expected)."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
    except (OSError, ValueError):
        paranoid = 2
    return os.geteuid() == 0 or paranoid <= 2


def tracer_threads(mode):
    """The threads of tracer's to wait for before forking: the worker always; with CPU
    samples allowed, the sampler, and when tracing (native samples on) the symbol resolver."""
    names = ["tracyc worker"]
    if cpu_samples_allowed():
        names += ["tracyc sampler"] + (["tracyc symbols"] if mode == "trace" else [])
    return ",".join(names)


@pytest.mark.parametrize("mode", ["trace", "sample"])
@pytest.mark.parametrize("py", pythons(minimum="3.12"), indirect=True)
def test_fork_warns_only_as_plain_python_does(py, mode, tmp_path):
    (tmp_path / "forks.py").write_text(FORKS)
    tracer_args = ["-o", "trace.json"] + (["--sample"] if mode == "sample" else [])
    for args in (["alone"], ["with-a-thread"]):
        plain = py.run(["-W", "always::DeprecationWarning", "forks.py", *args], tmp_path)
        for wait_for in ("", tracer_threads(mode)):  # forking at once, and once tracer's threads all run
            traced = py.run(["-W", "always::DeprecationWarning", "-m", "tracer", *tracer_args, "forks.py", *args,
                             wait_for], tmp_path)
            assert plain.returncode == traced.returncode == 0, traced.stderr
            assert traced.stdout == plain.stdout == "parent done, child 0 filters unchanged True\n"
            assert without_pids(traced.stderr) == without_pids(plain.stderr), (args, wait_for)
        assert ("multi-threaded" in plain.stderr) == (args == ["with-a-thread"])  # still given when due
