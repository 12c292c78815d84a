"""--port and --wait with a real server: tracyc-capture connects over TCP and records
the traced program. Needs the capture tool (TRACYC_CAPTURE=path, set by ctest)."""
from conftest import Trace, needs_capture, served_to_capture

pytestmark = needs_capture


def test_port_and_wait_with_the_capture_tool(write, tmp_path):
    script = write("served.py", """\
        import time
        import tracer

        def work():
            return sum(range(100))

        deadline = time.time() + 20
        while not tracer.is_connected() and time.time() < deadline:
            time.sleep(0.01)
        tracer.message(f"connected: {tracer.is_connected()}")
        work()
        """)
    (returncode, stdout, stderr), capture = served_to_capture([], script, tmp_path / "served.json", tmp_path)
    assert returncode == 0, stderr
    assert capture.returncode == 0, capture.stderr
    assert "Top" not in stdout  # a server got the profile: no summary
    trace = Trace(tmp_path / "served.json")
    trace.assert_nested()
    assert trace.named("work")
    assert [m["name"] for m in trace.messages] == ["connected: True"]
