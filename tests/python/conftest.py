"""Helpers for the tracer tests: run Python code or `python -m tracer` in a child process
(the profiler is per process and writes its capture at exit) and read the capture."""
import csv
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The interpreter the traced programs run on; TRACER_TEST_PYTHON=python3.12 runs the
# end-to-end tests on another CPython (the extension built in place for it).
PYTHON = os.environ.get("TRACER_TEST_PYTHON", sys.executable)
PACKAGE_DIR = os.path.join(REPO, "bindings", "python")
sys.path.insert(0, PACKAGE_DIR)  # the in-place build (setup.py build_ext --inplace)


def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_DIR, env.get("PYTHONPATH")]))
    for name in ("TRACYC_OUTPUT", "TRACY_NO_EXIT", "TRACYC_DISABLE", "PYTEST_PLUGINS"):
        env.pop(name, None)
    env.update(extra)
    return env


# tracyc-capture, for the tests of a program served to a capture over TCP.
CAPTURE = os.environ.get("TRACYC_CAPTURE")
needs_capture = pytest.mark.skipif(not CAPTURE or not os.path.exists(CAPTURE),
                                   reason="tracyc-capture not given (TRACYC_CAPTURE)")


def served_to_capture(tracer_args, script, out, cwd):
    """Runs `python -m tracer TRACER_ARGS --port P --wait SCRIPT` and records it with
    tracyc-capture into `out`, retried until the program listens. Returns the program's
    (returncode, stdout, stderr) and the capture's CompletedProcess."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    program = subprocess.Popen([PYTHON, "-m", "tracer", *tracer_args, "--port", str(port), "--wait", script],
                               cwd=cwd, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    for _ in range(100):  # until the program listens
        capture = subprocess.run([CAPTURE, "-p", str(port), "-o", str(out), "-f", "-s", "30"],
                                 capture_output=True, text=True, timeout=60)
        if os.path.exists(out):
            break
        time.sleep(0.1)
    stdout, stderr = program.communicate(timeout=60)
    return (program.returncode, stdout, stderr), capture


class Trace:
    """A Chrome JSON capture: zones ("X"), messages ("i"), plots ("C"), thread names."""

    def __init__(self, path):
        with open(path) as f:
            data = json.load(f)
        events = data["traceEvents"] if isinstance(data, dict) else data
        self.zones = [e for e in events if e["ph"] == "X"]
        self.messages = [e for e in events if e["ph"] == "i" and e.get("s") == "t"]
        self.instants = [e for e in events if e["ph"] == "i"]
        self.counters = [e for e in events if e["ph"] == "C"]
        self.thread_names = {e["tid"]: e["args"]["name"] for e in events
                             if e["ph"] == "M" and e["name"] == "thread_name"}

    def named(self, name):
        return [z for z in self.zones if z["name"] == name]

    def names(self):
        return {z["name"] for z in self.zones}

    def parent(self, zone):
        """The innermost zone of the same thread that contains zone."""
        best = None
        for z in self.zones:
            if z is zone or z["tid"] != zone["tid"]:
                continue
            if z["ts"] <= zone["ts"] and zone["ts"] + zone["dur"] <= z["ts"] + z["dur"] + 1e-3:
                if best is None or z["dur"] < best["dur"]:
                    best = z
        return best

    def assert_nested(self):
        """Zones of a thread nest properly and none is left unfinished."""
        by_thread = {}
        for z in self.zones:
            assert not z["args"].get("unfinished"), f"unfinished zone {z}"
            by_thread.setdefault(z["tid"], []).append(z)
        for zones in by_thread.values():
            zones.sort(key=lambda z: (z["ts"], -z["dur"]))
            stack = []
            for z in zones:
                while stack and stack[-1]["ts"] + stack[-1]["dur"] <= z["ts"] + 1e-3:
                    stack.pop()
                if stack:
                    outer = stack[-1]
                    assert z["ts"] + z["dur"] <= outer["ts"] + outer["dur"] + 1e-3, f"{z} overlaps {outer}"
                stack.append(z)


class Run:
    def __init__(self, proc, out_path):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out_path = out_path

    @property
    def trace(self):
        return Trace(self.out_path)

    def csv_rows(self):
        with open(self.out_path, newline="") as f:
            return list(csv.DictReader(f))


@pytest.fixture
def write(tmp_path):
    """write(name, source) -> path of a dedented file in the test's directory."""
    def write_file(name, source):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
        return str(path)
    return write_file


@pytest.fixture
def tracer_run(tmp_path):
    """tracer_run(*cli_args, output="trace.json", env={}) runs `python -m tracer -o <output>
    *cli_args` in tmp_path; output=None runs without -o."""
    def run(*args, output="trace.json", env=None, cwd=None, timeout=120):
        out_path = str(tmp_path / output) if output else None
        cmd = [PYTHON, "-m", "tracer"] + (["-o", out_path] if output else []) + list(args)
        proc = subprocess.run(cmd, cwd=cwd or tmp_path, env=child_env(**(env or {})), capture_output=True,
                              text=True, timeout=timeout)
        return Run(proc, out_path)
    return run


@pytest.fixture
def python_run(tmp_path):
    """python_run(source, output="trace.json") runs dedented source with TRACYC_OUTPUT set."""
    def run(source, output="trace.json", args=(), env=None, timeout=120):
        script = tmp_path / "prog.py"
        script.write_text(textwrap.dedent(source))
        out_path = str(tmp_path / output)
        proc = subprocess.run([PYTHON, str(script), *args], cwd=tmp_path,
                              env=child_env(TRACYC_OUTPUT=out_path, **(env or {})), capture_output=True,
                              text=True, timeout=timeout)
        return Run(proc, out_path)
    return run


# ---- other CPythons ------------------------------------------------------------------
# Tests that concern several CPython versions take the `py` fixture, parametrized with
# pythons(): the interpreter running the tests (3.11 normally, with the in-place build)
# and every 3.12+ of this machine (pyenv or PATH), each with the extension built once per
# session. A version that is not installed is skipped, not failed.

def version_of(python):
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True,
                         text=True)
    return out.stdout.strip() or None


def _find_pythons():
    found = {}
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3")))
    candidates += filter(None, (shutil.which(f"python3.{minor}") for minor in range(12, 20)))
    for path in candidates:
        version = version_of(path)
        if version and version not in found:
            found[version] = path
    found[version_of(PYTHON)] = PYTHON  # the interpreter under test keeps its own version
    return found


FOUND_PYTHONS = _find_pythons()
PYTHON_VERSION = version_of(PYTHON)


def _key(version):
    return tuple(int(part) for part in version.split("."))


def pythons(minimum="3.11", maximum=None):
    """pytest parameters for the CPythons from minimum to maximum: 3.11, 3.12 and 3.13
    always (skipped when not installed), and any later one found."""
    wanted = set(FOUND_PYTHONS) | {"3.11", "3.12", "3.13"}
    params = []
    for version in sorted(wanted, key=_key):
        if _key(version) < _key(minimum) or (maximum and _key(version) > _key(maximum)):
            continue
        marks = () if version in FOUND_PYTHONS else pytest.mark.skip(reason=f"no Python {version} here")
        params.append(pytest.param(version, id=f"py{version}", marks=marks))
    return params


def build_env(python):
    """Lets an interpreter without setuptools of its own use the system's (pure Python)."""
    env = dict(os.environ)
    if subprocess.run([python, "-c", "import setuptools"], capture_output=True).returncode != 0:
        system = subprocess.run([sys.executable, "-c", "import os, setuptools; "
                                 "print(os.path.dirname(os.path.dirname(setuptools.__file__)))"],
                                capture_output=True, text=True).stdout.strip()
        env["PYTHONPATH"] = system
    return env


class Interpreter:
    """One CPython and a build of the tracer package it can import."""

    def __init__(self, version, python, package_dir):
        self.version, self.python, self.package_dir = version, python, package_dir

    def env(self, **extra):
        env = child_env(**extra)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [self.package_dir, extra.get("PYTHONPATH")]))
        return env

    def run(self, args, cwd, env=None, timeout=120, **kwargs):
        return subprocess.run([self.python, *args], cwd=cwd, env=self.env(**(env or {})), capture_output=True,
                              text=True, timeout=timeout, **kwargs)

    def tracer(self, *args, cwd, output="trace.json", env=None, timeout=120):
        """python -m tracer -o cwd/output *args, as the tracer_run fixture."""
        out_path = os.path.join(str(cwd), output) if output else None
        proc = self.run(["-m", "tracer", *(["-o", out_path] if output else []), *args], cwd, env, timeout)
        return Run(proc, out_path)


def build_for(python, build_base):
    """Builds the package for python under build_base; returns the importable directory."""
    build = subprocess.run([python, "setup.py", "build", "--build-base", str(build_base)], cwd=REPO,
                           env=build_env(python), capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    (lib,) = glob.glob(os.path.join(str(build_base), "lib*"))
    return lib


@pytest.fixture(scope="session")
def interpreters(tmp_path_factory):
    """interpreters(version) -> Interpreter, built on first use."""
    built = {}

    def get(version):
        if version not in built:
            python = FOUND_PYTHONS[version]
            if version == PYTHON_VERSION:
                built[version] = Interpreter(version, python, PACKAGE_DIR)  # the in-place build
            else:
                lib = build_for(python, tmp_path_factory.mktemp(f"build-{version}"))
                built[version] = Interpreter(version, python, lib)
        return built[version]
    return get


@pytest.fixture
def py(request, interpreters):
    """The Interpreter of the test's parameter (see pythons())."""
    return interpreters(request.param)
