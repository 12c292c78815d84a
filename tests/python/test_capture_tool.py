"""--port and --wait with a real server: tracyc-capture connects over TCP and records
the traced program. Needs the capture tool (TRACYC_CAPTURE=path, set by ctest)."""
import os
import socket
import subprocess
import time

import pytest

from conftest import PYTHON, Trace, child_env

CAPTURE = os.environ.get("TRACYC_CAPTURE")
pytestmark = pytest.mark.skipif(not CAPTURE or not os.path.exists(CAPTURE),
                                reason="tracyc-capture not given (TRACYC_CAPTURE)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    port = free_port()
    program = subprocess.Popen([PYTHON, "-m", "tracer", "--port", str(port), "--wait", script],
                               cwd=tmp_path, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    out = tmp_path / "served.json"
    for _ in range(100):  # until the program listens
        capture = subprocess.run([CAPTURE, "-p", str(port), "-o", str(out), "-f", "-s", "30"],
                                 capture_output=True, text=True, timeout=60)
        if out.exists():
            break
        time.sleep(0.1)
    stdout, stderr = program.communicate(timeout=60)
    assert program.returncode == 0, stderr
    assert capture.returncode == 0, capture.stderr
    assert "Top" not in stdout  # a server got the profile: no summary
    trace = Trace(out)
    trace.assert_nested()
    assert trace.named("work")
    assert [m["name"] for m in trace.messages] == ["connected: True"]
