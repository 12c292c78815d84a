"""The source-location budget: past it, new functions share one fallback location, and
this is reported once."""


def test_fallback_name_beyond_the_budget(tracer_run, write):
    script = write("many.py", """\
        source = "".join(f"def f{i}():\\n    pass\\n" for i in range(20))
        exec(compile(source, "generated.py", "exec"))
        for i in range(20):
            globals()[f"f{i}"]()
        """)
    run = tracer_run("--no-c-calls", script, env={"TRACER_SRCLOC_BUDGET": "10"})
    assert run.returncode == 0, run.stderr
    trace = run.trace
    fallback = "(tracer: source-location budget exhausted)"
    locations = {(z["name"], z["args"]["file"], z["args"]["line"]) for z in trace.zones if z["name"] != fallback}
    # many.py's <module> and <genexpr>, generated.py's <module>, then f0 to f6
    assert len(locations) == 10
    assert {name for name, _, _ in locations} >= {f"f{i}" for i in range(7)}
    assert len(trace.named(fallback)) == 13  # f7 to f19
    assert run.stderr.count("more than 10 source locations") == 1
    assert any("more than 10 source locations" in m["name"] for m in trace.messages)


def test_recompiled_code_reuses_its_source_locations(tracer_run, write):
    script = write("again.py", """\
        for _ in range(50):
            exec(compile("def same():\\n    pass\\nsame()\\n", "gen.py", "exec"))
        """)
    run = tracer_run("--no-c-calls", script, env={"TRACER_SRCLOC_BUDGET": "3"})
    assert "budget" not in run.stderr
    assert len(run.trace.named("same")) == 50
