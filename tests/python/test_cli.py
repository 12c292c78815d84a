"""python -m tracer: the program sees what plain python gives it, and the outputs."""
import signal
import subprocess

import pytest

from conftest import PYTHON, child_env

PROBE = """\
import os, pickle, sys

class Point:
    pass

print("argv", sys.argv)
print("path0", sys.path[0])
print("name", __name__, os.path.basename(__file__))
print("main", sys.modules["__main__"].Point is Point)
print("pickle", type(pickle.loads(pickle.dumps(Point()))).__name__)
print("dunders", sorted(name for name in vars(sys.modules["__main__"]) if name.startswith("__")))
"""


def plain_python(args, cwd):
    proc = subprocess.run([PYTHON, *args], cwd=cwd, env=child_env(), capture_output=True, text=True)
    return proc


def test_script_sees_what_plain_python_gives(tracer_run, write, tmp_path):
    write("sub/probe.py", PROBE)
    run = tracer_run("sub/probe.py", "x", "--flag")
    plain = plain_python(["sub/probe.py", "x", "--flag"], tmp_path)
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
    assert "argv ['sub/probe.py', 'x', '--flag']" in run.stdout


def test_module_sees_what_python_dash_m_gives(tracer_run, write, tmp_path):
    write("pkg/__init__.py", "")
    write("pkg/probe.py", PROBE)
    run = tracer_run("-m", "pkg.probe", "a", "-v")
    plain = plain_python(["-m", "pkg.probe", "a", "-v"], tmp_path)
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
    assert run.trace.named("<module>")


def test_exit_codes(tracer_run, write):
    assert tracer_run(write("ok.py", "pass\n")).returncode == 0
    assert tracer_run(write("three.py", "import sys\nsys.exit(3)\n")).returncode == 3
    run = tracer_run(write("msg.py", "import sys\nsys.exit('bye')\n"))
    assert run.returncode == 1 and run.stderr == "bye\n"


def test_uncaught_exception_traceback_as_plain_python(tracer_run, write, tmp_path):
    write("boom.py", """\
        def fail():
            raise RuntimeError("boom")
        fail()
        """)
    run = tracer_run("boom.py")
    plain = plain_python(["boom.py"], tmp_path)
    assert run.returncode == plain.returncode == 1
    assert run.stderr == plain.stderr
    assert run.stderr.startswith("Traceback (most recent call last):\n  File ")
    assert "tracer" not in run.stderr
    trace = run.trace
    trace.assert_nested()
    assert trace.named("fail")


@pytest.mark.parametrize("program", [["nope.py"], ["empty_dir"], ["-m", "no_such_module"],
                                     ["-m", "no_such_package.module"], ["-m", ".relative"]])
def test_missing_program_fails_as_plain_python_with_no_profile(program, tracer_run, tmp_path):
    """Nothing of the program ran: python's message and status, no -o file, no summary."""
    (tmp_path / "empty_dir").mkdir()
    plain = plain_python(program, tmp_path)
    assert plain.returncode in (1, 2) and plain.stderr
    for output in ("out.json", None):
        run = tracer_run(*program, output=output)
        assert (run.returncode, run.stderr, run.stdout) == (plain.returncode, plain.stderr, "")
    assert not (tmp_path / "out.json").exists()


def test_usage_errors(tracer_run):
    run = tracer_run(output=None)
    assert run.returncode == 2 and "no script or module" in run.stderr
    run = tracer_run("--min-duration", "soon", "x.py", output=None)
    assert run.returncode == 2 and "not a duration" in run.stderr


def test_summary_is_printed_without_output_or_server(tracer_run, write):
    script = write("s.py", """\
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        fib(6)
        print("done")
        """)
    run = tracer_run(script, output=None)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("done\n")
    assert "Top" in run.stdout
    row = next(line for line in run.stdout.splitlines() if line.rstrip().endswith("s.py:1") and "fib" in line)
    assert row.split()[0] == "25"  # calls of fib(6)


def test_csv_output(tracer_run, write):
    script = write("c.py", """\
        def f():
            pass
        for _ in range(7):
            f()
        """)
    run = tracer_run("--no-c-calls", script, output="stats.csv")
    rows = {row["name"]: row for row in run.csv_rows()}
    assert rows["f"]["counts"] == "7"
    assert rows["f"]["src_file"] == script and rows["f"]["src_line"] == "1"


def test_text_summary_output(tracer_run, write):
    run = tracer_run(write("t.py", "def g():\n    pass\ng()\n"), output="summary.txt")
    with open(run.out_path) as f:
        text = f.read()
    assert "g  t.py:1" in text


@pytest.mark.skipif(subprocess.run([PYTHON, "-c", "import pytest"]).returncode != 0, reason=f"no pytest for {PYTHON}")
def test_pytest_under_the_cli(tracer_run, tmp_path):
    # covered in depth by test_pytest_plugin; here: -m pytest with its own arguments
    (tmp_path / "test_one.py").write_text("def test_ok():\n    assert True\n")
    run = tracer_run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
    assert run.trace.named("test_ok")


def test_keyboard_interrupt_as_plain_python(tracer_run, write, tmp_path):
    write("interrupted.py", """\
        import atexit, os, signal
        atexit.register(print, "atexit ran")
        def wait():
            os.kill(os.getpid(), signal.SIGINT)
        wait()
        """)
    run = tracer_run("interrupted.py")
    plain = plain_python(["interrupted.py"], tmp_path)
    assert plain.returncode == -signal.SIGINT  # Python dies of SIGINT after its traceback
    assert run.returncode == plain.returncode
    assert run.stdout == plain.stdout == "atexit ran\n"
    assert run.stderr == plain.stderr
    assert "tracer" not in run.stderr and "runpy" not in run.stderr
    assert run.trace.named("wait")


STACK_PROBE = """\
import inspect, sys
def probe():
    outer = [f.function for f in inspect.stack()]
    print(outer[outer.index("<module>") + 1:])
probe()
"""


def test_frames_below_the_program_are_the_documented_ones(tracer_run, write, tmp_path):
    # docs/python.md lists them: plain python has none below a script's <module>
    write("stack.py", STACK_PROBE)
    assert plain_python(["stack.py"], tmp_path).stdout == "[]\n"
    run = tracer_run("stack.py")
    assert run.stdout == "['run_script', 'main', '<module>', '_run_code', '_run_module_as_main']\n"
