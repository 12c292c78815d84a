"""os.fork() under tracer: the program's warnings are those of plain Python. 3.12+ warns
("This process is multi-threaded, use of fork() may lead to deadlocks") when a process
forks with more than one thread; the profiler's own worker thread must not cause it."""
import re

import pytest

from conftest import pythons

FORKS = """\
import os, sys, threading

def child_work():
    return 1

if sys.argv[1:] == ["with-a-thread"]:
    release = threading.Event()
    threading.Thread(target=release.wait).start()
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0)
os.waitpid(pid, 0)
print("parent done")
if sys.argv[1:] == ["with-a-thread"]:
    release.set()
"""


def without_pids(text):
    return re.sub(r"pid=\d+", "pid=N", text)


@pytest.mark.parametrize("py", pythons(minimum="3.12"), indirect=True)
def test_fork_warns_only_as_plain_python_does(py, tmp_path):
    (tmp_path / "forks.py").write_text(FORKS)
    for args in ([], ["with-a-thread"]):
        plain = py.run(["-W", "always::DeprecationWarning", "forks.py", *args], tmp_path)
        traced = py.run(["-W", "always::DeprecationWarning", "-m", "tracer", "-o", "trace.json", "forks.py", *args],
                        tmp_path)
        assert plain.returncode == traced.returncode == 0, traced.stderr
        assert traced.stdout == plain.stdout == "parent done\n"
        assert without_pids(traced.stderr) == without_pids(plain.stderr)
        assert ("multi-threaded" in plain.stderr) == bool(args)  # the warning is still given when it is due

