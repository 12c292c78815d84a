"""When writing a capture goes wrong (issue 20, "Bad input"), end to end: a disk that fills, an
output path that cannot be written, a capture cut by SIGINT or SIGTERM; tracyc-capture with several
outputs at once, and the in-process capture.

A full disk is a file size limit (RLIMIT_FSIZE) with SIGXFSZ ignored: a write past it fails with
EFBIG, as one on a full disk fails with ENOSPC, and nothing else changes. The clients are
bench/fake_client.c (a synthetic program with zones, texts, messages, plots, frames and CPU
samples, which says at the end what it sent) and a recorded upstream client replayed over a socket.
Run by ctest with TRACYC_BUILD_DIR set."""
import csv
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from capture_terminal import capture_on_terminal

BUILD = os.environ.get("TRACYC_BUILD_DIR", "build/test")
CAPTURE = os.path.join(BUILD, "tools", "tracyc-capture")
FAKE = os.path.join(BUILD, "bench", "bench_fake_client")
HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_C = os.path.join(HERE, "..", "c")
STREAM = os.path.join(TESTS_C, "fixtures", "streams", "upstream_callstacks.stream")
# One of each kind; the .pftrace, JSON and folded stacks under the names pftrace_check.py reads.
OUTPUTS = ("trace.pftrace", "trace.json", "stats.csv", "profile.folded", "flame.svg", "summary.txt")

needs_fake = pytest.mark.skipif(not os.path.exists(FAKE), reason="bench_fake_client not built (TRACYC_BUILD_BENCH)")


def file_size_limit(limit):
    """A preexec_fn: files of this process grow to `limit` bytes at most, and a write past it fails."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def start_fake(zones):
    """bench_fake_client sending `zones` zones, listening on a free port: (process, port)."""
    fake = subprocess.Popen([FAKE, "-n", str(zones)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return fake, int(fake.stdout.readline())


def sent(fake):
    """What the fake client says it sent, once it has ended: {"zones": ..., "samples": ...}."""
    _, err = fake.communicate(timeout=300)
    line = [x for x in err.splitlines() if x.startswith("fake_client:")][-1]
    return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:]) if v.isdigit()}


def capture_args(port, directory, names=OUTPUTS):
    args = [CAPTURE, "-p", str(port)]
    for name in names:
        args += ["-o", str(directory / name)]
    return args


def record_fake(directory, zones, limit=None, env=None, names=OUTPUTS, flags=()):
    """tracyc-capture of the fake client into the outputs `names` (default: one of every kind) in
    directory: (its result, what the client sent)."""
    directory.mkdir(exist_ok=True)
    fake, port = start_fake(zones)
    try:
        result = subprocess.run(capture_args(port, directory, names) + list(flags), capture_output=True, text=True,
                                timeout=300, env=env, preexec_fn=file_size_limit(limit) if limit else None)
        return result, sent(fake)
    finally:
        fake.kill()
        fake.wait()


def csv_zone_count(path):
    with open(path, newline="") as f:
        return sum(int(row["counts"]) for row in csv.DictReader(f))


def folded_counts(path):
    counts = {}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        stack, count = line.rsplit(" ", 1)
        counts[stack] = counts.get(stack, 0) + int(count)
    return counts


def check_flame_graph(path, folded):
    """A well-formed SVG that draws the stacks' functions."""
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    text = "".join(root.itertext())
    assert all(frame in text for stack in folded for frame in stack.split(";")[1:])


def pftrace_facts(directory):
    """The .pftrace read back by tests/c/pftrace_check.py and compared with the JSON and the folded
    stacks of the same capture: what it holds (zones, messages, samples, ...)."""
    pytest.importorskip("google.protobuf")
    if not any(os.access(os.path.join(d, "protoc"), os.X_OK) for d in os.environ.get("PATH", "").split(":")):
        pytest.skip("protoc not installed")
    sys.path.insert(0, TESTS_C)
    import pftrace_check
    work = directory / "pb2"
    work.mkdir()
    try:
        return pftrace_check.check_outputs(pftrace_check.load_messages(str(work)), str(directory))
    except pftrace_check.Failure as e:
        pytest.fail(f"{directory / 'trace.pftrace'}: {e}")


def check_complete_summary(path, zones):
    text = path.read_text()
    assert "Captured " in text and " %s zones on " % format(zones, ",") in text and "incomplete" not in text, text


def listing(directory):
    return sorted(p.name for p in directory.iterdir())


# ---- a disk that fills ----------------------------------------------------------------------------

@needs_fake
def test_full_disk_fails_one_output_and_writes_the_others(tmp_path):
    """The JSON meets a full disk when written at the end: stderr names it, the older file of that
    name is left as it was and no temporary one, every other output is written whole, exit 1."""
    zones = 100_000
    whole, _ = record_fake(tmp_path / "whole", zones)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    sizes = {name: (tmp_path / "whole" / name).stat().st_size for name in OUTPUTS}
    assert max(s for n, s in sizes.items() if n != "trace.json") < sizes["trace.json"] // 2, sizes
    limit = (max(s for n, s in sizes.items() if n != "trace.json") + sizes["trace.json"]) // 2

    full = tmp_path / "full"
    full.mkdir()
    (full / "trace.json").write_text("an older capture")
    result, sent_ = record_fake(full, zones, limit=limit, flags=["-f"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "tracyc-capture: cannot write %s: File too large" % (full / "trace.json") in result.stderr, result.stderr
    assert listing(full) == sorted(OUTPUTS)
    assert (full / "trace.json").read_text() == "an older capture"
    # The others are those of the capture without a limit: same stream, same files.
    for name in ("stats.csv", "profile.folded", "flame.svg"):
        assert (full / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert (full / "trace.pftrace").stat().st_size == sizes["trace.pftrace"]
    assert sum(folded_counts(full / "profile.folded").values()) == sent_["samples"] > 0
    check_complete_summary(full / "summary.txt", sent_["zones"])


@needs_fake
def test_full_disk_mid_capture_fails_the_outputs_that_needed_it(tmp_path):
    """The disk fills while the capture runs: the events kept for the JSON and the .pftrace, past
    their memory budget, go to a temporary file that can grow no more. Both outputs fail, named,
    and leave nothing; the outputs that keep only aggregates are written whole; no temporary file
    is left in TMPDIR."""
    zones = 3_000_000  # kept events past their memory budget (16 MiB): on disk
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "out"
    result, sent_ = record_fake(out, zones, limit=1 << 20, env=dict(os.environ, TMPDIR=str(tmp)))
    assert result.returncode == 1, result.stdout + result.stderr
    for name in ("trace.json", "trace.pftrace"):
        said = "tracyc-capture: cannot write %s: its events, kept in a temporary file in %s, could not all be " \
            "stored there: File too large" % (out / name, tmp)
        assert said in result.stderr, result.stderr
    assert listing(out) == ["flame.svg", "profile.folded", "stats.csv", "summary.txt"]
    assert listing(tmp) == []
    # They are those of a capture of the same stream that wrote them alone, without a limit.
    alone = tmp_path / "alone"
    result, _ = record_fake(alone, zones, names=listing(out))
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("stats.csv", "profile.folded", "flame.svg"):
        assert (out / name).read_bytes() == (alone / name).read_bytes(), name
    folded = folded_counts(out / "profile.folded")
    assert sum(folded.values()) == sent_["samples"] > 0
    check_flame_graph(out / "flame.svg", folded)
    check_complete_summary(out / "summary.txt", sent_["zones"])


def test_in_process_capture_on_a_full_disk_says_so_and_leaves_the_program_alone(tmp_path):
    program = os.path.join(BUILD, "examples", "c", "example_game_loop")
    out = tmp_path / "trace.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACY_", "TRACYC_"))}
    env.update(TRACYC_OUTPUT=str(out), TMPDIR=str(tmp_path))
    whole = subprocess.run([program], env=env, capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0 and out.stat().st_size > 8192, whole.stderr
    out.unlink()
    result = subprocess.run([program], env=env, capture_output=True, text=True, timeout=60,
                            preexec_fn=file_size_limit(4096))
    assert result.returncode == 0, result.stderr
    assert result.stdout == whole.stdout
    assert "tracyc: cannot write %s: File too large" % out in result.stderr, result.stderr
    assert listing(tmp_path) == []


# ---- a path that cannot be written ----------------------------------------------------------------

def test_unwritable_output_among_several_is_refused_before_capturing(tmp_path):
    """/proc takes no new file, not even from root: refused at the start, named; the other outputs
    are not created."""
    unwritable = "/proc/tracyc-%d.json" % os.getpid()
    result = subprocess.run([CAPTURE, "-p", "1", "-s", "60", "-o", str(tmp_path / "stats.csv"), "-o", unwritable,
                             "-o", str(tmp_path / "summary.txt")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot write %s" % unwritable in result.stderr, result.stderr
    assert listing(tmp_path) == []


def test_output_directory_gone_by_the_end(tmp_path):
    """A path writable at the start that is not by the end (its directory removed while the capture
    runs): stderr names it, the other outputs are written, exit 1."""
    gone = tmp_path / "gone"
    gone.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    names = [out / n for n in OUTPUTS if n != "trace.json"]
    stream = open(STREAM, "rb").read()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        args = [CAPTURE, "-p", str(listener.getsockname()[1]), "-o", str(gone / "trace.json")]
        for name in names:
            args += ["-o", str(name)]
        capture = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        listener.settimeout(60)
        conn, _ = listener.accept()  # the outputs were checked before connecting
        gone.rmdir()
        with conn:
            assert conn.recv(12)[:8] == b"TracyPrf"
            conn.sendall(stream)
            while conn.recv(65536):  # the capture's queries, then its Terminate and close
                pass
        stdout, stderr = capture.communicate(timeout=60)
    assert capture.returncode == 1, stdout + stderr
    assert "tracyc-capture: cannot open %s for writing: No such file or directory" % (gone / "trace.json") in stderr, \
        stderr
    assert listing(out) == sorted(n for n in OUTPUTS if n != "trace.json")
    folded = folded_counts(out / "profile.folded")
    assert sum(folded.values()) == 76  # the recording's CPU samples
    check_flame_graph(out / "flame.svg", folded)
    assert csv_zone_count(out / "stats.csv") > 0
    check_complete_summary(out / "summary.txt", 189)  # the recording's zones


# ---- a capture cut by a signal --------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_writes_every_output_complete_so_far(tmp_path, sig):
    """A capture of a client that never ends (tests/e2e/endless.c), stopped by a signal once its
    status line counts 2,000 zones: every output is written, valid and holds what came (the .pftrace
    read back and compared with the JSON and the folded stacks; the CSV's counts are the JSON's
    zones), each says the capture is incomplete where it has room for it, exit 1."""
    port = free_port()
    env = dict(os.environ, TRACY_PORT=str(port), TRACY_NO_EXIT="1")
    client = subprocess.Popen([os.path.join(BUILD, "tests", "e2e", "endless")], env=env, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert client.stdout.readline().strip() == "ready"
        with capture_on_terminal(capture_args(port, tmp_path), stdout=subprocess.PIPE, text=True) as (capture, status):
            assert status.wait_for_zones(2000), status.text
            capture.send_signal(sig)
            stdout, _ = capture.communicate(timeout=300)
    finally:
        client.kill()
        client.wait()
    said = stdout + status.text.decode(errors="replace")
    assert capture.returncode == 1, said
    assert listing(tmp_path) == sorted(OUTPUTS)
    with open(tmp_path / "trace.json") as f:
        doc = json.load(f, parse_float=str)
    assert doc["otherData"]["incomplete"] == "stopped by the user"
    zones = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    facts = pftrace_facts(tmp_path)
    assert facts["zones"] == len(zones) >= 2000 and facts["messages"] > 0
    # The CSV counts as tracy-csvexport does: zones that ended, and took a nanosecond or more.
    import pftrace_check
    counted = [z for z in zones if not z["args"].get("unfinished") and pftrace_check.ns(z["dur"]) > 0]
    assert csv_zone_count(tmp_path / "stats.csv") == len(counted)
    folded = folded_counts(tmp_path / "profile.folded")
    assert sum(folded.values()) == facts["samples"]  # none where the kernel allows no sampling
    check_flame_graph(tmp_path / "flame.svg", folded)
    summary = (tmp_path / "summary.txt").read_text()
    assert "incomplete" in summary.lower() and "stopped by the user" in summary
    assert "Capture incomplete" in stdout
