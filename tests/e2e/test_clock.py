"""End to end: one clock for the processes of one program (issue 19 item 3). A program and the
child it forks and execs (tests/e2e/spawn_child.c), or only forks (TRACYC_FOLLOW_FORK=1), both
dial out (TRACYC_CONNECT) to one tracyc-capture --listen, which puts both on the trace's clock
from their TracycClock readings (docs/protocol.md §28, core/capture/clock.h): the child's zone
must fall between the parent's zone before the fork and its zone after the wait, to within
1 us. A child whose clocks are skewed on purpose (TRACYC_TEST_CLOCK_SKEW_NS: it reports them
as a client on another host would) is placed by probe round trips instead: it lands in the
same place, within the error the summary reports for it.

The parent waits until it is recorded before it forks (spawn_child.c), so it is the first
client and gives the trace its clock. Loopback ports the kernel picks; every process started
is stopped by its pid. Run by ctest with TRACYC_BUILD_DIR set."""
import json
import os
import re
import subprocess

from test_collect import start_capture

BUILD = os.environ.get("TRACYC_BUILD_DIR", "build/test")
SPAWN = os.path.join(BUILD, "tests", "e2e", "spawn_child")
TIMEOUT = 120
US = 1000  # ns


def record(tmp_path, *args, **env):
    """spawn_child ARGS recorded: (its pid, {zone name: (pid, begin ns, end ns)}, the capture's
    stdout)."""
    trace = tmp_path / "trace.json"
    capture, port = start_capture(tmp_path, "--expect", "2", "-o", str(trace), "-o", str(tmp_path / "summary.txt"))
    try:
        program = subprocess.Popen([SPAWN, *args], env=dict(os.environ, TRACYC_CONNECT="127.0.0.1:%d" % port, **env))
        assert program.wait(timeout=TIMEOUT) == 0
        out, err = capture.communicate(timeout=TIMEOUT)
    finally:  # a failure must not leave the capture waiting for its clients
        if capture.poll() is None:
            capture.kill()
            capture.wait()
    assert capture.returncode == 0, out + err
    zones = {}
    for e in json.load(open(trace))["traceEvents"]:
        if e.get("ph") == "X":
            begin = round(e["ts"] * 1000)
            zones[e["name"]] = (e["pid"], begin, begin + round(e["dur"] * 1000))
    return program.pid, zones, out


def clock_of(out, pid):
    """The clock column of a process's line in the capture's closing lines."""
    match = re.search(r"^  spawn_child\[%d\]: [^\n]*?clock ([^,]*)," % pid, out, re.M)
    assert match, out
    return match.group(1)


def error_ns(clock):
    """'+-123 ns (round trips)' -> 123; 'exact' -> 0."""
    if clock == "exact":
        return 0
    match = re.match(r"\+-([\d.,]+) (ns|us|ms|s) ", clock)
    assert match, clock
    return float(match.group(1).replace(",", "")) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[match.group(2)]


def check_between(zones, parent, slack_ns):
    before, child, after = zones["before the child"], zones["child work"], zones["after the child"]
    assert before[0] == after[0] == parent and child[0] != parent, zones
    assert before[2] <= child[1] + slack_ns, ("the child's zone began before the fork", zones)
    assert child[2] <= after[1] + slack_ns, ("the child's zone ended after the wait", zones)
    return child[0]


def test_exec_child_between_its_parents_events(tmp_path):
    """Same host: both clocks are CLOCK_MONOTONIC_RAW, read by the TracycClock readings."""
    parent, zones, out = record(tmp_path, "exec")
    child = check_between(zones, parent, 1 * US)
    assert clock_of(out, parent) == "exact", out  # the first client: the trace's clock
    assert clock_of(out, child).endswith("(clock readings)"), out


def test_forked_child_between_its_parents_events(tmp_path):
    """A forked child (TRACYC_FOLLOW_FORK=1) profiles itself and dials out to the same capture."""
    parent, zones, out = record(tmp_path, "fork", TRACYC_FOLLOW_FORK="1")
    child = check_between(zones, parent, 1 * US)
    assert clock_of(out, parent) == "exact", out
    assert clock_of(out, child).endswith("(clock readings)"), out


def test_skewed_child_placed_by_round_trips(tmp_path):
    """A child 5 s off, as if on another host: without the probes it would land 5 s away; with
    them it lands between its parent's events, within the error the summary gives."""
    parent, zones, out = record(tmp_path, "exec", "5000000000")
    clock = clock_of(out, zones["child work"][0])
    assert clock.endswith("(round trips)"), out
    check_between(zones, parent, 1 * US + error_ns(clock))
