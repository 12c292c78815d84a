"""The sampling mode's Python side (the sampler itself is C: see docs/python.md, "Sampling").

While sampling runs: threads started through threading are named in the profile (the
sampler sees threads, not their threading.Thread), signal.signal(SIGURG, ...) keeps the
sampler's handler in front of the program's, and the samples are all recorded at exit,
before the interpreter shuts down. A forked child does not sample unless it starts again.

Every thread is named before the sampler can meet it: a thread's name is asked for once,
when its first sample arrives, so a name given after that would never reach the profile.
"""
import atexit
import os
import sys

from tracer import _filters, _imports, _tracer

DEFAULT_HZ = 1000
MAX_HZ = 10000

_hooks_installed = False
_patching = False  # while sampling: threading and signal are patched when imported
_patched = {}  # "bootstrap" (Thread._bootstrap_inner), "signal" (signal.signal): (original, patch)


def _patch_threading(threading):
    """Threads started through threading, from just before sampling starts until it stops,
    say their name first thing, before the sampler can meet them."""
    import functools
    original = threading.Thread._bootstrap_inner
    if not _patching or "bootstrap" in _patched:
        return

    @functools.wraps(original)
    def _bootstrap_inner(self):
        _tracer.name_thread(threading.get_native_id(), self.name)
        return original(self)
    _patched["bootstrap"] = original, _bootstrap_inner
    threading.Thread._bootstrap_inner = _bootstrap_inner


def _patch_signal(signal):
    """signal.signal(SIGURG, ...) keeps the sampler's handler in front of the program's."""
    import functools
    original = signal.signal
    if not _patching or "signal" in _patched:
        return

    @functools.wraps(original)
    def _signal(signalnum, handler):
        if signalnum != signal.SIGURG or not _tracer.sampling_rate():
            return original(signalnum, handler)
        _tracer._sampling_signal_guard(True)
        try:
            return original(signalnum, handler)
        finally:
            _tracer._sampling_signal_guard(False)
    _patched["signal"] = original, _signal
    signal.signal = _signal


def _install():
    """The patches, now or when the program imports threading and signal (tracer's start-up
    imports neither: ~2 ms of every start)."""
    global _hooks_installed, _patching
    _patching = True
    _imports.when_imported("threading", _patch_threading)
    _imports.when_imported("signal", _patch_signal)
    if not _hooks_installed:
        _hooks_installed = True
        atexit.register(stop)
        os.register_at_fork(after_in_child=_uninstall)


def _uninstall():
    global _patching
    _patching = False
    if "bootstrap" in _patched:
        original, patch = _patched.pop("bootstrap")
        thread = sys.modules["threading"].Thread
        if thread._bootstrap_inner is patch:
            thread._bootstrap_inner = original
    if "signal" in _patched:
        original, patch = _patched.pop("signal")
        signal = sys.modules["signal"]
        if signal.signal is patch:
            signal.signal = original


def _launcher_files():
    """tracer's command line: its frames, and runpy's below them, are not the program's."""
    files = []
    for package, names in zip(_filters.own_packages(), (("__main__.py", "_run.py"), ("__main__.py",))):
        for name in names:
            path = os.path.join(package, name)
            files += [path, os.path.realpath(path)]
    return sorted(set(files))


def _start_profiler_without_native_samples():
    """The profiler's own CPU sampling (perf callstacks of the interpreter's C code,
    docs/callstacks.md) would sample the same threads again: the profiler starts without it
    (its context switches stay on). A profiler already running keeps it: pausing it
    (___tracy_end_sampling_profiling) would stop its context switches too."""
    if _tracer.profiler_started() or "TRACY_NO_SAMPLING" in os.environ:
        return
    os.environ["TRACY_NO_SAMPLING"] = "1"
    try:
        _tracer.startup()  # reads its environment once, now
    finally:
        del os.environ["TRACY_NO_SAMPLING"]


def start(hz=DEFAULT_HZ, native=False):
    """Samples the Python stack of every thread hz times per second of its CPU time. The
    profiler's native CPU samples stay off unless native=True (or the profiler already ran).
    False when the profiler is disabled (TRACYC_DISABLE=1)."""
    if not native:
        _start_profiler_without_native_samples()
    if not is_sampling():  # threads starting from now on name themselves; those running are named now
        _install()
        threading = sys.modules.get("threading")  # (without it, no thread of threading's runs)
        for thread in threading.enumerate() if threading else ():
            if thread.native_id is not None and thread is not threading.main_thread():
                _tracer.name_thread(thread.native_id, thread.name)
    own = os.path.abspath(__file__)
    try:
        started = _tracer.start_sampling(hz, hide_below=_launcher_files(),
                                         hide_frame=sorted({own, os.path.realpath(own)}))
    except BaseException:
        if not is_sampling():
            _uninstall()
        raise
    if not started:
        _uninstall()
    return started


def stop():
    """Stops sampling; every sample taken so far is recorded."""
    _tracer.stop_sampling()
    _uninstall()


def is_sampling():
    return _tracer.sampling_rate() != 0
