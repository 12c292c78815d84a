"""The pytest plugin on a sample suite: a zone per test phase named by node id, and
signposts for the session's start and end and for each failure."""
import subprocess

import pytest

from conftest import PYTHON, Trace, child_env

pytestmark = pytest.mark.skipif(subprocess.run([PYTHON, "-c", "import pytest"]).returncode != 0,
                                reason=f"no pytest for {PYTHON}")

SUITE = """\
import pytest

def helper():
    return 1

@pytest.fixture
def resource():
    helper()
    yield 2
    helper()

def test_passes(resource):
    assert helper() + 1 == resource

def test_fails():
    assert helper() == 2, "wrong helper"
"""


def check(trace):
    trace.assert_nested()
    ids = ["test_sample.py::test_passes", "test_sample.py::test_fails"]
    for node in ids:
        (setup,) = trace.named(f"{node} [setup]")
        (call,) = trace.named(node)
        (teardown,) = trace.named(f"{node} [teardown]")
        assert setup["ts"] + setup["dur"] <= call["ts"] <= call["ts"] + call["dur"] <= teardown["ts"]
    (passes,) = trace.named("test_passes")
    assert trace.parent(passes)["name"] == ids[0]
    (fixture_setup, fixture_teardown) = sorted(trace.named("resource"), key=lambda z: z["ts"])
    assert trace.parent(fixture_setup)["name"] == ids[0] + " [setup]"
    assert trace.parent(fixture_teardown)["name"] == ids[0] + " [teardown]"
    signposts = [m["name"] for m in sorted(trace.messages, key=lambda m: m["ts"]) if "TT_SIGNPOST" in m["name"]]
    assert signposts[0].startswith("`TT_SIGNPOST: pytest session start\n")
    assert signposts[1].startswith("`TT_SIGNPOST: test failed: test_sample.py::test_fails\ncall: AssertionError")
    assert signposts[2] == "`TT_SIGNPOST: pytest session end\nexit status 1, 1 failed`"
    assert len(signposts) == 3


def test_under_the_cli(tracer_run, write):
    write("test_sample.py", SUITE)
    run = tracer_run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_sample.py")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    check(run.trace)


def test_in_a_normal_pytest_run(write, tmp_path):
    write("test_sample.py", SUITE)
    out = str(tmp_path / "trace.json")
    proc = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tracer.pytest_plugin",
                           "--tracer", "--tracer-output", out, "test_sample.py"],
                          cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    check(Trace(out))


def test_plugin_is_inert_without_tracer_flag(write, tmp_path):
    write("test_sample.py", "def test_ok():\n    pass\n")
    proc = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tracer.pytest_plugin",
                           "test_sample.py"], cwd=tmp_path, env=child_env(TRACYC_OUTPUT=str(tmp_path / "t.json")),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "t.json").exists()  # the profiler never started


def test_source_location_budget_warning_in_the_terminal_summary(tracer_run, write):
    # the warning goes to stderr when the budget runs out, which pytest captures per test
    write("test_many.py", "".join(f"def f{i}():\n    pass\n\n" for i in range(10)) +
          "def test_calls():\n" + "".join(f"    f{i}()\n" for i in range(10)))
    run = tracer_run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_many.py",
                     env={"TRACER_SRCLOC_BUDGET": "5"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
    assert "tracer: more than 5 source locations" in run.stdout
