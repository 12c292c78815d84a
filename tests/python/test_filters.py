"""Which calls become zones: path filters, --max-depth, --min-duration."""
import os
import subprocess

import pytest

from conftest import FOUND_PYTHONS, REPO, pythons


def test_standard_library_is_left_out_by_default(tracer_run, write):
    script = write("std.py", """\
        import json
        def work():
            return json.dumps({"a": [1, 2]})
        work()
        """)
    trace = tracer_run(script).trace
    files = {z["args"]["file"] for z in trace.zones}
    assert files == {script}, files
    (work,) = trace.named("work")
    assert trace.names() == {"<module>", "work"}  # json's own C calls are not recorded either


def test_include_traces_only_matching_files_even_in_the_standard_library(tracer_run, write):
    script = write("std.py", """\
        import json
        def work():
            return json.dumps({"a": [1, 2]})
        work()
        """)
    trace = tracer_run("--include", "*/json/*", script).trace
    files = {z["args"]["file"] for z in trace.zones}
    assert files and all("/json/" in f or f == "<built-in>" for f in files)
    assert "dumps" in trace.names() and "work" not in trace.names()


def test_exclude(tracer_run, write):
    helper = write("lib/helper.py", """\
        def helped():
            return 1
        """)
    script = write("main.py", """\
        import sys, os
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import helper
        def work():
            return helper.helped()
        work()
        """)
    assert "helped" in tracer_run(script).trace.names()
    trace = tracer_run("--exclude", "*/lib/*", script).trace
    assert "helped" not in trace.names() and "work" in trace.names()
    assert helper


def test_max_depth(tracer_run, write):
    script = write("deep.py", """\
        def down(n):
            if n:
                down(n - 1)
        down(10)
        """)
    trace = tracer_run("--max-depth", "3", script).trace
    trace.assert_nested()
    assert len(trace.named("<module>")) == 1
    assert len(trace.named("down")) == 2


def test_min_duration_drops_short_zones_and_keeps_times(tracer_run, write):
    script = write("slow.py", """\
        import time
        def quick():
            pass
        def slow():
            quick()
            time.sleep(0.01)
            quick()
        def main():
            quick()
            slow()
        main()
        """)
    trace = tracer_run("--min-duration", "5ms", "--no-c-calls", script).trace
    trace.assert_nested()
    assert trace.names() == {"<module>", "main", "slow"}
    (main,), (slow,) = trace.named("main"), trace.named("slow")
    assert trace.parent(slow) is main
    assert slow["dur"] >= 10_000 and main["dur"] >= slow["dur"]


GENERATED = """\
import collections, dataclasses
import urllib.parse

Point = collections.namedtuple("Point", "x y")

@dataclasses.dataclass
class D:
    a: int

def make():
    return Point(1, 2), D(3)

exec(compile("def generated_here():\\n    return 1\\n", "<mine>", "exec"))
make()
generated_here()
urllib.parse.urlparse("http://example.com/a?b=c")  # the standard library calling its own generated code
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_code_compiled_at_run_time_is_filtered_as_the_module_that_compiled_it(py, tmp_path):
    # namedtuple's and dataclasses' generated methods (file "<string>") belong to the
    # standard library; the program's own exec'd code belongs to the program
    (tmp_path / "gen.py").write_text(GENERATED)
    run = py.tracer("--no-c-calls", "gen.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    zones = {(z["name"], os.path.basename(z["args"]["file"])) for z in run.trace.zones}
    assert zones == {("<module>", "gen.py"), ("D", "gen.py"), ("make", "gen.py"), ("<module>", "<mine>"),
                     ("generated_here", "<mine>")}
    run = py.tracer("--no-c-calls", "--include", "*", "gen.py", cwd=tmp_path)
    assert ("<lambda>", "<string>") in {(z["name"], z["args"]["file"]) for z in run.trace.zones}  # when asked for


# attrs compiles its generated classes with no file name at all ("").
NAMELESS_LIB = """\
def make_class(name):
    namespace = {}
    eval(compile(f"class {name}(tuple):\\n    __slots__ = ()\\n", "", "exec"), namespace)
    return namespace[name]
"""
NAMELESS = """\
import lib

Made = lib.make_class("Made")
exec(compile("def mine():\\n    return Made()\\n", "", "exec"))
mine()
"""


@pytest.mark.parametrize("py", pythons(), indirect=True)
def test_code_compiled_without_a_file_name_is_filtered_as_the_module_that_compiled_it(py, tmp_path):
    (tmp_path / "lib.py").write_text(NAMELESS_LIB)
    (tmp_path / "nameless.py").write_text(NAMELESS)
    run = py.tracer("--no-c-calls", "--exclude", "*/lib.py", "nameless.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    zones = {(z["name"], os.path.basename(z["args"]["file"])) for z in run.trace.zones}
    assert zones == {("<module>", "nameless.py"), ("<module>", ""), ("mine", "")}


ATTRS_TESTS = """\
import attr

@attr.s
class Point:
    x = attr.ib()
    y = attr.ib(default=2)

def test_point():
    assert Point(1).y == 2
"""


def test_generated_code_of_libraries_is_left_out_under_pytest(tracer_run, tmp_path):
    """pytest's own classes and the test's are made by attrs, from code with no file name."""
    pytest.importorskip("attr")
    (tmp_path / "test_attrs.py").write_text(ATTRS_TESTS)
    run = tracer_run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_attrs.py")
    assert run.returncode == 0, run.stdout + run.stderr
    files = {z["args"]["file"] for z in run.trace.zones}
    assert not {f for f in files if not f.startswith("/")} - {"<built-in>"}, files  # the test's, the plugin's
    assert {"Point", "test_point"} <= run.trace.names()


# Every directory sysconfig names for the standard library and site-packages, under one
# CPython, from tracer/_filters.py loaded alone (it finds them without importing sysconfig).
SYSCONFIG_DIRS = """\
import importlib.util, os, sys, sysconfig
spec = importlib.util.spec_from_file_location("filters", sys.argv[1])
filters = importlib.util.module_from_spec(spec)
spec.loader.exec_module(filters)
wanted = {os.path.join(os.path.abspath(sysconfig.get_paths()[key]), "")
          for key in ("stdlib", "platstdlib", "purelib", "platlib")}
missing = wanted - set(filters.skip_dirs())
print("missing:", sorted(missing)) if missing else print("ok")
"""


@pytest.mark.parametrize("version", pythons())
@pytest.mark.parametrize("where", ["installed", "venv"])
def test_left_out_directories_are_sysconfigs(version, where, tmp_path):
    python = FOUND_PYTHONS[version]
    if where == "venv":
        made = subprocess.run([python, "-m", "venv", "--without-pip", str(tmp_path / "venv")], capture_output=True,
                              text=True, timeout=120)
        if made.returncode != 0:
            pytest.skip(f"no venv for {python}: {made.stderr.strip()[-200:]}")
        python = str(tmp_path / "venv" / "bin" / "python")
    script = tmp_path / "dirs.py"
    script.write_text(SYSCONFIG_DIRS)
    run = subprocess.run([python, str(script), os.path.join(REPO, "bindings", "python", "tracer", "_filters.py")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
