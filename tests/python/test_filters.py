"""Which calls become zones: path filters, --max-depth, --min-duration."""
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
