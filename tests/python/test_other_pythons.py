"""The extension builds and works under the other CPythons found here (3.12+ take the
sys.monitoring path): a build with setup.py, then a traced smoke program."""
import glob
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, Trace

SMOKE = """\
import asyncio, threading
import tracer

def leaf(n):
    return sorted([n, 1])

def numbers():
    yield leaf(1)
    yield leaf(2)

def fails():
    raise ValueError("x")

async def co():
    await asyncio.sleep(0)
    return leaf(3)

def main():
    list(numbers())
    try:
        fails()
    except ValueError:
        pass
    asyncio.run(co())
    t = threading.Thread(target=leaf, args=(4,), name="smoke-thread")
    t.start()
    t.join()
    with tracer.zone("manual"):
        tracer.signpost("smoke", "done")

main()
"""


def interpreters():
    """Python 3.12+ interpreters of this machine, by version."""
    found = {}
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3"))
    candidates += filter(None, (shutil.which(f"python3.{minor}") for minor in range(12, 20)))
    for path in candidates:
        version = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True).stdout.strip()
        if version and version not in found:
            found[version] = path
    return sorted(found.items())


def build_env(python):
    """Lets an interpreter without setuptools of its own use the system's (pure Python)."""
    env = dict(os.environ)
    if subprocess.run([python, "-c", "import setuptools"], capture_output=True).returncode != 0:
        system = subprocess.run([sys.executable, "-c", "import os, setuptools; "
                                 "print(os.path.dirname(os.path.dirname(setuptools.__file__)))"],
                                capture_output=True, text=True).stdout.strip()
        env["PYTHONPATH"] = system
    return env


@pytest.mark.parametrize("version,python", interpreters() or [pytest.param(None, None, marks=pytest.mark.skip(
    reason="no Python 3.12+ found"))])
def test_build_and_smoke(version, python, tmp_path):
    build = subprocess.run([python, "setup.py", "build", "--build-base", str(tmp_path / "build")], cwd=REPO,
                           env=build_env(python), capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    (lib,) = glob.glob(str(tmp_path / "build" / "lib*"))
    (tmp_path / "smoke.py").write_text(SMOKE)
    env = dict(os.environ, PYTHONPATH=lib)
    env.pop("TRACYC_OUTPUT", None)
    out = tmp_path / "smoke.json"
    run = subprocess.run([python, "-m", "tracer", "-o", str(out), "smoke.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    trace = Trace(out)
    trace.assert_nested()
    assert len(trace.named("numbers")) == 3
    assert len(trace.named("co")) == 2
    assert len(trace.named("leaf")) == 4
    assert len(trace.named("builtins.sorted")) == 4
    (fails,) = trace.named("fails")
    (manual,) = trace.named("manual")
    assert trace.parent(manual)["name"] == "main" and trace.parent(fails)["name"] == "main"
    thread_leaf = next(z for z in trace.named("leaf") if trace.thread_names.get(z["tid"]) == "smoke-thread")
    assert thread_leaf["args"]["line"] == 4
    assert any(m["name"] == "`TT_SIGNPOST: smoke\ndone`" for m in trace.messages)
