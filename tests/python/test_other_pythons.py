"""The extension builds and works under the other CPythons found here (3.12+ take the
sys.monitoring path): a build with setup.py (the `interpreters` fixture), then a traced
smoke program."""
import pytest

from conftest import pythons

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


@pytest.mark.parametrize("py", pythons(minimum="3.12"), indirect=True)
def test_build_and_smoke(py, tmp_path):
    (tmp_path / "smoke.py").write_text(SMOKE)
    run = py.tracer("smoke.py", cwd=tmp_path, output="smoke.json")
    assert run.returncode == 0, run.stderr
    trace = run.trace
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
