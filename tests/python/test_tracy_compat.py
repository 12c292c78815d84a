"""tt-metal's commands: `python -m tracy ...`, `from tracy import signpost, Profiler`, its
exact signpost texts; and output names whose format cannot be written are refused with
directions (.tracy is the Tracy GUI's format, which upstream's tracy-capture writes)."""
import subprocess

from conftest import PYTHON, Trace, child_env

PROGRAM = """\
from tracy import Profiler, signpost

def before():
    pass

def function_under_test():
    return sum(range(10))

before()
signpost(header="Run number 5", message="This is the run after 5 warmup runs")
profiler = Profiler()
profiler.enable()
function_under_test()
profiler.disable()
signpost(header="Run result post proc")
signpost("empty message", "")
"""


def run(args, cwd, env=None):
    return subprocess.run([PYTHON, *args], cwd=cwd, env=child_env(**(env or {})), capture_output=True, text=True,
                          timeout=120)


def test_python_m_tracy_partial_with_tt_metal_signposts(write, tmp_path):
    write("prog.py", PROGRAM)
    proc = run(["-m", "tracy", "-p", "-o", "trace.json", "prog.py"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    trace = Trace(tmp_path / "trace.json")
    assert trace.names() == {"function_under_test", "builtins.sum"}
    assert [m["name"] for m in sorted(trace.messages, key=lambda m: m["ts"])] == [
        "`TT_SIGNPOST: Run number 5\nThis is the run after 5 warmup runs`",
        "`TT_SIGNPOST: Run result post proc`",
        "`TT_SIGNPOST: empty message`",  # tt-metal leaves out an empty message, newline and all
    ]


def test_python_m_tracy_lines_port_and_module(write, tmp_path):
    write("pkg/__init__.py", "")
    write("pkg/work.py", """\
        from tracy import Profiler
        def step():
            a = 1
            return a + 1
        with Profiler():
            step()
        """)
    proc = run(["-m", "tracy", "-p", "-l", "-t", "0", "-o", "trace.json", "-m", "pkg.work"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = Trace(tmp_path / "trace.json").names()
    assert {"step", "step:3", "step:4"} <= names


def test_tt_metal_report_option_is_explained(write, tmp_path):
    write("prog.py", "pass\n")
    proc = run(["-m", "tracy", "-r", "prog.py"], tmp_path)
    assert proc.returncode == 2
    assert "usage: python -m tracy" in proc.stderr and "tracyc-capture" in proc.stderr


def test_output_formats_that_cannot_be_written_are_refused(write, tmp_path):
    write("prog.py", "def f():\n    pass\nf()\n")
    for cli in ("tracer", "tracy"):
        proc = run(["-m", cli, "-o", "x.tracy", "prog.py"], tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "x.tracy" in proc.stderr and "tracy-capture" in proc.stderr
        assert not (tmp_path / "x.tracy").exists()
    proc = run(["-m", "tracer", "-o", "x.html", "prog.py"], tmp_path)
    assert proc.returncode == 2 and "'.html'" in proc.stderr and ".json" in proc.stderr
    proc = run(["prog.py"], tmp_path, env={"TRACYC_OUTPUT": str(tmp_path / "y.tracy"), "PYTHONPATH": ""})
    # a program not using tracer: nothing to say
    assert proc.returncode == 0 and proc.stderr == ""
    write("uses.py", "import tracer\nwith tracer.zone('z'):\n    pass\n")
    proc = run(["uses.py"], tmp_path, env={"TRACYC_OUTPUT": str(tmp_path / "y.tracy")})
    assert proc.returncode == 0
    assert "y.tracy" in proc.stderr and "tracy-capture" in proc.stderr
    assert not (tmp_path / "y.tracy").exists()


def test_no_extension_or_txt_is_a_summary(write, tmp_path):
    write("prog.py", "def f():\n    pass\nf()\n")
    for name in ("summary.txt", "summary"):
        proc = run(["-m", "tracer", "-o", name, "prog.py"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "f  prog.py:1" in (tmp_path / name).read_text()
