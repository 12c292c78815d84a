"""--partial (Profiler().enable()/disable()), --lines, and enabling or disabling
tracing in the middle of calls and threads."""


def test_partial_traces_only_between_enable_and_disable(tracer_run, write):
    script = write("part.py", """\
        from tracer import Profiler

        def before(): pass
        def inside(): pass
        def after(): pass

        before()
        profiler = Profiler()
        profiler.enable()
        inside()
        profiler.disable()
        after()
        """)
    trace = tracer_run("--partial", script).trace
    assert trace.names() == {"inside"}


def test_enable_and_disable_mid_call_leave_nothing_unbalanced(tracer_run, write):
    script = write("mid.py", """\
        from tracer import Profiler
        profiler = Profiler()

        def child(): pass

        def starts_tracing():
            profiler.enable()   # this frame and its callers were entered before
            child()

        def stops_tracing():
            child()
            profiler.disable()  # this frame is still open: its zone ends here

        def outer():
            starts_tracing()
            child()
            stops_tracing()
            child()

        outer()
        outer()
        """)
    trace = tracer_run("--partial", script).trace
    trace.assert_nested()
    # tracing starts inside starts_tracing, so neither it nor outer is seen; it stops inside
    # stops_tracing, whose zone ends there, and the child() after it is not seen
    once = ["child", "child", "stops_tracing", "child"]
    assert [z["name"] for z in sorted(trace.zones, key=lambda z: z["ts"])] == once + once
    for stops in trace.named("stops_tracing"):
        assert trace.parent(stops) is None


def test_disable_closes_the_zones_of_other_threads(tracer_run, write):
    script = write("other.py", """\
        import threading, time
        from tracer import Profiler

        stop, ticked = threading.Event(), threading.Event()
        def spin():
            while not stop.is_set():
                tick()
        def tick():
            time.sleep(0.001)
            ticked.set()

        profiler = Profiler()
        profiler.enable()
        worker = threading.Thread(target=spin)
        worker.start()
        ticked.wait()  # the thread runs, traced, however loaded the machine is
        profiler.disable()
        time.sleep(0.05)
        stop.set()
        worker.join()
        """)
    trace = tracer_run("--partial", script).trace
    trace.assert_nested()
    spins = trace.named("spin")
    assert len(spins) == 1
    ticks = trace.named("tick")
    assert ticks and all(t["tid"] == spins[0]["tid"] for t in ticks)


def test_line_zones(tracer_run, write):
    script = write("lines.py", """\
        from tracer import Profiler

        def work():
            a = 1
            b = a + 1
            return helper(b)

        def helper(x):
            return x * 2

        with Profiler():
            work()
        """)
    trace = tracer_run("--partial", "--lines", script).trace
    trace.assert_nested()
    (work,) = trace.named("work")
    lines = [z for z in trace.zones if z["name"].startswith("work:")]
    assert [z["name"] for z in sorted(lines, key=lambda z: z["ts"])] == ["work:4", "work:5", "work:6"]
    assert all(trace.parent(z) is work for z in lines)
    assert [z["args"]["line"] for z in sorted(lines, key=lambda z: z["ts"])] == [4, 5, 6]
    (helper,) = trace.named("helper")
    assert trace.parent(helper)["name"] == "work:6"
    assert trace.parent(trace.named("helper:9")[0]) is helper


def test_lines_need_partial(tracer_run, write):
    run = tracer_run("--lines", write("x.py", "pass\n"))
    assert run.returncode == 2
    assert "--lines needs --partial" in run.stderr
