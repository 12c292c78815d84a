"""The sampling mode's Python side (the sampler itself is C: see docs/python.md, "Sampling").

While sampling runs: threads started through threading are named in the profile (the
sampler sees threads, not their threading.Thread), signal.signal(SIGURG, ...) keeps the
sampler's handler in front of the program's, and the samples are all recorded at exit,
before the interpreter shuts down. A forked child does not sample unless it starts again.

Every thread is named before the sampler can meet it: a thread's name is asked for once,
when its first sample arrives, so a name given after that would never reach the profile.
"""
import atexit
import functools
import os
import signal
import threading

from tracer import _filters, _tracer

DEFAULT_HZ = 1000
MAX_HZ = 10000

_hooks_installed = False
_original_bootstrap = threading.Thread._bootstrap_inner
_original_signal = signal.signal


@functools.wraps(_original_bootstrap)
def _bootstrap(self):
    """The first thing a thread started through threading does, from just before sampling
    starts until it stops: say its name, before the sampler can meet it."""
    _tracer.name_thread(threading.get_native_id(), self.name)
    return _original_bootstrap(self)


@functools.wraps(_original_signal)
def _signal(signalnum, handler):
    if signalnum != signal.SIGURG or not _tracer.sampling_rate():
        return _original_signal(signalnum, handler)
    _tracer._sampling_signal_guard(True)
    try:
        return _original_signal(signalnum, handler)
    finally:
        _tracer._sampling_signal_guard(False)


def _install():
    global _hooks_installed
    if threading.Thread._bootstrap_inner is _original_bootstrap:
        threading.Thread._bootstrap_inner = _bootstrap
    if signal.signal is _original_signal:
        signal.signal = _signal
    if not _hooks_installed:
        _hooks_installed = True
        atexit.register(stop)
        os.register_at_fork(after_in_child=_uninstall)


def _uninstall():
    if threading.Thread._bootstrap_inner is _bootstrap:
        threading.Thread._bootstrap_inner = _original_bootstrap
    if signal.signal is _signal:
        signal.signal = _original_signal


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
        for thread in threading.enumerate():
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
