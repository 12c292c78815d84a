"""The tracer API: zones, signposts, messages, plots, frames, threads, errors."""
import threading

import pytest

import tracer
from tracer import _signpost, _tracer


def test_signpost_is_tt_metals_exact_message(monkeypatch):
    sent = []
    monkeypatch.setattr(_tracer, "message", lambda text, color: sent.append((text, color)))
    tracer.signpost("Run number 5", "This is the run after 5 warmup runs")
    tracer.signpost(header="Run result post proc")
    assert sent == [("`TT_SIGNPOST: Run number 5\nThis is the run after 5 warmup runs`", 0xF0F8FF),
                    ("`TT_SIGNPOST: Run result post proc`", 0xF0F8FF)]
    assert _signpost.SIGNPOST_COLOR == 0xF0F8FF


def test_messages_plots_frames_and_thread_names_reach_the_capture(python_run):
    run = python_run("""\
        import threading
        import tracer

        tracer.signpost("start", "details")
        tracer.message("hello", color=0xFF0000)
        for i in range(3):
            tracer.plot("queue depth", i)
            tracer.plot("load", i / 2)
            tracer.frame_mark()
        def named():
            tracer.set_thread_name("renamed worker")
            tracer.message("from worker")
        t = threading.Thread(target=named)
        t.start(); t.join()
        assert tracer.is_connected() is False
        """)
    assert run.returncode == 0, run.stderr
    trace = run.trace
    texts = [m["name"] for m in sorted(trace.messages, key=lambda m: m["ts"])]
    assert texts[:2] == ["`TT_SIGNPOST: start\ndetails`", "hello"]
    worker = next(m for m in trace.messages if m["name"] == "from worker")
    assert trace.thread_names[worker["tid"]] == "renamed worker"
    values = {}
    for c in trace.counters:
        for key, value in c["args"].items():
            values.setdefault(c["name"], []).append(value)
    assert values["queue depth"] == [0, 1, 2]
    assert values["load"] == [0, 0.5, 1.0]
    assert sum(1 for e in trace.instants if e.get("s") == "g") == 3


def test_zone_as_context_manager_and_decorator(python_run):
    run = python_run("""\
        import asyncio
        import tracer

        @tracer.zone()
        def plain(n):
            return n + 1

        @tracer.zone("renamed", color=0x00FF00)
        def other():
            with tracer.zone("inner block") as z:
                z.set_text("some text")
                z.set_name("inner named")

        @tracer.zone()
        def numbers():
            yield 1
            yield 2

        @tracer.zone()
        async def slow():
            await asyncio.sleep(0)
            return 5

        @tracer.zone()
        def fails():
            raise KeyError("x")

        def main():
            with tracer.zone():
                plain(1)
            other()
            assert list(numbers()) == [1, 2]
            assert asyncio.run(slow()) == 5
            try:
                fails()
            except KeyError:
                pass
            with tracer.zone("after"):
                pass

        main()
        """)
    assert run.returncode == 0, run.stderr
    trace = run.trace
    trace.assert_nested()
    (block,) = trace.named("main")  # a nameless zone is called after its function
    (plain,) = trace.named("plain")
    assert trace.parent(plain) is block
    assert plain["args"]["line"] == 4
    (renamed,) = trace.named("renamed")
    (inner,) = trace.named("inner named")
    assert inner["args"]["text"] == "some text" and trace.parent(inner) is renamed
    assert len(trace.named("numbers")) == 3
    assert len(trace.named("slow")) == 2
    assert len(trace.named("fails")) == 1 and len(trace.named("after")) == 1


def test_zone_reused_by_recursion_and_threads(python_run):
    run = python_run("""\
        import threading
        import tracer

        z = tracer.zone("shared")
        def down(n):
            with z:
                if n:
                    down(n - 1)
        threads = [threading.Thread(target=down, args=(20,)) for _ in range(3)]
        for t in threads: t.start()
        for t in threads: t.join()
        """)
    trace = run.trace
    trace.assert_nested()
    assert len(trace.named("shared")) == 63


def test_bad_arguments_raise_type_errors():
    with pytest.raises(TypeError, match="message text must be a str"):
        tracer.message(42)
    with pytest.raises(TypeError, match="color must be an int"):
        tracer.message("x", color="red")
    with pytest.raises(ValueError, match="color must be between"):
        tracer.message("x", color=-1)
    with pytest.raises(TypeError, match="plot name must be a str"):
        tracer.plot(1, 2)
    with pytest.raises(TypeError, match="plot value must be an int or a float"):
        tracer.plot("p", "high")
    with pytest.raises(TypeError, match=r"plot\(\) takes 2 arguments"):
        tracer.plot("p")
    with pytest.raises(TypeError, match="frame name must be a str"):
        tracer.frame_mark(3)
    with pytest.raises(TypeError, match="thread name must be a str"):
        tracer.set_thread_name(None)
    with pytest.raises(TypeError, match="zone name must be a str"):
        tracer.zone(5)
    with pytest.raises(TypeError, match="zone color must be an int"):
        tracer.zone("z", color=1.5)
    with pytest.raises(TypeError, match="can only decorate a callable"):
        tracer.zone()(3)
    with pytest.raises(TypeError, match="async generator"):
        @tracer.zone()
        async def agen():
            yield 1
    with pytest.raises(TypeError, match="signpost header must be a str"):
        tracer.signpost(1)
    with pytest.raises(TypeError, match="signpost message must be a str"):
        tracer.signpost("h", 2)
    with pytest.raises(TypeError, match="max_depth must be an int"):
        _tracer.configure(max_depth="deep")


def test_source_locations_with_colliding_hashes_stay_apart():
    # The interning table hashes (line, color) as line * 31 + color: (n, 31) and (n + 1, 0)
    # share a hash, and must still be two source locations.
    first = tracer.zone("collide", color=31)
    second = tracer.zone("collide", color=0)
    line = int(repr(first).rstrip(">").rsplit(":", 1)[1])
    assert repr(second).endswith(f":{line + 1}>")


def test_ending_a_zone_that_is_not_open_raises_runtime_error():
    z = tracer.zone("never opened")
    with pytest.raises(RuntimeError, match="not open on this thread"):
        z.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="not the innermost"):
        z.set_name("x")
    outer, inner = tracer.zone("outer"), tracer.zone("inner")
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="'outer' is not the innermost open zone"):
        outer.__exit__(None, None, None)
    inner.__exit__(None, None, None)
    outer.__exit__(None, None, None)


def test_a_zone_cannot_be_ended_on_another_thread():
    z = tracer.zone("threaded")
    errors = []
    with z:
        def end_elsewhere():
            try:
                z.__exit__(None, None, None)
            except RuntimeError as exc:
                errors.append(str(exc))
        t = threading.Thread(target=end_elsewhere)
        t.start()
        t.join()
    assert errors == ["tracer.zone: this zone is not open on this thread"]


def test_profiler_is_a_context_manager(python_run):
    run = python_run("""\
        from tracer import Profiler
        def traced(): pass
        def untraced(): pass
        with Profiler() as p:
            traced()
        untraced()
        """)
    assert run.trace.names() == {"traced"}


def test_a_with_zone_around_a_yield_ends_at_the_yield(tracer_run, write):
    run = tracer_run(write("gen.py", """\
        import tracer

        def items():
            with tracer.zone("around yield"):
                yield 1
            yield 2

        def main():
            for _ in items():
                with tracer.zone("consumer"):
                    pass

        main()
        """))
    assert run.returncode == 0, run.stderr
    trace = run.trace
    trace.assert_nested()
    (around,) = trace.named("around yield")
    assert trace.parent(around)["name"] == "items"  # ended with the generator's first slice
    assert all(trace.parent(z)["name"] == "main" for z in trace.named("consumer"))
