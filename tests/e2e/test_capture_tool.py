"""End to end: examples/c profiled through the in-process capture and through
tracyc-capture, with each exporter's output checked for real content, and the capture
tool's handling of Ctrl-C, a client killed mid-stream, a protocol mismatch and bad
output paths. Run by ctest with TRACYC_BUILD_DIR set."""
import csv
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import time

from capture_terminal import capture_on_terminal

BUILD = os.environ.get("TRACYC_BUILD_DIR", "build/test")
CAPTURE = os.path.join(BUILD, "tools", "tracyc-capture")


def example(name):
    return os.path.join(BUILD, "examples", "c", "example_" + name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_inprocess(name, output):
    env = dict(os.environ, TRACYC_OUTPUT=str(output))
    subprocess.run([example(name)], env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)


def csv_rows(path):
    with open(path, newline="") as f:
        return {row["name"]: row for row in csv.DictReader(f)}


def test_game_loop_csv_counts_exact_and_times_bounded_by_sleeps(tmp_path):
    out = tmp_path / "stats.csv"
    start = time.monotonic()
    run_inprocess("game_loop", out)
    wall_ns = (time.monotonic() - start) * 1e9
    rows = csv_rows(out)
    assert set(rows) == {"update", "render", "physics"}
    assert [int(rows[n]["counts"]) for n in ("update", "render", "physics")] == [60, 60, 30]
    # Each zone sleeps at least: physics 300 us, update 200 us (+ physics every other
    # frame), render 500 us. Nothing can last longer than the whole run.
    assert int(rows["physics"]["min_ns"]) >= 300_000
    assert int(rows["update"]["min_ns"]) >= 200_000
    assert int(rows["render"]["min_ns"]) >= 500_000
    for row in rows.values():
        assert int(row["min_ns"]) <= int(row["mean_ns"]) <= int(row["max_ns"])
        assert int(row["total_ns"]) < wall_ns
        assert row["src_file"].endswith("game_loop.c")
    assert int(rows["update"]["total_ns"]) >= int(rows["physics"]["total_ns"]) + 60 * 200_000


def load_trace(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def test_game_loop_json_nesting_messages_counters(tmp_path):
    out = tmp_path / "trace.json"
    run_inprocess("game_loop", out)
    events = load_trace(out)
    zones = [e for e in events if e.get("ph") == "X"]
    by_name = {}
    for z in zones:
        by_name.setdefault(z["name"], []).append(z)
    assert len(by_name["update"]) == 60 and len(by_name["render"]) == 60 and len(by_name["physics"]) == 30
    # physics nests inside an update of the same thread.
    for p in by_name["physics"]:
        assert any(u["tid"] == p["tid"] and u["ts"] <= p["ts"] and p["ts"] + p["dur"] <= u["ts"] + u["dur"]
                   for u in by_name["update"])
    render = by_name["render"][5]
    assert render["args"]["text"] == "frame 5"
    assert render["args"]["file"].endswith("game_loop.c") and render["loc"].endswith("game_loop.c:39")
    assert by_name["physics"][0]["args"]["value"] in (0, "0")
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    assert "game main" in names
    messages = [e["name"] for e in events if e.get("ph") == "i" and e.get("s") == "t"]
    assert messages.count("checkpoint") == 3 and "starting" in messages and "done" in messages
    counters = [e for e in events if e.get("ph") == "C" and e["name"] == "triangles"]
    assert len(counters) == 60
    assert sorted(c["args"]["triangles"] for c in counters)[-1] == 1590


def test_multithreaded_program_in_process(tmp_path):
    out = tmp_path / "trace.json"
    run_inprocess("workers", out)
    events = load_trace(out)
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    jobs = [e for e in events if e.get("ph") == "X" and e["name"] == "job"]
    per_thread = {}
    for j in jobs:
        per_thread[names.get(j["tid"])] = per_thread.get(names.get(j["tid"]), 0) + 1
    assert per_thread == {"worker 0": 100, "worker 1": 100, "worker 2": 100, "worker 3": 100}
    summary = tmp_path / "summary.txt"
    run_inprocess("workers", summary)
    text = summary.read_text()
    assert "job queue" in text and "scratch" in text and "worker 3" in text


def start_client(program, port, **env):
    env = dict(os.environ, TRACY_PORT=str(port), TRACY_NO_EXIT="1", **env)
    return subprocess.Popen([program], env=env, stdout=subprocess.PIPE, text=True)


def test_capture_tool_records_an_example(tmp_path):
    port = free_port()
    client = start_client(example("game_loop"), port)
    out = tmp_path / "live.csv"
    capture = subprocess.run([CAPTURE, "-p", str(port), "-o", str(out)], capture_output=True, text=True, timeout=60)
    client.wait(timeout=60)
    assert capture.returncode == 0, capture.stdout + capture.stderr
    assert [int(csv_rows(out)[n]["counts"]) for n in ("update", "render", "physics")] == [60, 60, 30]


def endless_client(port):
    client = start_client(os.path.join(BUILD, "tests", "e2e", "endless"), port)
    ready = client.stdout.readline().strip()
    if ready != "ready":  # it never ends by itself
        client.kill()
        client.wait()
    assert ready == "ready"
    return client


def until_recording(capture):
    """What the capture says on stderr until it says it records (or ends). A program is
    connected once it has sent its welcome, the capture records once it has read it: a SIGINT
    between the two is a stop before any client."""
    said = ""
    for line in iter(capture.stderr.readline, ""):
        said += line
        if "recording" in line:
            break
    return said


def test_capture_says_which_program_it_records(tmp_path):
    port = free_port()
    client = start_client(example("game_loop"), port)
    capture = subprocess.run([CAPTURE, "-p", str(port), "-o", str(tmp_path / "live.csv")], capture_output=True,
                             text=True, timeout=60)
    client.wait(timeout=60)
    assert capture.returncode == 0, capture.stdout + capture.stderr
    said = "tracyc-capture: recording example_game_loop (pid %d) at 127.0.0.1 port %d" % (client.pid, port)
    assert said in capture.stderr, capture.stderr


def orphan_endless(port):
    """endless on port, started so that its parent is not ours (a program of another shell,
    as the one that held the port in issue 22 was): (its pid, its stdout)."""
    sh = subprocess.Popen(["/bin/sh", "-c", '"$0" & echo $!', os.path.join(BUILD, "tests", "e2e", "endless")],
                          env=dict(os.environ, TRACY_PORT=str(port)), stdout=subprocess.PIPE, text=True)
    lines = [sh.stdout.readline().strip(), sh.stdout.readline().strip()]  # its pid and "ready", in either order
    sh.wait()
    assert "ready" in lines, lines
    lines.remove("ready")
    return int(lines[0]), sh.stdout


def free_port_pair():
    """A port P with P + 1 free too."""
    while True:
        port = free_port()
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue


def test_program_that_moved_to_the_next_port(tmp_path):
    """`./app & tracyc-capture` while another program holds port P: app took P + 1 (here by
    TRACY_PORT: a client moves by itself only from the default 8086, which a test must not
    take). tracyc-capture says whom it records and warns that app is elsewhere; --pid records
    app."""
    port = free_port_pair()
    other, other_out = orphan_endless(port)
    app = None
    try:
        app = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "endless")],
                               env=dict(os.environ, TRACY_PORT=str(port + 1)), stdout=subprocess.PIPE, text=True)
        assert app.stdout.readline().strip() == "ready"  # listening
        capture = subprocess.Popen([CAPTURE, "-p", str(port), "-s", "60", "-o", str(tmp_path / "other.txt")],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = [capture.stderr.readline(), capture.stderr.readline()]
        capture.send_signal(signal.SIGINT)
        capture.communicate(timeout=60)
        assert "recording endless (pid %d) at 127.0.0.1 port %d" % (other, port) in said[0], said
        assert "warning: endless (pid %d), started beside tracyc-capture, listens on port %d" % (app.pid, port + 1) \
            in said[1], said
        assert "--pid %d" % app.pid in said[1], said

        out = tmp_path / "app.json"
        capture = subprocess.Popen([CAPTURE, "-p", str(port), "--pid", str(app.pid), "-o", str(out)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert app.stdout.readline().strip() == "connected"
        said = until_recording(capture)
        capture.send_signal(signal.SIGINT)
        _, stderr = capture.communicate(timeout=60)
        assert capture.returncode == 1, said + stderr
        assert "recording endless (pid %d) at 127.0.0.1 port %d" % (app.pid, port + 1) in said, said + stderr
        with open(out) as f:
            assert json.load(f)["otherData"]["pid"] == app.pid
    finally:
        os.kill(other, signal.SIGKILL)
        other_out.close()
        if app:
            app.kill()
            app.wait()


def test_pid_that_never_listens(tmp_path):
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        result = subprocess.run([CAPTURE, "--pid", str(sleeper.pid), "-s", "0.5", "-o", str(tmp_path / "x.json")],
                                capture_output=True, text=True, timeout=120)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert result.returncode == 2
    assert "process %d did not listen on ports 8086-8105 within the time limit of 0.5 s" % sleeper.pid in \
        result.stderr, result.stderr
    result = subprocess.run([CAPTURE, "--pid", str(sleeper.pid), "-o", str(tmp_path / "x.json")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "no process %d" % sleeper.pid in result.stderr, result.stderr


def test_pid_read_again_once_the_program_runs(tmp_path):
    """`TRACY_PORT=P ./app & tracyc-capture --pid $!`: $! may still be the shell that is about
    to exec app, whose environment lacks TRACY_PORT (or, during the exec, cannot be read).
    The port is read again while waiting, so the one app was given is found."""
    port = free_port()
    go = tmp_path / "go"
    env = {k: v for k, v in os.environ.items() if k != "TRACY_PORT"}
    shell = subprocess.Popen(["bash", "-c", 'while [ ! -e "$1" ]; do sleep 0.01; done; export TRACY_PORT=%d; '
                              'exec "$2"' % port, "-", str(go), os.path.join(BUILD, "tests", "e2e", "endless")],
                             env=env, stdout=subprocess.PIPE, text=True)
    out = tmp_path / "app.json"
    capture = subprocess.Popen([CAPTURE, "--pid", str(shell.pid), "-s", "120", "-o", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Its first look is over once it sleeps between looks (its only sleep).
        while "nanosleep" not in open("/proc/%d/wchan" % capture.pid).read():
            assert capture.poll() is None, capture.communicate()
            time.sleep(0.01)
        go.touch()
        assert shell.stdout.readline().strip() == "ready"
        while not select.select([shell.stdout], [], [], 0.1)[0]:
            assert capture.poll() is None, capture.communicate()  # it gave up: never found the port
        assert shell.stdout.readline().strip() == "connected"
        said = until_recording(capture)
        capture.send_signal(signal.SIGINT)
        _, stderr = capture.communicate(timeout=120)
        assert "recording endless (pid %d) at 127.0.0.1 port %d" % (shell.pid, port) in said, said + stderr
        with open(out) as f:
            assert json.load(f)["otherData"]["pid"] == shell.pid
    finally:
        capture.kill()
        capture.wait()
        shell.kill()
        shell.wait()


def test_program_whose_port_is_taken_says_so(tmp_path):
    """TRACY_PORT names a port another program holds: the client cannot listen, and says so
    on stderr (a program given a port by name does not move to the next one)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        app = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "endless")],
                               env=dict(os.environ, TRACY_PORT=str(port)), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            assert app.stdout.readline().strip() == "ready"
        finally:
            app.kill()
            _, stderr = app.communicate()
        assert "tracyc: cannot listen on port %d (Address already in use): no server can connect" % port in stderr, \
            stderr
        # A program that profiles itself (TRACYC_OUTPUT) does not need a server: nothing said.
        app = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "endless")],
                               env=dict(os.environ, TRACY_PORT=str(port), TRACYC_OUTPUT=str(tmp_path / "own.json")),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert app.stdout.readline().strip() == "ready"
        finally:
            app.kill()
            _, stderr = app.communicate()
        assert "cannot listen" not in stderr, stderr


def test_ctrl_c_stops_cleanly_and_writes_everything(tmp_path):
    port = free_port()
    client = endless_client(port)
    out = tmp_path / "stopped.json"
    try:
        with capture_on_terminal([CAPTURE, "-p", str(port), "-o", str(out)], stdout=subprocess.PIPE,
                                 text=True) as (capture, status):
            assert status.wait_for_zones(50), status.text
            capture.send_signal(signal.SIGINT)
            output, _ = capture.communicate(timeout=30)
    finally:
        client.kill()
        client.wait()
    assert capture.returncode == 1, output + status.text.decode(errors="replace")
    zones = [e for e in load_trace(out) if e.get("ph") == "X" and e["name"] == "endless work"]
    assert len(zones) >= 50


def test_client_killed_mid_stream(tmp_path):
    port = free_port()
    client = endless_client(port)
    out = tmp_path / "killed.txt"
    try:
        with capture_on_terminal([CAPTURE, "-p", str(port), "-o", str(out)], stdout=subprocess.PIPE,
                                 text=True) as (capture, status):
            assert status.wait_for_zones(50), status.text
            client.kill()
            client.wait()
            output, _ = capture.communicate(timeout=30)
    finally:
        client.kill()
        client.wait()
    assert capture.returncode == 1, output + status.text.decode(errors="replace")
    text = out.read_text()
    # What came is kept; the names the client did not live to send may be missing.
    zones = re.search(r"Captured [0-9.]+ [mun]?s: ([0-9,]+) zones", text)
    assert zones and int(zones.group(1).replace(",", "")) >= 50, text
    assert "incomplete" in text.lower(), text


def test_protocol_mismatch_tries_every_version(tmp_path):
    """A client of another release refuses each hello and waits for the next connection,
    as upstream's does: the capture offers 82, 76, 74, 69, 66, 64, then says none fits."""
    offered = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        capture = subprocess.Popen([CAPTURE, "-p", str(port), "-o", str(tmp_path / "x.json")],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        listener.settimeout(30)
        for _ in range(6):
            conn, _ = listener.accept()
            with conn:
                hello = conn.recv(12)
                assert hello[:8] == b"TracyPrf"
                offered.append(int.from_bytes(hello[8:12], "little"))
                conn.sendall(b"\x02")  # ProtocolMismatch
        output, _ = capture.communicate(timeout=30)
    assert offered == [82, 76, 74, 69, 66, 64]
    assert capture.returncode == 2
    assert "none of the protocol versions" in output and "0.10 to 0.14.0" in output


def test_client_of_an_older_release(tmp_path):
    """The capture settles on the version the client accepts and says which."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        out = tmp_path / "x.json"
        capture = subprocess.Popen([CAPTURE, "-p", str(port), "-o", str(out)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        listener.settimeout(30)
        while True:
            conn, _ = listener.accept()
            hello = conn.recv(12)
            if hello[8] == 76:
                break
            conn.sendall(b"\x02")
            conn.close()
        with conn:
            welcome = bytearray(1170)
            welcome[0:8] = struct.pack("<d", 1.0)
            conn.sendall(b"\x01" + bytes(welcome))
            conn.sendall(struct.pack("<I", 2) + bytes([0x10, 60]))  # one LZ4 frame: Terminate (60 in 76)
            conn.recv(13)  # the capture's Terminate query
        output, _ = capture.communicate(timeout=30)
    assert capture.returncode == 0, output
    assert "client: protocol 76 (Tracy 0.13.0-0.13.1)" in output


def test_time_limit_bounds_the_wait_for_a_client(tmp_path):
    # Nothing listens on the port: -s ends the wait, says so, and writes nothing.
    out = tmp_path / "nothing.json"
    result = subprocess.run([CAPTURE, "-p", str(free_port()), "-s", "0.5", "-o", str(out)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "no client connected" in result.stderr and "within the time limit of 0.5 s" in result.stderr, result.stderr
    assert not out.exists()


def test_unwritable_output_fails_before_capturing(tmp_path):
    result = subprocess.run([CAPTURE, "-p", str(free_port()), "-o", str(tmp_path / "missing" / "x.json")],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 2 and "x.json" in result.stderr + result.stdout


def test_existing_output_needs_f(tmp_path):
    out = tmp_path / "exists.json"
    out.write_text("keep me")
    result = subprocess.run([CAPTURE, "-p", str(free_port()), "-o", str(out)], capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 2 and out.read_text() == "keep me"


def test_tracy_output_is_refused_with_directions(tmp_path):
    # A .tracy file is the Tracy GUI's format: tracyc cannot write it and says where to get one.
    out = tmp_path / "x.tracy"
    result = subprocess.run([CAPTURE, "-p", str(free_port()), "-o", str(out)], capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 2 and not out.exists()
    assert "tracy-capture" in result.stderr and ".json" in result.stderr
    result = subprocess.run([CAPTURE, "-p", str(free_port()), "-o", str(tmp_path / "x.html")], capture_output=True,
                            text=True, timeout=10)
    assert result.returncode == 2 and "'.html'" in result.stderr


def test_in_process_output_name_decides_the_format_or_is_refused(tmp_path):
    run_inprocess("game_loop", tmp_path / "summary.txt")
    assert "update" in (tmp_path / "summary.txt").read_text()
    run_inprocess("game_loop", tmp_path / "summary")  # no extension: the summary too
    assert "update" in (tmp_path / "summary").read_text()
    env = dict(os.environ, TRACYC_OUTPUT=str(tmp_path / "trace.tracy"))
    result = subprocess.run([example("game_loop")], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0  # the program itself is not disturbed
    assert "trace.tracy" in result.stderr and "tracy-capture" in result.stderr
    assert not (tmp_path / "trace.tracy").exists()


def test_unwritable_in_process_output_is_said_at_start_and_keeps_the_exit_status(tmp_path):
    # /proc takes no new file, not even from root (whom access() lets through).
    unwritable = "/proc/tracyc-%d.txt" % os.getpid()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACY_", "TRACYC_"))}
    env.update(TRACYC_OUTPUT=unwritable, TRACY_PORT=str(free_port()))
    # Said before the program's first call returns: by the time endless prints "ready"
    # (after its first frame). Killed then, it never reaches exit.
    client = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "endless")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert client.stdout.readline().strip() == "ready"
    finally:
        client.kill()
        _, stderr = client.communicate()
    assert unwritable in stderr and "in-process capture disabled" in stderr, stderr
    # A program that exits with 0 still does, and hears of it once.
    result = subprocess.run([example("game_loop")], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(unwritable) == 1, result.stderr


# ---- callstacks, samples and context switches: a recorded upstream client, replayed ----

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "c", "fixtures", "streams", "upstream_callstacks.stream")
# Perfetto's pattern for a line of ftrace text (src/trace_processor/importers/systrace/systrace_line_tokenizer.cc).
FTRACE_LINE = re.compile(r"-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):")


def replay_upstream(tmp_path, output):
    """tracyc-capture recording a fake client that sends what upstream Tracy's client sent
    (tests/c/fixtures/streams/upstream_callstacks.stream, which holds the answers to every query the
    capture asks, in its order)."""
    stream = open(FIXTURE, "rb").read()
    out = tmp_path / output
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        capture = subprocess.Popen([CAPTURE, "-p", str(listener.getsockname()[1]), "-o", str(out)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        conn, _ = listener.accept()
        with conn:
            assert conn.recv(12)[:8] == b"TracyPrf"
            conn.sendall(stream)
            while conn.recv(65536):  # the capture's queries, then its Terminate and close
                pass
        output_text, _ = capture.communicate(timeout=60)
    assert capture.returncode == 0, output_text
    assert "Capture complete" in output_text and "76 CPU samples" in output_text
    return out


def test_upstream_samples_as_folded_stacks(tmp_path):
    lines = replay_upstream(tmp_path, "profile.folded").read_text().splitlines()
    counts = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in lines}
    assert counts["Main thread;__libc_start_call_main;main;outer_work;hot_loop"] == 27
    assert sum(counts.values()) == 76


def test_upstream_samples_as_svg_flame_graph(tmp_path):
    import xml.etree.ElementTree as ET
    root = ET.parse(replay_upstream(tmp_path, "flame.svg")).getroot()
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "all (76 samples, 100.00%)" in titles and "hot_loop (27 samples, 35.53%)" in titles


def test_upstream_json_in_the_forms_perfetto_reads(tmp_path):
    doc = json.load(open(replay_upstream(tmp_path, "trace.json")))
    events = doc["traceEvents"]
    # Samples: V8 CPU profile events, as Perfetto's legacy_v8_cpu_profile_tracker wants them:
    # a Profile first, every node's parent and every sample's node defined before use,
    # integer deltas, one per sample.
    profiles, samples = {}, 0
    for e in (e for e in events if e["ph"] == "P"):
        key = (e["id"], e["pid"])
        data = e["args"]["data"]
        if e["name"] == "Profile":
            assert isinstance(data["startTime"], int) and key not in profiles
            profiles[key] = set()
            continue
        nodes = profiles[key]
        for node in data["cpuProfile"]["nodes"]:
            assert node["id"] not in nodes and ("parent" not in node or node["parent"] in nodes)
            assert node["callFrame"]["functionName"]
            nodes.add(node["id"])
        assert all(s in nodes for s in data["cpuProfile"]["samples"])
        assert len(data["timeDeltas"]) == len(data["cpuProfile"]["samples"])
        assert all(isinstance(d, int) for d in data["timeDeltas"])
        samples += len(data["timeDeltas"])
    assert len(profiles) == 3 and samples == 76
    # Context switches: ftrace lines Perfetto's tokenizer accepts, sched_switch with every
    # argument its parser needs.
    lines = doc["systemTraceEvents"].split("\n")
    assert lines[0] == "# tracer: nop"
    switches = 0
    for line in filter(None, lines[1:]):
        m = FTRACE_LINE.search(line)
        assert m and m.group(6) in ("sched_switch", "sched_waking"), line
        args = dict(kv.split("=", 1) for kv in line[m.end():].split() if "=" in kv)
        if m.group(6) == "sched_switch":
            switches += 1
            assert {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"} <= set(args)
        else:
            assert {"comm", "pid"} <= set(args)
    assert switches == 248
    # Zone callstacks: the standard stackFrames + sf (for chrome://tracing).
    frames = doc["stackFrames"]
    outer = next(e for e in events if e["ph"] == "X" and e["name"] == "outer_work" and "sf" in e)
    chain, sf = [], str(outer["sf"])
    while sf:
        chain.append(frames[sf]["name"].split(" ")[0])
        sf = frames[sf].get("parent")
    at = chain.index("outer_work")  # innermost first: Tracy's own frames, then the program's
    assert chain[at + 1] == "main" and "___tracy_emit_zone_begin_callstack" in chain[:at]


def test_upstream_summary_top_functions(tmp_path):
    text = replay_upstream(tmp_path, "summary.txt").read_text()
    assert "Sampling: 76 CPU samples on 3 threads" in text
    top = text.split(" functions by self samples")[1].splitlines()[2]
    assert top.split()[:5] == ["27", "35.5%", "27", "35.5%", "hot_loop"]
    assert "CPU per thread" in text
