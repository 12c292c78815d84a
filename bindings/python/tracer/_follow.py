"""Following child processes: every Python process a followed program starts is profiled
too, into the same profile (docs/python.md, "Child processes").

The parent puts its profiling options into the environment (TRACER_FOLLOW) and tracer's
_boot directory, which holds a sitecustomize module, in front of PYTHONPATH; the profile's
collector is in the environment too (TRACYC_CONNECT: the in-process capture's own
collector, or a tracyc-capture --listen). Every Python started from then on (multiprocessing's
spawn and forkserver children, a ProcessPoolExecutor's workers, subprocess running Python,
pytest-xdist's workers) imports that sitecustomize at start-up, which calls start_child():
the child starts the profiler, which dials out to the collector, and traces or samples as
the parent does, before the program's first line. A forked child gets the profiler of its
own that the C side starts (TRACYC_FOLLOW_FORK) and continues the parent's tracing from
the fork on (after_fork_in_child).

Why a sitecustomize: it is the one hook every Python runs at start-up, before the program,
whatever starts it (multiprocessing, concurrent.futures, subprocess, execnet), with the
child's own command line, sys.argv and __main__ untouched. The directory is taken out of
sys.path again at once, and the program's own sitecustomize, if any, is imported after
it. Python started with -E, -I or -S reads no PYTHONPATH or no site: not followed.
"""
import os
import sys

from tracer import _imports, _session, _tracer

ENV = "TRACER_FOLLOW"
BOOT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_boot")
# Processes multiprocessing starts for itself, which live until the parent has exited (so a
# collector waiting for them would wait for ever) and run none of the program's code.
_HELPERS = ("from multiprocessing.resource_tracker import main", "from multiprocessing.forkserver import main")

following = False  # this process follows its children
_name = None  # this process's program name in the profile
_real_exit = os._exit


def program_name(argv=None):
    """How a Python process is named in the profile: the script or module it runs (the
    executable is python3 for all of them), "python -c" for a command."""
    args = list(sys.orig_argv if argv is None else argv)[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-m"):
            return arg[2:] or (args[i + 1] if i + 1 < len(args) else "python")
        if arg.startswith("-c"):
            return "python -c"
        if arg in ("-W", "-X", "--check-hash-based-pycs"):
            i += 2
        elif arg.startswith("-") and arg != "-":
            i += 1
        else:
            return os.path.basename(arg)
    return "python"


def name(text):
    """This process's name in the profile (in the welcome: before the profiler connects)."""
    global _name
    _name = text
    _tracer.set_program_name(text.encode()[:63].decode(errors="ignore"))


def settings(process_name, partial=False):
    """What a child needs to be profiled as this process is (see export)."""
    return {"name": process_name, "sample": _session.sample_hz, "native": _session.sample_native,
            "trace_calls": _session.trace_calls, "partial": partial, "trace": dict(_session.options)}


def start_profiler(output):
    """Starts the profiler following forked children (TRACYC_FOLLOW_FORK), into the in-process
    capture of output if given, which then collects the children (TRACYC_CONNECT in the
    environment from now on); the environment otherwise as it was."""
    _with_environment({"TRACYC_FOLLOW_FORK": "1", "TRACYC_OUTPUT": os.path.abspath(output) if output else None},
                      _tracer.startup)


def _with_environment(values, call):
    """call() with the variables of values that are not None set (unless the environment
    has them already), removed again afterwards."""
    added = [var for var, value in values.items() if value is not None and var not in os.environ]
    for var in added:
        os.environ[var] = values[var]
    try:
        call()
    finally:
        for var in added:
            os.environ.pop(var, None)


def export(settings):
    """In the parent, once the profiler has started: when its profile has a collector
    (TRACYC_CONNECT, the in-process capture's or the user's), children inherit the settings
    and the start-up hook, and forked children carry on (see after_fork_in_child). settings: this process's "name", the options of
    _session.configure ("trace"), "sample" (a rate or None), "native", "trace_calls" and
    "partial"."""
    global following
    address = _tracer.collector_address()  # the in-process capture's, set in C's environment
    if address and os.environ.get("TRACYC_CONNECT") != address:
        os.environ["TRACYC_CONNECT"] = address  # (also for env=dict(os.environ))
    if "TRACYC_CONNECT" not in os.environ:
        return  # no collector (none opened, or none given): children have nowhere to go
    following = True
    os.environ[ENV] = to_json(settings)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != BOOT_DIR]
    os.environ["PYTHONPATH"] = os.pathsep.join([BOOT_DIR, *paths])
    _install_hooks()


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def to_json(value):
    """json.dumps(value) for the settings (None, bools, ints, strings, and lists and dicts of
    them), without importing json at every start-up: it imports re (~4 ms together)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, str):
        return '"' + "".join(map(_json_char, value)) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(to_json, value)) + "]"
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return "{" + ", ".join(f"{to_json(key)}: {to_json(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"not a setting a child can be given: {value!r}")


def _json_char(c):
    """One character of a JSON string as json.dumps writes it (ASCII only)."""
    if c in _JSON_ESCAPES:
        return _JSON_ESCAPES[c]
    if " " <= c < "\x7f":
        return c
    code = ord(c)
    if code > 0xFFFF:  # a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"
    return f"\\u{code:04x}"


def _install_hooks():
    os.register_at_fork(after_in_child=after_fork_in_child)
    _name_multiprocessing_processes()


def after_fork_in_child():
    """A forked child of a followed process: when the profiler follows it (a profiler of its
    own, dialling the parent's collector: TRACYC_FOLLOW_FORK), the zones open at the fork
    are the parent's, and tracing (or sampling) goes on in the child from here."""
    if not following:
        return
    # Named first: asking whether the profiler is on starts it, and its worker puts the name
    # it has then in the welcome as soon as it reaches the collector.
    name(f"{_name or program_name()} (fork)")
    if _tracer.disabled():
        return  # the profiler of a forked child it does not follow is inert
    _tracer.forget_zones_after_fork()
    _finish_at_exit()
    if _session.sample_hz:  # the parent's sampler is not the child's
        from tracer import _sampling
        _sampling.start(_session.sample_hz, native=_session.sample_native)


def start_child():
    """In a child Python started with TRACER_FOLLOW (from tracer/_boot/sitecustomize.py):
    profile it as its parent is, into the parent's collector. Quietly nothing when there
    is no collector to go to, or the process is one of multiprocessing's helpers or runs
    tracer's command line itself."""
    import json
    settings = json.loads(os.environ.get(ENV) or "{}")
    if "TRACYC_CONNECT" not in os.environ or program_name() in ("tracer", "tracy"):
        return  # no collector: nowhere to send this one's profile
    argv = sys.orig_argv[1:]
    command = argv[argv.index("-c") + 1] if "-c" in argv[:-1] else ""
    parent = settings.get("name") or "python"
    if command.startswith(_HELPERS[1]):
        # the forkserver runs nothing of the program: the children it forks start their own
        os.register_at_fork(after_in_child=lambda: _start(settings, f"{parent} (multiprocessing)"))
    elif not command.startswith(_HELPERS):
        _start(settings, f"{parent} (multiprocessing)" if "spawn_main" in command else program_name())


def _start(settings, process_name):
    global following
    name(process_name)
    _session.configure(**settings.get("trace", {}))
    _session.cli_active = _session.follower = True
    if settings.get("sample"):
        _session.sample_hz = settings["sample"]
        _session.sample_native = settings.get("native", False)
        _session.trace_calls = settings.get("trace_calls", False)
    os.environ.pop("TRACYC_OUTPUT", None)  # the parent's file: not this process's to write
    _with_environment({"TRACYC_FOLLOW_FORK": "1",  # this one's forked children are followed too
                       # as in the parent: the sampling mode's stacks replace the native samples
                       "TRACY_NO_SAMPLING": "1" if settings.get("sample") and not settings.get("native") else None},
                      _tracer.startup)  # the profiler reads its environment once, now
    following = True
    _install_hooks()
    _finish_at_exit()
    if not settings.get("partial"):
        _session.start()


def _finish_at_exit():
    """A child's profile is sent at its end: at exit, and in os._exit, which multiprocessing's
    fork and forkserver children (and many forked programs) end with."""
    import atexit
    atexit.register(_finish)
    os._exit = _exit


def _finish():
    global following
    if following:
        following = False
        _session.stop()
        _tracer.shutdown()  # what was recorded reaches the collector first


def _exit(status):
    _finish()
    _real_exit(status)


def _name_multiprocessing_processes():
    """A multiprocessing child's main thread is named after its Process (Process-1,
    SpawnProcess-2, the name the program gave) when it starts running it. The patch goes
    into multiprocessing.process when the program imports it (multiprocessing imports it
    with itself), not before: importing it here cost every start-up ~5 ms."""
    _imports.when_imported("multiprocessing.process", _patch_bootstrap)


def _patch_bootstrap(process):
    original = process.BaseProcess._bootstrap
    if getattr(original, "_tracer", False):
        return

    def _bootstrap(self, *args, **kwargs):
        _tracer.set_thread_name(self.name)
        return original(self, *args, **kwargs)
    _bootstrap._tracer = True
    process.BaseProcess._bootstrap = _bootstrap
