"""python -m tracer: the program sees what plain python gives it, and the outputs."""
import contextlib
import io
import itertools
import os
import re
import shutil
import signal
import subprocess

import pytest

from conftest import PYTHON, child_env
from tracer import _cli

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


# Arguments of command lines that tracer reads itself or leaves to argparse: every option,
# values good and bad, and what only argparse reads (-h, --output=FILE, -pl, abbreviations,
# values starting with '-', -r).
ARGUMENTS = ["-p", "--partial", "-l", "--lines", "--sample", "500", "0", "-5", "1e3", "+7", "x", "--native-samples",
             "-o", "out.json", "out.nope", "-t", "8086", "--port", "--wait", "--include", "--exclude",
             "--max-depth", " 3", "--min-duration", "2ms", "soon", "--no-c-calls", "--no-follow", "-r", "-h",
             "--help", "--out", "--output=o.txt", "-pl", "--", "-", "", "-m", "mod", "prog.py"]


def _parsed(argv, monkeypatch, argparse_only):
    """What _cli.parse gives for argv (its result, or its exit status and output), reading
    every option with argparse when argparse_only."""
    with monkeypatch.context() as m:
        if argparse_only:
            m.setattr(_cli, "read_options", lambda args: None)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                options, module, script, args = _cli.parse(list(argv), "python -m tracer")
            except SystemExit as exc:
                return ("exit", exc.code, out.getvalue(), err.getvalue())
    fields = {k: v for k, v in vars(options).items() if k != "r"}  # (-r's, always None)
    return fields, module, script, args


def test_command_lines_read_as_argparse_reads_them(monkeypatch, tmp_path):
    """The options tracer reads without argparse (to spare every start-up its import) come
    out as argparse reads them; the rest, the help and every error are argparse's."""
    monkeypatch.chdir(tmp_path)  # (-o's check makes and removes a file beside the output)
    fast = 0
    some = ["-p", "-l", "--sample", "500", "-5", "-o", "out.json", "out.nope", "--include", "--max-depth", "3", "--",
            "-m", "prog.py"]
    for argv in [*itertools.chain.from_iterable(itertools.product(ARGUMENTS, repeat=n) for n in range(3)),
                 *itertools.product(some, repeat=3)]:
        expected = _parsed(argv, monkeypatch, argparse_only=True)
        assert _parsed(argv, monkeypatch, argparse_only=False) == expected, argv
        fast += _cli.read_options(list(argv[:argv.index("prog.py")] if "prog.py" in argv else argv)) is not None
    assert fast > 500  # (most of the good ones were read without argparse)


def test_number_and_duration_read_as_the_patterns_say():
    """What may follow --sample as its rate, and --min-duration's TIME, are read without
    re (imported by nothing else at start-up) as these patterns read them."""
    number = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
    duration = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|µs|ms|s)?\s*")
    for text in map("".join, itertools.product(["", "1", "23", ".", "+", "-", "e", "E", "\u0663", " ", "x"],
                                               repeat=4)):
        assert _cli.looks_like_number(text) == bool(number.fullmatch(text)), text
    for text in map("".join, itertools.product(["", "1", ".", " ", "\t", "\u00a0", "ns", "us", "µs", "ms", "s", "m",
                                                "\u0663", "x"], repeat=4)):
        match = duration.fullmatch(text)
        try:
            got = _cli.duration_ns(text)
        except Exception as exc:  # argparse.ArgumentTypeError
            assert not match and str(exc).startswith("not a duration"), text
        else:
            assert match and got == int(float(match.group(1)) * _cli._UNITS[match.group(2) or "us"]), text


# What `python -m tracer` must not import before the program runs (each costs every
# start-up up to milliseconds): the program imports them if it uses them.
NOT_AT_START_UP = {"argparse", "re", "json", "threading", "signal", "enum", "shutil", "select", "gettext", "locale"}


@pytest.mark.parametrize("options", [[], ["--sample"], ["-o", "out.json"], ["--sample", "-o", "out.json"]])
def test_start_up_imports_only_what_it_needs(options, write, tmp_path):
    write("modules.py", "import sys\nprint(' '.join(sorted(sys.modules)))\n")
    write("empty.py", "")
    plain = plain_python(["-m", "modules"], tmp_path)  # python -m itself imports runpy and more
    run = subprocess.run([PYTHON, "-m", "tracer", *options, "modules.py"], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=120)
    assert plain.returncode == run.returncode == 0, run.stderr
    added = set(run.stdout.splitlines()[0].split()) - set(plain.stdout.split())
    assert not added & NOT_AT_START_UP, sorted(added)
    # tracer's own modules that only some modes need (tracer/__init__.py imports them at first use)
    lazy = {"tracer._profiler", "tracer._signpost"} | (set() if "--sample" in options else {"tracer._sampling"})
    assert not added & lazy, sorted(added & lazy)


def test_without_its_extension_tracer_says_how_to_build_it(tmp_path):
    """A checkout where setup.py has not built the C extension yet: `python -m tracer` and
    `import tracer` say so and how to build it (it was a circular import error)."""
    package = os.path.dirname(os.path.abspath(_cli.__file__))
    copy = tmp_path / "tracer"
    shutil.copytree(package, copy, ignore=lambda _, names: [n for n in names if n.endswith(".so") or n == "__pycache__"])
    env = child_env()
    env["PYTHONPATH"] = str(tmp_path)
    for args in (["-m", "tracer", "-c", "pass"], ["-c", "import tracer"]):
        run = subprocess.run([PYTHON, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode != 0
        assert "C extension is not built" in run.stderr and "setup.py build_ext --inplace" in run.stderr, run.stderr


def test_late_threading_import_traced_and_sampled(tracer_run, write):
    """tracer's start-up does not import threading: the threads of a program that imports
    it later are traced (their hook set when it is imported) and named when sampled."""
    script = write("late.py", """\
        import sys
        print("threading at start", "threading" in sys.modules)
        import threading
        def work():
            for _ in range(3000):
                sum(range(1000))
        t = threading.Thread(target=work, name="late-thread")
        t.start()
        t.join()
        """)
    run = tracer_run(script)
    assert run.returncode == 0 and run.stdout == "threading at start False\n", run.stderr
    (zone,) = run.trace.named("work")
    assert run.trace.thread_names[zone["tid"]] == "late-thread"
    run = tracer_run("--sample", "10000", script, output="late.folded")
    assert run.returncode == 0, run.stderr
    with open(run.out_path) as f:
        assert any(line.startswith("late-thread") and "work" in line for line in f), run.out_path


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
