"""A traced program keeps the use of its own profilers and debuggers: cProfile, pdb and
the standard sys.monitoring tool ids on 3.12+; on 3.11, where a thread has one profile
function, its own sys.setprofile() pauses tracing on that thread and says so."""
import pytest

from conftest import pythons

WITH_TOOLS = """\
import cProfile, io, pdb, pstats, sys

def work():
    return sum(range(100))

profile = cProfile.Profile()
profile.enable()
work()
profile.disable()
stats = io.StringIO()
pstats.Stats(profile, stream=stats).print_stats("work")
print("cProfile saw work:", "work" in stats.getvalue())

debugger_out = io.StringIO()
debugger = pdb.Pdb(stdin=io.StringIO("p 6 * 7\\ncontinue\\n"), stdout=debugger_out)
debugger.use_rawinput = False
debugger.runcall(work)
print("pdb printed 42:", "42" in debugger_out.getvalue())

free = []
for tool in (sys.monitoring.DEBUGGER_ID, sys.monitoring.COVERAGE_ID, sys.monitoring.PROFILER_ID):
    sys.monitoring.use_tool_id(tool, "mine")
    sys.monitoring.free_tool_id(tool)
    free.append(tool)
print("standard tool ids free:", free)
work()
"""


@pytest.mark.parametrize("py", pythons(minimum="3.12"), indirect=True)
def test_cprofile_pdb_and_standard_tool_ids_stay_free(py, tmp_path):
    (tmp_path / "tools.py").write_text(WITH_TOOLS)
    run = py.tracer("tools.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["cProfile saw work: True", "pdb printed 42: True",
                                       "standard tool ids free: [0, 1, 2]"]
    assert len(run.trace.named("work")) >= 2  # traced before and after the program's own tools


OWN_PROFILER = """\
import sys

def before():
    pass

def during():
    pass

def after():
    pass

def again():
    pass

calls = []
def my_profiler(frame, event, arg):
    if event == "call":
        calls.append(frame.f_code.co_name)

before()
sys.setprofile(my_profiler)
during()
sys.setprofile(None)
after()
sys.setprofile(None)  # a program making sure no profiler runs
again()
print("my profiler saw during:", "during" in calls)
"""


@pytest.mark.parametrize("py", pythons(maximum="3.11"), indirect=True)
def test_the_programs_own_setprofile_pauses_tracing_and_says_so(py, tmp_path):
    # 3.11 has one profile function per thread: the program's replaces tracer's while set
    (tmp_path / "own.py").write_text(OWN_PROFILER)
    run = py.tracer("--no-c-calls", "own.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "my profiler saw during: True\n"
    trace = run.trace
    trace.assert_nested()
    assert {"before", "after", "again"} <= trace.names() and "during" not in trace.names()
    (warning,) = [m["name"] for m in trace.messages]
    assert "sys.setprofile" in warning and "not traced" in warning


SIGNAL_WHILE_BLOCKED = """\
import os, signal, threading

signal.signal(signal.SIGUSR1, lambda *args: None)
signal.siginterrupt(signal.SIGUSR1, False)  # SA_RESTART: the main thread's read() goes on after the handler
read_end, write_end = os.pipe()
main_thread = threading.get_ident()
started = threading.Event()

def f():
    pass

def worker():
    started.wait()
    signal.pthread_kill(main_thread, signal.SIGUSR1)  # pending until the main thread runs Python again
    for _ in range(1000000):  # keep the GIL while the main thread's C handler runs
        pass
    f()  # CPython 3.11 with a profile function: spins here, at the function's entry
    os.write(write_end, b"x")

threading.Thread(target=worker).start()
threading.Timer(0.2, started.set).start()  # by then the main thread is blocked in os.read
os.read(read_end, 1)
print("done")
"""


@pytest.mark.parametrize("py", pythons(maximum="3.11"), indirect=True)
def test_signal_for_the_main_thread_does_not_hang_a_traced_thread(py, tmp_path):
    # CPython 3.11: a thread entering a function with a profile function set, while a
    # signal waits for the blocked main thread, loops at the function's entry forever
    # (every all-threads profiler meets it; docs/python.md). tracer breaks the loop.
    (tmp_path / "blocked.py").write_text(SIGNAL_WHILE_BLOCKED)
    run = py.tracer("blocked.py", cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "done\n"
    assert run.trace.named("f")
