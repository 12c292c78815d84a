"""Automatic tracing: every Python call a zone named by its qualified name, with its file
and first line; every thread; generators and coroutines per resume; exceptions; C calls."""
import pytest

from conftest import pythons


def test_zone_names_files_lines_and_nesting(tracer_run, write):
    script = write("prog.py", """\
        def leaf():
            return 1

        class Shape:
            def area(self):
                return leaf() + leaf()

        def main():
            return Shape().area()

        main()
        """)
    run = tracer_run(script)
    assert run.returncode == 0, run.stderr
    trace = run.trace
    trace.assert_nested()
    (main,) = trace.named("main")
    (area,) = trace.named("Shape.area")
    leaves = trace.named("leaf")
    assert len(leaves) == 2
    assert main["args"] == {"file": script, "line": 8}
    assert area["args"] == {"file": script, "line": 5}
    assert leaves[0]["args"]["line"] == 1
    assert trace.parent(area) is main
    assert all(trace.parent(z) is area for z in leaves)
    assert trace.parent(main)["name"] == "<module>"


def test_recursion_gives_one_zone_per_call(tracer_run, write):
    script = write("fib.py", """\
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        fib(10)
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    assert len(trace.named("fib")) == 177  # calls of fib(10)


def test_threads_started_before_and_after_enable(tracer_run, write):
    script = write("threads.py", """\
        import threading
        from tracer import Profiler

        go = threading.Event()
        def early_work():
            return sum(range(10))
        def early():
            go.wait()
            early_work()
        def late():
            return sum(range(10))

        before = threading.Thread(target=early, name="early-thread")
        before.start()
        with Profiler():
            go.set()
            before.join()
            after = threading.Thread(target=late, name="late-thread")
            after.start()
            after.join()
        """)
    trace = tracer_run("--partial", script).trace
    trace.assert_nested()
    (early_work,) = trace.named("early_work")
    (late,) = trace.named("late")
    assert trace.thread_names[early_work["tid"]] == "early-thread"
    assert trace.thread_names[late["tid"]] == "late-thread"
    assert early_work["tid"] != late["tid"]


def test_generators_get_one_zone_per_resume(tracer_run, write):
    script = write("gen.py", """\
        def numbers():
            yield 1
            yield 2

        def consume():
            return [n for n in numbers()]

        consume()
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    resumes = trace.named("numbers")
    assert len(resumes) == 3  # two yields and the final return
    (consume,) = trace.named("consume")
    assert all(trace.parent(z)["name"] == "consume.<locals>.<listcomp>" or trace.parent(z) is consume
               for z in resumes)


def test_coroutines_get_one_zone_per_resume(tracer_run, write):
    script = write("co.py", """\
        import asyncio

        async def step():
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            return 3

        async def main():
            return await asyncio.gather(step(), step())

        asyncio.run(main())
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    assert len(trace.named("step")) == 6  # each of 2 coroutines runs in 3 slices
    assert len(trace.named("main")) >= 2


def test_exceptions_close_the_zones_they_unwind(tracer_run, write):
    script = write("exc.py", """\
        def inner():
            raise ValueError("boom")

        def middle():
            inner()

        def outer():
            try:
                middle()
            except ValueError:
                pass
            return after()

        def after():
            return 1

        outer()
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    (inner,), (middle,), (outer,), (after,) = (trace.named(n) for n in ("inner", "middle", "outer", "after"))
    assert trace.parent(inner) is middle and trace.parent(middle) is outer
    assert trace.parent(after) is outer
    assert after["ts"] >= middle["ts"] + middle["dur"]


def test_c_calls_are_zones_named_after_the_c_function(tracer_run, write):
    script = write("c.py", """\
        import math

        def work():
            items = []
            items.append(3)
            return sorted(items), len(items), math.sqrt(4.0), str.upper("x")

        work()
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    (work,) = trace.named("work")
    for name in ("list.append", "builtins.sorted", "builtins.len", "math.sqrt", "str.upper"):
        (zone,) = trace.named(name)
        assert trace.parent(zone) is work
        assert zone["args"]["file"] == "<built-in>"


def test_no_c_calls(tracer_run, write):
    script = write("c.py", """\
        def work():
            return sorted([2, 1]), len("ab")
        work()
        """)
    trace = tracer_run("--no-c-calls", script).trace
    assert trace.names() == {"<module>", "work"}


def test_no_zone_ends_on_another_thread(tracer_run, write):
    script = write("many.py", """\
        import threading

        def work(depth):
            return 0 if depth == 0 else work(depth - 1) + 1

        def loop():
            for _ in range(200):
                work(5)

        threads = [threading.Thread(target=loop) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        """)
    trace = tracer_run(script).trace
    trace.assert_nested()
    per_thread = {}
    for z in trace.named("work"):
        per_thread[z["tid"]] = per_thread.get(z["tid"], 0) + 1
    assert sorted(per_thread.values()) == [1200] * 4


THREAD_NAMES = """\
import threading
from concurrent.futures import ThreadPoolExecutor

def work(n):
    return n * 2

with ThreadPoolExecutor(2) as pool:
    list(pool.map(work, range(8)))
t = threading.Thread(target=work, args=(1,), name="named-thread")
t.start()
t.join()
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_threads_are_named_even_when_threading_itself_is_traced(py, tmp_path):
    # With --include '*' a thread's first zones are threading's bootstrap, which runs
    # before the thread is registered under its name.
    (tmp_path / "names.py").write_text(THREAD_NAMES)
    run = py.tracer("--include", "*", "names.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    trace = run.trace
    names = {trace.thread_names.get(z["tid"]) for z in trace.named("work")}
    assert "named-thread" in names
    assert names - {"named-thread"} <= {"ThreadPoolExecutor-0_0", "ThreadPoolExecutor-0_1"}, names


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_recursion_deeper_than_65535(py, tmp_path):
    # every level is a zone (the capture once kept 16 bits of depth), and the CSV's
    # std_ns is a number (an integer overflow once made it -nan)
    (tmp_path / "deep.py").write_text(
        "import sys\n"
        "sys.setrecursionlimit(100000)\n"
        "def rec(n):\n"
        "    return 0 if n == 0 else rec(n - 1) + 1\n"
        "rec(69999)\n")
    run = py.tracer("--no-c-calls", "deep.py", cwd=tmp_path, output="stats.csv")
    assert run.returncode == 0, run.stderr
    (row,) = [row for row in run.csv_rows() if row["name"] == "rec"]
    assert row["counts"] == "70000"
    std = float(row["std_ns"])
    assert 0 < std < int(row["max_ns"]) - int(row["min_ns"])
