"""End to end: tracyc-capture recording several processes into one trace (issue 19): clients
that dial out to --listen, clients listening at several -a addresses, clients found by --all
on a range of ports, --expect ending the capture, a client vanishing, two with one pid, an
upstream client among them, hostile ones; each checked through the outputs (the JSON's
processes, the summary's Processes table, the CSV summed and --per-process, the folded
stacks prefixed with the process).

The clients are fakes that send streams recorded from real programs
(tests/c/fixtures/streams: each holds the client's answers to every query the capture asks,
in the order it asks them) or from upstream's own client. Everything listens on loopback
ports the kernel picks; every process started is stopped by its pid. Run by ctest with
TRACYC_BUILD_DIR set."""
import csv
import json
import os
import re
import socket
import subprocess
import threading

import pytest

BUILD = os.environ.get("TRACYC_BUILD_DIR", "build/test")
CAPTURE = os.path.join(BUILD, "tools", "tracyc-capture")
HERE = os.path.dirname(os.path.abspath(__file__))
STREAMS = os.path.join(HERE, "..", "c", "fixtures", "streams")
VERSIONS = (82, 76, 74, 69, 66, 64)
TIMEOUT = 120


def recorded(name):
    """A recorded client stream: (its protocol, its bytes after the hello)."""
    data = open(os.path.join(STREAMS, name + ".stream"), "rb").read()
    return (data[0], data[1:]) if data[0] in VERSIONS else (82, data)


def read_hello(conn):
    hello = b""
    while len(hello) < 12:
        more = conn.recv(12 - len(hello))
        if not more:
            return None
        hello += more
    assert hello[:8] == b"TracyPrf", hello
    return int.from_bytes(hello[8:], "little")


def drain(conn):
    """The capture's queries, until its Terminate and close."""
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass


class DialOut(threading.Thread):
    """A client that dials out to the capture's --listen port, as TRACYC_CONNECT makes a tracyc
    client do: it waits for the capture's hello, then sends its recorded stream (all of it, or
    the first `cut` bytes and then vanishes, or `data` instead)."""

    def __init__(self, port, stream=None, cut=None, data=None):
        super().__init__(daemon=True)
        self.port, self.cut = port, cut
        self.data = data if data is not None else recorded(stream)[1]
        self.offered = None

    def run(self):
        with socket.create_connection(("127.0.0.1", self.port)) as conn:
            self.offered = read_hello(conn)
            conn.sendall(self.data[:self.cut] if self.cut else self.data)
            if self.cut:
                return  # gone without a goodbye
            drain(conn)


class Listening(threading.Thread):
    """A client listening for the capture, as upstream's and tracyc's do by default: it refuses
    a hello of another protocol than its own (the capture then offers the next), then sends its
    recorded stream."""

    def __init__(self, stream, port=0):
        super().__init__(daemon=True)
        self.protocol, self.data = recorded(stream)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(4)
        self.listener.settimeout(TIMEOUT)
        self.port = self.listener.getsockname()[1]
        self.refused = []
        self.start()

    def run(self):
        with self.listener:
            while True:
                conn, _ = self.listener.accept()
                with conn:
                    offered = read_hello(conn)
                    if offered != self.protocol:
                        self.refused.append(offered)
                        conn.sendall(b"\x02")  # ProtocolMismatch: the capture tries the next version
                        continue
                    conn.sendall(self.data)
                    drain(conn)
                    return


def start_capture(tmp_path, *args):
    """tracyc-capture --listen on a free port: (the process, its port)."""
    capture = subprocess.Popen([CAPTURE, "--listen", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    line = capture.stderr.readline()
    assert "listening on 127.0.0.1 port" in line, line
    return capture, int(line.split(" port ")[1].split()[0])


def wait_recording(capture, program):
    """Until tracyc-capture says it records the program (clients then come in a known order)."""
    said = []
    while True:
        line = capture.stderr.readline()
        assert line, "capture ended first: " + "".join(said)
        said.append(line)
        if "recording " + program in line:
            return "".join(said)


def finish(capture, *clients):
    out, err = capture.communicate(timeout=TIMEOUT)
    for c in clients:
        c.join(TIMEOUT)
    return out, err


def processes_of(path):
    """The JSON's processes: {pid: name} from its process_name metadata."""
    events = json.load(open(path))["traceEvents"]
    return {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}


def zones_by_pid(path):
    counts = {}
    for e in json.load(open(path))["traceEvents"]:
        if e.get("ph") == "X":
            counts[e["pid"]] = counts.get(e["pid"], 0) + 1
    return counts


def process_rows(summary):
    """The summary's Processes table: {process: [threads, zones, samples, messages, clock, capture]}."""
    lines = summary.split("\nProcesses\n")[1].split("\n\n")[0].splitlines()[1:]
    # "  %-32s %8s %12s %12s %10s %12s  %s" (export_summary.c), read by fields; a replayed
    # stream's clock error grows with the days since its recording ("> 1000 s")
    row = re.compile(r"  (.{32}) +(\d+) +([\d,]+) +([\d,]+) +([\d,]+) +(exact|unknown|\+-\S+ \S+|> 1000 s)  (.+)")
    return {m[1].strip(): list(m.groups()[1:]) for m in map(row.fullmatch, lines)}


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_dial_out_clients_into_one_capture(tmp_path):
    """Three programs dial out to one --listen capture; --expect 3 ends it once all three
    have finished; every output holds every process."""
    out = [tmp_path / n for n in ("trace.json", "summary.txt", "stats.csv", "profile.folded")]
    capture, port = start_capture(tmp_path, "--expect", "3", *sum((["-o", str(o)] for o in out), []))
    clients = []
    for stream, program in (("game_loop", "example_game_loop"), ("workers", "example_workers"),
                            ("py_pipeline", "pipeline.py")):
        clients.append(DialOut(port, stream))
        clients[-1].start()
        wait_recording(capture, program)
    stdout, stderr = finish(capture, *clients)
    assert capture.returncode == 0, stdout + stderr
    assert [c.offered for c in clients] == [82, 82, 82]
    assert "Capture complete: 3 processes, 3,570 zones on 12 threads, 11 messages" in stdout, stdout
    assert "example_game_loop[695]: protocol 82 (Tracy 0.14.0), 150 zones, clock exact, complete" in stdout
    # JSON: a process each, named program[pid], with its own zones
    json_path, summary_path, csv_path, folded_path = out
    assert processes_of(json_path) == {695: "example_game_loop[695]", 1045: "example_workers[1045]",
                                       13480: "pipeline.py[13480]"}
    assert zones_by_pid(json_path) == {695: 150, 1045: 400, 13480: 3020}
    # the summary: every process, in the order they came, each complete
    summary = summary_path.read_text()
    assert summary.startswith("tracyc capture of 3 processes: example_game_loop[695], example_workers[1045], "
                              "pipeline.py[13480]\n")
    rows = process_rows(summary)
    assert {p: (r[0], r[1], r[5]) for p, r in rows.items()} == {
        "example_game_loop[695]": ("1", "150", "complete"), "example_workers[1045]": ("4", "400", "complete"),
        "pipeline.py[13480]": ("7", "3,020", "complete")}
    assert rows["example_game_loop[695]"][4] == "exact"  # the first gives the trace its clock
    # a recording replayed is no client of this host now, even on the boot it was recorded on
    assert rows["pipeline.py[13480]"][4] == "unknown"
    # CSV: csvexport's columns, a row per zone
    counts = {r["name"]: int(r["counts"]) for r in csv_rows(csv_path)}
    assert counts["job"] == 400 and counts["update"] == 60 and counts["parse record"] == 600
    # folded stacks start with the process
    lines = folded_path.read_text().splitlines()
    assert len(lines) == 10 and all(line.startswith("pipeline.py[13480];") for line in lines)


def test_same_pid_twice_stays_apart_and_csv_sums_or_splits(tmp_path):
    """Two clients with one pid (two containers running the same program) are two
    processes; the CSV sums their rows, or with --per-process gives each its own."""
    for per_process in (False, True):
        out = tmp_path / ("per.csv" if per_process else "sum.csv")
        json_out = tmp_path / ("per.json" if per_process else "sum.json")
        capture, port = start_capture(tmp_path, "--expect", "2", "-o", str(out), "-o", str(json_out),
                                      *(["--per-process"] if per_process else []))
        clients = [DialOut(port, "game_loop"), DialOut(port, "game_loop")]
        for c in clients:
            c.start()
        stdout, stderr = finish(capture, *clients)
        assert capture.returncode == 0, stdout + stderr
        rows = [r for r in csv_rows(out) if r["name"] == "update"]
        if per_process:
            assert [(r["counts"], r["process"]) for r in rows] == [("60", "example_game_loop[695]")] * 2
        else:
            assert [r["counts"] for r in rows] == ["120"] and "process" not in rows[0]
        # JSON: the second pid 695 given a pid of its own, named by the real one
        assert processes_of(json_out) == {695: "example_game_loop[695]", 0x80000001: "example_game_loop[695]"}
        assert zones_by_pid(json_out) == {695: 150, 0x80000001: 150}


def test_client_vanishing_mid_stream_loses_only_its_own(tmp_path):
    """One client goes away in the middle of its stream: the others are recorded whole, the
    summary and the exit status (1) say which process was cut."""
    summary = tmp_path / "summary.txt"
    capture, port = start_capture(tmp_path, "--expect", "3", "-o", str(summary))
    whole = DialOut(port, "game_loop")
    whole.start()
    wait_recording(capture, "example_game_loop")
    data = recorded("workers")[1]
    first_frame = 1 + 1170 + 4 + int.from_bytes(data[1171:1175], "little")  # most of its events
    cut = DialOut(port, "workers", cut=first_frame + 10)  # then gone in the middle of the next
    cut.start()
    wait_recording(capture, "example_workers")
    last = DialOut(port, "py_pipeline")
    last.start()
    stdout, stderr = finish(capture, whole, cut, last)
    assert capture.returncode == 1, stdout + stderr
    assert "the capture of example_workers[1045] is incomplete" in stderr, stderr
    assert "Capture incomplete: 3 processes" in stdout, stdout
    rows = process_rows(summary.read_text())
    assert rows["example_game_loop[695]"][1] == "150" and rows["example_game_loop[695]"][5] == "complete"
    assert rows["pipeline.py[13480]"][1] == "3,020" and rows["pipeline.py[13480]"][5] == "complete"
    # (the close may come as a reset: the queries it never read were still in its socket)
    assert "connection closed in the middle of LZ4 frame 1" in rows["example_workers[1045]"][5], rows
    assert 0 < int(rows["example_workers[1045]"][1]) < 400  # what came before it vanished is kept


def test_hostile_clients_fail_alone(tmp_path):
    """A connection that answers the hello with garbage is no client: said, and forgotten. A
    client whose welcome is good and whose frames are garbage fails alone: the others are
    whole, and the exit status (1) names it."""
    summary = tmp_path / "summary.txt"
    capture, port = start_capture(tmp_path, "--expect", "3", "-o", str(summary))
    good = DialOut(port, "game_loop")
    good.start()
    wait_recording(capture, "example_game_loop")
    garbage = DialOut(port, data=b"\x07garbage after the hello" * 50)
    garbage.start()
    garbage.join(TIMEOUT)
    welcome = recorded("workers")[1][:1 + 1170]  # the status byte and a good welcome
    bad_frames = DialOut(port, data=welcome + b"\xff\xff\xff\x7f" + os.urandom(4096))
    bad_frames.start()
    said = wait_recording(capture, "example_workers")
    more = [DialOut(port, "py_pipeline")]
    more[0].start()
    stdout, stderr = finish(capture, good, bad_frames, *more)
    assert capture.returncode == 1, stdout + stderr
    assert "a connection from 127.0.0.1 port" in said and "invalid handshake status 7" in said, said
    assert "the capture of example_workers[1045] is incomplete" in stderr, stderr
    rows = process_rows(summary.read_text())
    assert set(rows) == {"example_game_loop[695]", "example_workers[1045]", "pipeline.py[13480]"}
    assert rows["example_game_loop[695]"][1] == "150" and rows["pipeline.py[13480]"][1] == "3,020"
    assert rows["example_workers[1045]"][1] == "0" and rows["example_workers[1045]"][5] != "complete"


def test_several_addresses_and_an_upstream_client_among_them(tmp_path):
    """-a twice: two listening clients, one of them upstream Tracy 0.13's own (protocol 76,
    found by offering each version), and a tracyc client dialling out to --listen too: one
    trace of three processes."""
    tracyc = Listening("all_events")
    upstream = Listening("upstream_76")
    out = tmp_path / "trace.json"
    capture, port = start_capture(tmp_path, "-a", "127.0.0.1:%d" % tracyc.port, "-a", "127.0.0.1:%d" % upstream.port,
                                  "--expect", "3", "-o", str(out), "-o", str(tmp_path / "summary.txt"))
    dial = DialOut(port, "workers")
    dial.start()
    stdout, stderr = finish(capture, tracyc, upstream, dial)
    assert capture.returncode == 0, stdout + stderr
    assert upstream.refused == [82] and tracyc.refused == []
    assert "protocol 76 (Tracy 0.13.0-0.13.1)" in stdout, stdout
    names = sorted(processes_of(out).values())
    assert len(names) == 3 and "example_workers[1045]" in names, names
    rows = process_rows((tmp_path / "summary.txt").read_text())
    assert all(r[5] == "complete" for r in rows.values()), rows


def test_targets_alone_end_when_each_has_finished(tmp_path):
    """-a twice without --listen or --expect: the capture ends once both clients have."""
    a, b = Listening("game_loop"), Listening("workers")
    out = tmp_path / "trace.json"
    result = subprocess.run([CAPTURE, "-a", "127.0.0.1:%d" % a.port, "-a", "127.0.0.1:%d" % b.port, "-o", str(out)],
                            capture_output=True, text=True, timeout=TIMEOUT)
    a.join(TIMEOUT)
    b.join(TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert zones_by_pid(out) == {695: 150, 1045: 400}


def free_range(count):
    """count consecutive free loopback ports (never 8086-8105, which real clients may hold)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = s.getsockname()[1]
        if first + count > 65535 or (first <= 8105 and first + count > 8086):
            continue
        held = []
        try:
            for p in range(first, first + count):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", p))
            return first
        except OSError:
            continue
        finally:
            for s in held:
                s.close()


def test_all_finds_clients_on_the_ports_they_take(tmp_path):
    """--all (with --ports: a range of free ports instead of 8086-8105, which tests leave to
    real programs) records the clients that appear there while it runs: one there before it
    starts, one that comes later."""
    first = free_range(6)
    early = Listening("game_loop", first + 1)
    out = tmp_path / "trace.json"
    capture = subprocess.Popen([CAPTURE, "--all", "--ports", "%d-%d" % (first, first + 5), "--expect", "2", "-o",
                                str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_recording(capture, "example_game_loop")
    late = Listening("workers", first + 4)
    stdout, stderr = finish(capture, early, late)
    assert capture.returncode == 0, stdout + stderr
    assert zones_by_pid(out) == {695: 150, 1045: 400}
    assert "at 127.0.0.1 port %d" % (first + 4) in stderr, stderr


def test_listen_without_clients_ends_with_the_time_limit(tmp_path):
    out = tmp_path / "nothing.json"
    capture, _ = start_capture(tmp_path, "-s", "0.5", "-o", str(out))
    stdout, stderr = finish(capture)
    assert capture.returncode == 2 and "no client connected within the time limit of 0.5 s" in stderr, stderr
    assert not out.exists()


@pytest.mark.parametrize("args, said", [
    (["--ports", "9000-9010"], "give --all too"),
    (["--all", "--ports", "9010-9000"], "not FIRST-LAST"),
    (["--listen", "x:y"], "not [ADDRESS:]PORT"),
    (["--expect", "0"], "not a positive number"),
    (["--pid", "1", "--listen", "0"], "--pid records one process"),
])
def test_bad_arguments(tmp_path, args, said):
    result = subprocess.run([CAPTURE, *args, "-o", str(tmp_path / "x.json")], capture_output=True, text=True,
                            timeout=TIMEOUT)
    assert result.returncode == 2 and said in result.stderr, result.stderr


QUERY_SIZE = 13  # TCW_QUERY_SIZE (core/wire/protocol.h): every query the capture sends
CLOCK_PROBE = 129  # TCW_QUERY_TRACYC_CLOCK_PROBE, its wire type on protocol 82


def frames(data, welcome=1170):
    """A recorded stream of protocol 82 split for sending: its handshake byte and welcome, then
    each LZ4 frame whole (a u32 little-endian compressed size, then that many bytes)."""
    at = 1 + welcome
    parts = [data[:at]]
    while at < len(data):
        end = at + 4 + int.from_bytes(data[at:at + 4], "little")
        assert end <= len(data), "a frame past the stream's end"
        parts.append(data[at:end])
        at = end
    return parts


class SilentToProbes(DialOut):
    """A client that dials out and sends its recorded stream frame by frame, reading the
    capture's queries between them, until the capture has sent a clock probe (the recording
    was never asked one, so the stream holds no answer to it); the last frame, which holds its
    Terminate, goes only once the probe has come. The probe is never answered."""

    def __init__(self, port, stream):
        super().__init__(port, stream)
        self.probed_after = None  # frames sent when the probe was seen
        self.failed = None

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port)) as conn:
                self.offered = read_hello(conn)
                parts = frames(self.data)
                queries = b""

                def probed(wait):
                    nonlocal queries
                    conn.settimeout(wait)
                    try:
                        while True:
                            more = conn.recv(65536)
                            if not more:
                                return False
                            queries += more
                            types = queries[::QUERY_SIZE][:len(queries) // QUERY_SIZE]
                            if CLOCK_PROBE in types:
                                return True
                    except socket.timeout:
                        return False

                sent = 0
                for part in parts[:-1]:
                    conn.sendall(part)
                    sent += 1
                    if probed(0.05):
                        break
                else:  # all but the Terminate's frame sent: the probe must come now
                    if not probed(TIMEOUT / 4):
                        self.failed = "no clock probe came before the Terminate's frame"
                        return
                self.probed_after = sent
                conn.settimeout(None)
                for part in parts[sent:]:
                    conn.sendall(part)
                drain(conn)
        except Exception as e:  # said by the test, not lost in the thread
            self.failed = repr(e)


def test_client_never_answering_its_clock_probe_still_ends(tmp_path):
    """A client on another host (a replayed recording's readings are of another boot, or hours
    old) is asked a clock probe once its first TracycClock reading has come; a client that never
    answers it and then terminates is still complete, and the capture ends by itself. The
    probe is made sure of here: the client sends its stream up to the probe, then the rest."""
    summary = tmp_path / "summary.txt"
    capture, port = start_capture(tmp_path, "--expect", "1", "-o", str(summary))
    client = SilentToProbes(port, "py_pipeline")
    client.start()
    try:
        stdout, stderr = finish(capture, client)
    except subprocess.TimeoutExpired:
        capture.kill()
        capture.communicate()
        raise
    assert client.failed is None, client.failed
    assert client.probed_after is not None
    assert capture.returncode == 0, stdout + stderr
    # (one process: the summary has no Processes table; stdout's line says it is complete)
    assert "Capture complete: 1 processes, 3,020 zones on 7 threads" in stdout, stdout
    assert re.search(r"^  pipeline\.py\[13480\]: protocol 82 \(Tracy 0\.14\.0\), 3,020 zones, .*, complete$",
                     stdout, re.M), stdout
    assert "Captured 59.77 ms: 3,020 zones on 7 threads" in summary.read_text()
