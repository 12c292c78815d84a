"""python -m tracer and the pytest plugin follow the Python processes a program starts
(issue 19 item 5, docs/python.md "Child processes"): each child dials out to the profile's
collector and is profiled as its parent, under its own pid and name.

The collector is tracyc-capture --listen (the program's TRACYC_CONNECT: the parent and every
child dial out to it), checked through its JSON and folded stacks, or, with -o, the
in-process capture's own (tracyc_collect_children: TRACYC_OUTPUT with TRACYC_FOLLOW_FORK=1),
checked through the -o file. Forked children need the C client's TRACYC_FOLLOW_FORK."""
import json
import os
import socket
import subprocess

import pytest

from conftest import CAPTURE, PYTHON, REPO, child_env, needs_capture


def _header_says(name):
    with open(os.path.join(REPO, "include", "tracyc.h")) as f:
        return name in f.read()


needs_follow_fork = pytest.mark.skipif(not _header_says("TRACYC_FOLLOW_FORK"),
                                       reason="the C client does not follow forked children yet (TRACYC_FOLLOW_FORK)")
needs_in_process_collector = pytest.mark.skipif(
    not _header_says("tracyc_collect_children"),
    reason="the in-process capture collects no children yet (tracyc_collect_children)")

PROGRAM = """\
import concurrent.futures, multiprocessing, os, subprocess, sys

def child_work(n):
    return sum(i * i for i in range(n))

def child_task(queue):
    queue.put((os.getpid(), child_work(200000)))

def parent_work():
    return sum(range(1000))

if __name__ == "__main__":
    parent_work()
    way = sys.argv[1]
    pids = []
    if way == "subprocess":
        out = subprocess.run([sys.executable, "child.py", "7"], check=True, capture_output=True, text=True)
        pids.append(int(out.stdout.split()[0]))
        assert out.stdout.split()[1:] == ["7", "child.py"], out.stdout  # argv as without tracer
    elif way == "pool":
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            pids += {pid for pid, _ in pool.map(child_task_pid, [200000] * 3)}
    else:
        ctx = multiprocessing.get_context(way)
        queue = ctx.Queue()
        process = ctx.Process(target=child_task, args=(queue,), name="worker-one")
        process.start()
        pid, _ = queue.get()
        process.join()
        assert process.exitcode == 0
        pids.append(pid)
    print("children", *pids)
"""

CHILD_TASK_PID = """
def child_task_pid(n):
    return os.getpid(), child_work(n)
"""

CHILD = """\
import sys

def sub_work(n):
    return sum(i * i for i in range(n))

if __name__ == "__main__":
    import os
    sub_work(200000)
    print(os.getpid(), *sys.argv[1:], os.path.basename(sys.argv[0]))
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_program(tmp_path):
    # child_task_pid must be importable by the pool's spawned workers: at module level
    source = PROGRAM.replace('\nif __name__ == "__main__":', CHILD_TASK_PID + '\nif __name__ == "__main__":', 1)
    (tmp_path / "prog.py").write_text(source)
    (tmp_path / "child.py").write_text(CHILD)


def _collected(tmp_path, tracer_args, way, processes, outputs=("out.json",)):
    """Runs prog.py WAY under python -m tracer TRACER_ARGS with its profile going to a
    tracyc-capture --listen that ends once `processes` clients have finished. Returns the
    children's pids (as the program saw them) and the capture's output paths."""
    _write_program(tmp_path)
    port = _free_port()
    paths = [str(tmp_path / name) for name in outputs]
    capture = subprocess.Popen([CAPTURE, "--listen", f"127.0.0.1:{port}", "--expect", str(processes), "-s", "120",
                                *[arg for path in paths for arg in ("-o", path)]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run = subprocess.run([PYTHON, "-m", "tracer", *tracer_args, "prog.py", way], cwd=tmp_path,
                             env=child_env(TRACYC_CONNECT=f"127.0.0.1:{port}"), capture_output=True, text=True,
                             timeout=120)
        out, err = capture.communicate(timeout=150)
    finally:
        if capture.poll() is None:
            capture.kill()
            capture.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    assert capture.returncode == 0, out + err
    assert "Error in sitecustomize" not in run.stderr, run.stderr
    children = [int(pid) for pid in run.stdout.split("children", 1)[1].split()]
    return children, paths, out + err


def _threads(path):
    """pid -> the thread ids its events name, in a Chrome JSON."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    found = {}
    for e in events:
        if "pid" in e and e.get("tid"):
            found.setdefault(e["pid"], set()).add(e["tid"])
    return found


def _processes(path):
    """pid -> (process name, zone names) of a Chrome JSON."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    found = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            found.setdefault(e["pid"], [None, set()])[0] = e["args"]["name"]
        elif e["ph"] == "X":
            found.setdefault(e["pid"], [None, set()])[1].add(e["name"])
    return {pid: (name, zones) for pid, (name, zones) in found.items()}


WAYS = {"spawn": ("child_work", "prog.py (multiprocessing)"),
        "forkserver": ("child_work", "prog.py (multiprocessing)"),
        "pool": ("child_work", "prog.py (multiprocessing)"),
        "subprocess": ("sub_work", "child.py")}


@needs_capture
@pytest.mark.parametrize("way", sorted(WAYS))
def test_children_traced_into_the_collector(way, tmp_path):
    children, (path,), log = _collected(tmp_path, [], way, 2)
    processes = _processes(path)
    (child,) = children
    function, label = WAYS[way]
    parents = [pid for pid in processes if pid not in children]
    assert len(parents) == 1 and set(processes) == {parents[0], child}, (processes, log)
    name, zones = processes[parents[0]]
    assert name == f"prog.py[{parents[0]}]" and "parent_work" in zones and function not in zones
    name, zones = processes[child]
    assert name == f"{label}[{child}]", processes
    assert function in zones and "parent_work" not in zones, zones


@needs_capture
@pytest.mark.parametrize("way", ["spawn", "subprocess"])
def test_children_sampled_into_the_collector(way, tmp_path):
    children, (path,), log = _collected(tmp_path, ["--sample"], way, 2, outputs=("out.folded",))
    (child,) = children
    function, label = WAYS[way]
    with open(path) as f:
        stacks = [line.rsplit(" ", 1)[0].split(";") for line in f if not line.startswith("#")]
    mine = [s for s in stacks if s[0] == f"{label}[{child}]"]
    assert any(function in frame for s in mine for frame in s), (stacks[:20], log)
    # the parent's samples are its own: none of the child's function
    assert not any(function in frame for s in stacks if s[0] != f"{label}[{child}]" for frame in s)


@needs_capture
def test_multiprocessing_child_thread_named_after_its_process(tmp_path):
    children, (path,), _ = _collected(tmp_path, [], "spawn", 2)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
             and e["pid"] == children[0]}
    assert "worker-one" in names, names


@needs_capture
@pytest.mark.parametrize("way", ["spawn", "subprocess"])
def test_no_follow(way, tmp_path):
    children, (path,), log = _collected(tmp_path, ["--no-follow"], way, 1)
    processes = _processes(path)
    assert children[0] not in processes and len(processes) == 1, (processes, log)


@needs_capture
@needs_follow_fork
def test_forked_children_traced_into_the_collector(tmp_path):
    children, (path,), log = _collected(tmp_path, [], "fork", 2)
    processes = _processes(path)
    name, zones = processes[children[0]]
    assert name == f"prog.py (fork)[{children[0]}]" and "child_work" in zones, (processes, log)
    # the zones open at the fork are the parent's: the child has none of them
    assert "<module>" not in zones


@needs_in_process_collector
@pytest.mark.parametrize("way", ["spawn", "forkserver", "pool", "subprocess"]
                         + (["fork"] if _header_says("TRACYC_FOLLOW_FORK") else []))
def test_children_in_the_output_file(way, tmp_path):
    _write_program(tmp_path)
    run = subprocess.run([PYTHON, "-m", "tracer", "-o", "out.json", "prog.py", way], cwd=tmp_path,
                         env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    children = [int(pid) for pid in run.stdout.split("children", 1)[1].split()]
    processes = _processes(str(tmp_path / "out.json"))
    function, label = WAYS.get(way, ("child_work", "prog.py (fork)"))
    assert len(processes) == 2, processes  # the parent and its one child
    for child in children:
        assert processes[child] and function in processes[child][1], processes
        assert processes[child][0] == f"{label}[{child}]", processes
    (parent,) = set(processes) - set(children)
    assert "parent_work" in processes[parent][1] and function not in processes[parent][1]
    # A forked child's capture has none of its parent's threads: samples the parent's sampler
    # had not yet sent at the fork are the parent's to send.
    threads = _threads(str(tmp_path / "out.json"))
    for child in children:
        assert not threads[child] & threads[parent], (threads[child], threads[parent])


WATCHED_NAMES = """\
import os
from tracer import _follow
real = _follow._tracer
class Watched:
    def __getattr__(self, attr):
        return getattr(real, attr)
    def set_program_name(self, text):
        with open("names.txt", "a") as f:
            f.write(f"{os.getpid()} {real.profiler_started()} {text}\\n")
        real.set_program_name(text)
_follow._tracer = Watched()
"""


@needs_in_process_collector
@pytest.mark.skipif(not _header_says("TRACYC_FOLLOW_FORK"), reason="no TRACYC_FOLLOW_FORK")
def test_forked_child_named_before_its_profiler_starts(tmp_path):
    """A forked child's name ("prog.py (fork)") is given before anything starts its profiler:
    its worker builds the welcome as soon as it reaches the collector, with the name given by
    then. (The child was once asked whether it was disabled first, which starts the profiler,
    and under load it was welcomed as "prog.py".) The watching module is not traced
    (--exclude): a traced call would start the profiler itself."""
    (tmp_path / "watched.py").write_text(WATCHED_NAMES)
    (tmp_path / "prog.py").write_text("import os, watched\npid = os.fork()\nif pid == 0:\n    os._exit(0)\n"
                                      "os.waitpid(pid, 0)\nprint('child', pid)\n")
    run = subprocess.run([PYTHON, "-m", "tracer", "--exclude", "*/watched.py", "-o", "out.json", "prog.py"],
                         cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    child = run.stdout.split()[-1]
    names = [line.split(" ", 2) for line in (tmp_path / "names.txt").read_text().splitlines()]
    assert names == [[child, "False", "prog.py (fork)"]], names


@needs_in_process_collector
@pytest.mark.parametrize("method", ["spawn"] + (["fork"] if _header_says("TRACYC_FOLLOW_FORK") else []))
def test_multiprocessing_named_though_not_imported_at_start_up(method, tmp_path):
    """Following children does not import multiprocessing at start-up (it cost every start
    ~5 ms): its Process names still reach the profile when the program imports it later."""
    (tmp_path / "prog.py").write_text(
        "import sys\n"
        "print('imported at start', 'multiprocessing.process' in sys.modules)\n"
        "import multiprocessing\n"
        "def work():\n"
        "    sum(range(1000))\n"
        "if __name__ == '__main__':\n"
        f"    p = multiprocessing.get_context({method!r}).Process(target=work, name='worker-late')\n"
        "    p.start()\n"
        "    p.join()\n"
        "    print('children', p.pid)\n")
    run = subprocess.run([PYTHON, "-m", "tracer", "-o", "out.json", "prog.py"], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "imported at start False", run.stdout  # (the parent's line)
    child = int(run.stdout.split("children", 1)[1].split()[0])
    with open(tmp_path / "out.json") as f:
        events = json.load(f)["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == child}
    assert "worker-late" in names, names


@needs_in_process_collector
def test_children_sampled_into_the_output_file(tmp_path):
    _write_program(tmp_path)
    run = subprocess.run([PYTHON, "-m", "tracer", "--sample", "-o", "out.folded", "prog.py", "spawn"], cwd=tmp_path,
                         env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (child,) = [int(pid) for pid in run.stdout.split("children", 1)[1].split()]
    with open(tmp_path / "out.folded") as f:
        stacks = [line.rsplit(" ", 1)[0].split(";") for line in f if not line.startswith("#")]
    assert any(s[0] == f"prog.py (multiprocessing)[{child}]" and "child_work" in ";".join(s) for s in stacks), stacks


@needs_in_process_collector
def test_no_follow_with_output_file(tmp_path):
    _write_program(tmp_path)
    run = subprocess.run([PYTHON, "-m", "tracer", "--no-follow", "-o", "out.json", "prog.py", "spawn"], cwd=tmp_path,
                         env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (child,) = [int(pid) for pid in run.stdout.split("children", 1)[1].split()]
    processes = _processes(str(tmp_path / "out.json"))
    assert child not in processes and len(processes) == 1, processes
    assert not [name for name in os.listdir(tmp_path) if name.startswith("out.") and name != "out.json"]


def test_child_keeps_its_own_sitecustomize_and_path(tmp_path):
    """A followed child imports the sitecustomize it would have imported, and tracer's start-up
    directory is not in its sys.path."""
    (tmp_path / "site_dir").mkdir()
    (tmp_path / "site_dir" / "sitecustomize.py").write_text("import builtins\nbuiltins.CUSTOMIZED = True\n")
    (tmp_path / "child.py").write_text("import builtins, sys\nprint(getattr(builtins, 'CUSTOMIZED', False))\n"
                                       "print(any('_boot' in p for p in sys.path))\n")
    (tmp_path / "prog.py").write_text("import subprocess, sys\n"
                                      "print(subprocess.run([sys.executable, 'child.py'], capture_output=True, "
                                      "text=True).stdout, end='')\n")
    port = _free_port()  # nobody listens: the child's profile waits in vain, and nothing else changes
    env = child_env(TRACYC_CONNECT=f"127.0.0.1:{port}")
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tmp_path / "site_dir")])
    run = subprocess.run([PYTHON, "-m", "tracer", "prog.py"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:2] == ["True", "False"], run.stdout + run.stderr


XDIST_TESTS = """\
import os

def xdist_work():
    return sum(i * i for i in range(100000))

def test_one():
    xdist_work()

def test_two():
    xdist_work()
"""


def _xdist_run(tmp_path, command, processes):
    if subprocess.run([PYTHON, "-c", "import xdist"], capture_output=True).returncode != 0:
        pytest.skip("pytest-xdist is not installed (Debian: python3-pytest-xdist)")
    (tmp_path / "test_x.py").write_text(XDIST_TESTS)
    port = _free_port()
    capture = subprocess.Popen([CAPTURE, "--listen", f"127.0.0.1:{port}", "--expect", str(processes), "-s", "120",
                                "-o", str(tmp_path / "out.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        run = subprocess.run([PYTHON, *command, "-q", "-p", "no:cacheprovider", "-n", "2", "test_x.py"],
                             cwd=tmp_path, env=child_env(TRACYC_CONNECT=f"127.0.0.1:{port}"), capture_output=True,
                             text=True, timeout=120)
        out, err = capture.communicate(timeout=150)
    finally:
        if capture.poll() is None:
            capture.kill()
            capture.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    assert capture.returncode == 0, out + err
    return _processes(str(tmp_path / "out.json"))


@needs_capture
@pytest.mark.parametrize("command", [["-m", "tracer", "-m", "pytest"],
                                     ["-m", "pytest", "-p", "tracer.pytest_plugin", "--tracer"]], ids=["cli", "plugin"])
def test_pytest_xdist_workers(command, tmp_path):
    processes = _xdist_run(tmp_path, command, 3)
    workers = [pid for pid, (_, zones) in processes.items() if "xdist_work" in zones]
    assert len(processes) == 3 and workers, processes
    # each test ran in a worker, inside its phase zone there
    for test in ("test_x.py::test_one", "test_x.py::test_two"):
        assert any(test in processes[pid][1] for pid in workers), processes


@needs_capture
def test_pytest_xdist_workers_not_followed(tmp_path):
    processes = _xdist_run(tmp_path, ["-m", "pytest", "-p", "tracer.pytest_plugin", "--tracer", "--tracer-no-follow"],
                           1)
    ((name, zones),) = processes.values()
    assert name == "pytest" and "xdist_work" not in zones, processes  # (one process: no [pid])


@needs_in_process_collector
def test_pytest_xdist_workers_in_the_output_file(tmp_path):
    if subprocess.run([PYTHON, "-c", "import xdist"], capture_output=True).returncode != 0:
        pytest.skip("pytest-xdist is not installed (Debian: python3-pytest-xdist)")
    (tmp_path / "test_x.py").write_text(XDIST_TESTS)
    run = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tracer.pytest_plugin",
                          "--tracer", "--tracer-output", "out.json", "-n", "2", "test_x.py"], cwd=tmp_path,
                         env=child_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    processes = _processes(str(tmp_path / "out.json"))
    workers = [pid for pid, (_, zones) in processes.items() if "xdist_work" in zones]
    assert len(processes) == 3 and workers, processes
    for test in ("test_x.py::test_one", "test_x.py::test_two"):
        assert any(test in processes[pid][1] for pid in workers), processes
    # the workers wrote no file of their own
    assert sorted(os.listdir(tmp_path)) == ["out.json", "test_x.py"], os.listdir(tmp_path)


SHARED_LOADER_PROGRAM = """\
import importlib.abc, importlib.machinery, importlib.util, sys

class Shared(importlib.abc.Loader):
    '''One loader for several modules, as a zip's importer is.'''
    real = {}
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        if module.__name__ == "sharedmod":
            module.value = 42
        else:
            self.real[module.__name__].exec_module(module)

shared = Shared()

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "sharedmod":
            return importlib.machinery.ModuleSpec(name, shared)
        if name == "multiprocessing.process":
            sys.meta_path.remove(self)
            try:
                real = importlib.util.find_spec(name)
            finally:
                sys.meta_path.insert(1, self)
            shared.real[name] = real.loader
            return importlib.machinery.ModuleSpec(name, shared, origin=real.origin)
        return None

sys.meta_path.insert(1, Finder())
import multiprocessing.process
import sharedmod
print("sharedmod", sharedmod.value, multiprocessing.process.BaseProcess.__name__)
"""


def test_multiprocessing_patched_through_a_shared_loader(tmp_path):
    """The loader that finds multiprocessing.process may load other modules too (a zip's
    importer, a frozen application's): patching the module after it runs must not change
    that loader, or every module it loads later would be 'patched' too, and fail."""
    (tmp_path / "prog.py").write_text(SHARED_LOADER_PROGRAM)
    run = subprocess.run([PYTHON, "-m", "tracer", "-o", "out.json", "prog.py"], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["sharedmod", "42", "BaseProcess"], run.stdout


def test_settings_given_to_children_as_json_writes_them():
    """The settings children get (TRACER_FOLLOW) are written without importing json at
    every start-up, exactly as json.dumps writes them (files of any name included)."""
    from tracer import _follow
    odd = "a\"b\\c\n\r\t\b\f\x00\x1f\x7f\x80é€😀\udcff"
    settings = {"name": odd, "sample": 1000, "native": False, "trace_calls": True, "partial": None,
                "trace": {"include": [odd, "*/src/*.py"], "exclude": [], "max_depth": 0, "min_duration_ns": -7,
                          "c_calls": True, "lines": False}}
    assert _follow.to_json(settings) == json.dumps(settings)
    assert json.loads(_follow.to_json(settings)) == settings
    everything = "".join(map(chr, range(0x11000))) + "".join(map(chr, range(0x10000, 0x110000, 4099)))
    assert _follow.to_json(everything) == json.dumps(everything)
    with pytest.raises(TypeError):
        _follow.to_json({"rate": 1.5})
