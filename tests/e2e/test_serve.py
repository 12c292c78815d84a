"""End to end: tracyc-capture --serve shows every process it records to one Tracy server as a
single client (issue 19 item 4). The server is tracyc-capture itself (-a to the proxy's port,
any protocol version); upstream's tracy-capture 0.14.0 when UPSTREAM_TRACY_CAPTURE and
UPSTREAM_TRACY_DUMP are set, and every release's (0.10 to 0.14.0) under UPSTREAM_TRACY_ROOT,
each .tracy file read back by the release's tracy-dump.

The proxy's own outputs (-o) are the reference: every process's threads, zones, messages,
plots, memory and samples there must reach the server, under names "program[pid] ...". The
clients are fakes sending streams recorded from real programs (tests/e2e/test_collect.py's
DialOut and Listening, one recorded from upstream's client) and real tracyc programs. Each
process is started only once the one before it is being recorded, so every one but the first
arrives while the server already shows the others. Everything is on loopback ports the kernel
picks; every process started is stopped by its pid. Run by ctest with TRACYC_BUILD_DIR set."""
import collections
import json
import os
import re
import socket
import subprocess

import pytest

from test_collect import CAPTURE, DialOut, Listening, csv_rows, read_hello, recorded, wait_recording

BUILD = os.environ.get("TRACYC_BUILD_DIR", "build/test")
TIMEOUT = 120
UPSTREAM_CAPTURE = os.environ.get("UPSTREAM_TRACY_CAPTURE")
UPSTREAM_DUMP = os.environ.get("UPSTREAM_TRACY_DUMP")
UPSTREAM_ROOT = os.environ.get("UPSTREAM_TRACY_ROOT")  # every release built (tests/e2e/upstream_compat.sh)
UPSTREAM_TAGS = sorted(t for t in (os.listdir(UPSTREAM_ROOT) if UPSTREAM_ROOT and os.path.isdir(UPSTREAM_ROOT) else [])
                       if os.path.exists(os.path.join(UPSTREAM_ROOT, t, "bin", "tracy-dump")))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_proxy(*args):
    """tracyc-capture --serve on a free port: (the process, the port a server connects to)."""
    proxy = subprocess.Popen([CAPTURE, "--serve", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    line = proxy.stderr.readline()
    assert "waiting for a Tracy server on 127.0.0.1 port" in line, line
    return proxy, int(line.split(" port ")[1].split()[0])


def served(proxy):
    """Until the proxy says a server connected: the protocol it speaks with it."""
    line = proxy.stderr.readline()
    match = re.search(r"serving a Tracy server \(protocol (\d+)\)", line)
    assert match, line
    return int(match.group(1))


def listening_port(proxy):
    line = proxy.stderr.readline()
    assert "listening on 127.0.0.1 port" in line, line
    return int(line.split(" port ")[1].split()[0])


def our_server(port, tmp_path, *args):
    """tracyc-capture recording the proxy: (the process, its outputs)."""
    out = {ext: tmp_path / ("server." + ext) for ext in ("json", "txt", "csv")}
    server = subprocess.Popen([CAPTURE, "-a", "127.0.0.1:%d" % port, *args,
                               *sum((["-o", str(o)] for o in out.values()), [])],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return server, out


def example(name):
    return os.path.join(BUILD, "examples", "c", "example_" + name)


def record_processes(proxy, listen_port, real_port):
    """Three recorded programs dial out, then a real tracyc program is connected to and another
    dials out (TRACYC_CONNECT), one after the other, each once the proxy records the one before.
    The real ones: (game_loop, workers)."""
    clients = []
    for stream, program in (("game_loop", "example_game_loop"), ("workers", "example_workers"),
                            ("all_events", "example_all_events")):
        clients.append(DialOut(listen_port, stream))
        clients[-1].start()
        wait_recording(proxy, program)
    game = subprocess.Popen([example("game_loop")], env=dict(os.environ, TRACY_PORT=str(real_port),
                                                                TRACY_NO_EXIT="1"),
                            stdout=subprocess.DEVNULL)
    wait_recording(proxy, "example_game_loop (pid %d)" % game.pid)
    workers = subprocess.Popen([example("workers")],
                               env=dict(os.environ, TRACYC_CONNECT="127.0.0.1:%d" % listen_port),
                               stdout=subprocess.DEVNULL)
    return clients, (game, workers)


def finish(proxy, server, clients, real):
    """Until everything has ended: (what the proxy said, what the server said)."""
    proxy_out, proxy_err = proxy.communicate(timeout=TIMEOUT)
    server_out, server_err = server.communicate(timeout=TIMEOUT)
    for c in clients:
        c.join(TIMEOUT)
    for program in real:
        assert program.wait(timeout=TIMEOUT) == 0
    assert proxy.returncode == 0, proxy_out + proxy_err
    assert server.returncode == 0, server_out + server_err
    return proxy_out + proxy_err, server_out + server_err


def trace_events(path):
    return json.load(open(path))["traceEvents"]


def threads_and_counts(path, prefix_process):
    """{thread as the server names it: (zones, messages)} of a JSON output. prefix_process: the
    proxy's own output, whose threads are named within their process (program[pid])."""
    events = trace_events(path)
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    names = {}
    for e in events:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            name = e["args"]["name"]
            names[(e["pid"], e["tid"])] = processes[e["pid"]] + " " + name if prefix_process else name
    zones, messages = collections.Counter(), collections.Counter()
    for e in events:
        if e.get("ph") == "X" and (e["pid"], e["tid"]) in names:
            zones[names[(e["pid"], e["tid"])]] += 1
        elif e.get("ph") == "i" and e.get("s") == "t":
            messages[names[(e["pid"], e["tid"])]] += 1
    # GPU contexts are tracks of their own ("GPU context N: name"), checked apart
    return {n: (zones[n], messages[n]) for n in names.values() if (zones[n] or messages[n]) and "GPU context" not in n}


def zone_counts(path):
    """Zones per name, summed (the server sees each process's source locations apart)."""
    counts = collections.Counter()
    for r in csv_rows(path):
        counts[r["name"]] += int(r["counts"])
    return dict(counts)


def check_proxy_reaches_server(proxy_dir, server_out):
    """Every process's threads, zones and messages, zone statistics, plots and memory pools."""
    ours = threads_and_counts(proxy_dir / "proxy.json", True)
    theirs = threads_and_counts(server_out["json"], False)
    assert theirs == ours
    assert {"example_game_loop[695] game main", "example_workers[1045] worker 3",
            "ucs_fb[29960] Main thread"} <= set(theirs)
    assert zone_counts(server_out["csv"]) == zone_counts(proxy_dir / "proxy.csv")
    summary = server_out["txt"].read_text()
    for line in (r"example_game_loop\[695\] triangles +60 ", r"example_all_events\[1450\] int plot +1 ",
                 r"example_workers\[1045\]\S* +400 +400 ", r"ucs_fb\[29960\] +4 +4 ",
                 r"example_workers\[1045\] job queue +400 ",
                 r"example_all_events\[1450\] compute queue +1 +1 +3.00 us"):
        assert re.search(line, summary), (line, summary)


def test_serve_many_processes_to_tracyc_capture(tmp_path):
    """Six processes - three recorded tracyc programs, one recorded upstream client, a real
    tracyc program connected to and one dialing out - arrive one by one and reach
    tracyc-capture, connected to --serve, as one program: every thread named program[pid]
    thread, every zone, message, plot, pool, sample."""
    upstream = Listening("upstream_callstacks")
    real_port = free_port()
    proxy_out = [tmp_path / n for n in ("proxy.json", "proxy.csv")]
    proxy, port = start_proxy("--listen", "0", "-a", "127.0.0.1:%d" % upstream.port, "-a",
                              "127.0.0.1:%d" % real_port, "--expect", "6",
                              *sum((["-o", str(o)] for o in proxy_out), []))
    server, out = our_server(port, tmp_path)
    assert served(proxy) == 82
    listen = listening_port(proxy)
    wait_recording(proxy, "ucs_fb")  # the upstream client, connected to with -a
    clients, real = record_processes(proxy, listen, real_port)
    said, server_said = finish(proxy, server, clients + [upstream], real)
    assert "Capture complete: 6 processes" in said, said
    check_proxy_reaches_server(tmp_path, out)
    # the real program, and the upstream client's CPU samples with their callstacks
    game, workers = real
    theirs = threads_and_counts(out["json"], False)
    assert theirs["example_game_loop[%d] game main" % game.pid] == (150, 5)
    assert [theirs["example_workers[%d] worker %d" % (workers.pid, i)][0] for i in range(4)] == [100] * 4
    samples = [int(n.replace(",", "")) for n in re.findall(r"\]: ([\d,]+) CPU samples", said)]
    assert "ucs_fb[29960]: 76 CPU samples" in said and "  %d CPU samples" % sum(samples) in server_said, \
        said + server_said


@pytest.mark.parametrize("protocol", [76, 64])
def test_serve_speaks_an_older_server(tmp_path, protocol):
    """A server of an older protocol gets the items in its own layout (wire/versions.c)."""
    proxy_out = [tmp_path / n for n in ("proxy.json", "proxy.csv")]
    proxy, port = start_proxy("--listen", "0", "--expect", "2", *sum((["-o", str(o)] for o in proxy_out), []))
    server, out = our_server(port, tmp_path, "--protocol", str(protocol))
    assert served(proxy) == protocol
    listen = listening_port(proxy)
    clients = []
    for stream, program in (("game_loop", "example_game_loop"), ("workers", "example_workers")):
        clients.append(DialOut(listen, stream))
        clients[-1].start()
        wait_recording(proxy, program)
    proxy_said = proxy.communicate(timeout=TIMEOUT)
    server_said = server.communicate(timeout=TIMEOUT)
    assert proxy.returncode == 0 and server.returncode == 0, proxy_said + server_said
    assert "client: protocol %d" % protocol in server_said[0]
    assert threads_and_counts(out["json"], False) == threads_and_counts(tmp_path / "proxy.json", True)
    assert zone_counts(out["csv"]) == zone_counts(tmp_path / "proxy.csv")


def test_serve_answers_a_confused_server(tmp_path):
    """A server that asks about ids the proxy never gave, and queries of no meaning, gets an
    answer to each ("?"), and the capture of the processes is not disturbed."""
    proxy, port = start_proxy("--listen", "0", "--expect", "1", "-o", str(tmp_path / "proxy.csv"))
    with socket.create_connection(("127.0.0.1", port)) as server:
        server.sendall(b"TracyPrf" + (82).to_bytes(4, "little"))
        assert served(proxy) == 82
        client = DialOut(listening_port(proxy), "game_loop")
        client.start()
        wait_recording(proxy, "example_game_loop")
        welcome = b""
        while len(welcome) < 1171:
            welcome += server.recv(1171 - len(welcome))
        assert welcome[0] == 1  # the handshake's Welcome
        queries = b""
        for kind, ptr in ((1, 0), (1, 0x0affffff00000007), (2, 123456), (3, 0x01ffffff00000000), (3, 5),
                          (4, 77), (5, 0x07000005ffffffff), (7, 1), (8, 9), (10, 0x09ffffff00000001),
                          (11, 0x0a000000ffffffff), (12, 0), (13, 3), (14, 0), (99, 0)):
            queries += bytes([kind]) + ptr.to_bytes(8, "little") + bytes(4)
        server.sendall(queries)
        client.join(TIMEOUT)
        server.sendall(bytes(13))  # Terminate: it may come before the proxy has ended (exit status 1)
        out, err = proxy.communicate(timeout=TIMEOUT)
    assert proxy.returncode in (0, 1) and "Sanitizer" not in err and "runtime error" not in err, out + err
    assert zone_counts(tmp_path / "proxy.csv") == {"update": 60, "render": 60, "physics": 30}


def test_serve_server_going_away_ends_the_capture(tmp_path):
    """The server goes away while a process runs: the capture stops it, writes what it has, and
    says that the server may not have everything (exit status 1)."""
    proxy, port = start_proxy("--listen", "0", "-o", str(tmp_path / "proxy.csv"))
    server = socket.create_connection(("127.0.0.1", port))
    server.sendall(b"TracyPrf" + (82).to_bytes(4, "little"))
    assert served(proxy) == 82
    # a client still running: the first half of its stream sent, its connection kept open
    with socket.create_connection(("127.0.0.1", listening_port(proxy))) as client:
        assert read_hello(client) == 82
        data = recorded("workers")[1]
        client.sendall(data[:len(data) // 2])
        wait_recording(proxy, "example_workers")
        server.close()
        out, err = proxy.communicate(timeout=TIMEOUT)
    assert proxy.returncode == 1, out + err
    assert re.search(r"the Tracy server: the (server closed the connection|connection to the server failed)", err)
    assert "the capture of example_workers[1045] is incomplete: the Tracy server went away" in err, err
    assert "Tracy server may not have everything" in err, err


def test_serve_nested_gpu_zones(tmp_path):
    """GPU zones nested three deep, whose GPU times come innermost first (tests/e2e/gpu_nested.c):
    the server gets them nested as they ran, with the GPU times the proxy has, so its top-level
    GPU time is the outer zones' alone."""
    proxy, port = start_proxy("--listen", "0", "--expect", "1", "-o", str(tmp_path / "proxy.json"))
    server, out = our_server(port, tmp_path)
    served(proxy)
    program = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "gpu_nested")],
                               env=dict(os.environ, TRACYC_CONNECT="127.0.0.1:%d" % listening_port(proxy)))
    finish(proxy, server, [], [program])

    def gpu_zones(path):
        return sorted((e["name"], round(e["ts"] * 1000), round(e["dur"] * 1000)) for e in trace_events(path)
                      if e.get("ph") == "X")

    assert gpu_zones(out["json"]) == gpu_zones(tmp_path / "proxy.json")
    assert len(gpu_zones(out["json"])) == 6
    assert re.search(r"gpu_nested\[%d\] GPU +6 +6 +1.80 us" % program.pid, out["txt"].read_text()), \
        out["txt"].read_text()


@pytest.mark.skipif(not (UPSTREAM_CAPTURE and UPSTREAM_DUMP),
                    reason="needs UPSTREAM_TRACY_CAPTURE and UPSTREAM_TRACY_DUMP (upstream's tracy-capture)")
def test_serve_to_upstream_tracy_capture(tmp_path):
    """Upstream's tracy-capture 0.14.0 records --serve: its .tracy file, read by tracy-dump, holds
    every process's zones, threads (named program[pid] thread), messages, plots and callstacks,
    with no failure."""
    upstream = Listening("upstream_callstacks")
    real_port = free_port()
    proxy, port = start_proxy("--listen", "0", "-a", "127.0.0.1:%d" % upstream.port, "-a",
                              "127.0.0.1:%d" % real_port, "--expect", "6", "-o", str(tmp_path / "proxy.json"),
                              "-o", str(tmp_path / "proxy.txt"))
    tracy = tmp_path / "served.tracy"
    server = subprocess.Popen([UPSTREAM_CAPTURE, "-a", "127.0.0.1", "-p", str(port), "-o", str(tracy), "-f"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert served(proxy) == 82
    listen = listening_port(proxy)
    wait_recording(proxy, "ucs_fb")
    clients, real = record_processes(proxy, listen, real_port)
    said, _ = finish(proxy, server, clients + [upstream], real)
    dump = subprocess.run([UPSTREAM_DUMP, str(tracy)], capture_output=True, text=True, timeout=TIMEOUT)
    assert dump.returncode == 0, dump.stdout + dump.stderr
    fields = dump_fields(dump.stdout)
    ours = threads_and_counts(tmp_path / "proxy.json", True)
    assert int(fields["zones"]) == sum(z for z, _ in ours.values())
    assert int(fields["messages"]) == sum(m for _, m in ours.values())
    assert fields["failure"] == "none"
    threads = set(re.findall(r'^thread id=\d+ name="(.*)"$', dump.stdout, re.M))
    assert set(ours) <= threads and "example_game_loop[%d] game main" % real[0].pid in threads and \
        "example_workers[%d] worker 3" % real[1].pid in threads, (set(ours), threads)
    assert 'plot "example_game_loop[695] triangles" points=60' in dump.stdout
    samples = sum(int(n.replace(",", "")) for n in re.findall(r"\]: ([\d,]+) CPU samples", said))
    assert "samples: %d" % samples in dump.stdout, dump.stdout
    assert "zone-callstack inner_work:" in dump.stdout


def dump_fields(text):
    """tracy-dump's "name: value" lines (zones, gpu zones, messages, failure, samples...)."""
    return dict(m.groups() for m in re.finditer(r"^([a-z][a-z ()-]*): (.*)$", text, re.M))


@pytest.mark.skipif(not UPSTREAM_TAGS, reason="needs UPSTREAM_TRACY_ROOT (upstream's releases, bin/tracy-capture and "
                    "bin/tracy-dump each)")
@pytest.mark.parametrize("tag", UPSTREAM_TAGS or ["none"])
def test_serve_to_every_upstream_release(tmp_path, tag):
    """Each release's own tracy-capture (0.10 to 0.14.0: protocols 64 to 82) records --serve,
    which speaks the release's protocol: its dump holds every zone, message and thread."""
    upstream = Listening("upstream_callstacks")
    proxy, port = start_proxy("--listen", "0", "-a", "127.0.0.1:%d" % upstream.port, "--expect", "3", "-o",
                              str(tmp_path / "proxy.json"))
    tracy = tmp_path / "served.tracy"
    server = subprocess.Popen([os.path.join(UPSTREAM_ROOT, tag, "bin", "tracy-capture"), "-a", "127.0.0.1", "-p",
                               str(port), "-o", str(tracy), "-f"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    served(proxy)
    listen = listening_port(proxy)
    wait_recording(proxy, "ucs_fb")
    clients = []
    for stream, program in (("all_events", "example_all_events"), ("callstacks", "example_callstacks")):
        clients.append(DialOut(listen, stream))
        clients[-1].start()
        wait_recording(proxy, program)
    finish(proxy, server, clients + [upstream], [])
    dump = subprocess.run([os.path.join(UPSTREAM_ROOT, tag, "bin", "tracy-dump"), str(tracy)], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert dump.returncode == 0, dump.stdout + dump.stderr
    fields = dump_fields(dump.stdout)
    ours = threads_and_counts(tmp_path / "proxy.json", True)
    assert (int(fields["zones"]), int(fields["messages"]), fields["failure"], fields["gpu zones"]) == \
        (sum(z for z, _ in ours.values()), sum(m for _, m in ours.values()), "none", "1"), dump.stdout
    assert set(ours) <= set(re.findall(r'^thread id=\d+ name="(.*)"$', dump.stdout, re.M)), dump.stdout
