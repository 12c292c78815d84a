"""os.fork() on 3.12+ warns when the process has more than one thread ("This process is
multi-threaded, use of fork() may lead to deadlocks in the child"), counting the threads
the kernel lists. tracer's own threads (the profiler's worker, CPU sampler and symbol
resolver, the sampling mode's thread) must not add that warning to a program that plain
Python would not warn about, and a program with threads of its own must still get it.

So while os.fork() runs, and only then, warnings.filters has one entry more, in front: it
ignores that warning exactly when every thread but the forking one is tracer's, decided
when the warning is given from the threads the kernel lists and the ids of tracer's own.
The entry goes in before the fork, only while tracer has threads, and out as soon as it
has served, so that the program never sees it (CPython's regrtest compares
warnings.filters around every test): the warning itself takes it out (3.13 warns after
the after-fork hooks), else the after-fork hook does (3.12 warns before it; the child gets
no warning). When the program has threads of its own, the entry, already out, gives the
warning again exactly as CPython gave it, to the filters the program has. Neither change
calls warnings._filters_mutated(): no registry of warnings already shown is reset."""
import os
import sys

from tracer import _tracer

# (re, threading and warnings are imported when a fork warns or its hooks run, not at
# start-up, where they would cost every program ~2 ms)
_TEXT = r"This process \(pid=\d+\) is multi-threaded, use of \w+\(\) may lead to deadlocks"


def _only_tracer_threads():
    """Every thread but the calling one is tracer's (listed first: a thread of tracer's
    that starts meanwhile is among its own by the time they are asked)."""
    try:
        listed = os.listdir("/proc/self/task")
    except OSError:
        return False
    import threading
    own = _tracer._own_threads()
    me = threading.get_native_id()
    return all(int(tid) == me or int(tid) in own for tid in listed)


class _ForkWarningCausedByTheProfiler:
    """The `message` of a warnings filter: warnings calls match(text)."""

    def match(self, text):
        import re
        if not re.match(_TEXT, text):
            return False
        _remove()  # served: the program never sees it
        if not _only_tracer_threads():
            # Warned as plain Python warns. The entry is out of the list the interpreter is
            # going through, so this one is ignored and the warning given again; removing
            # it and answering no would skip the filter after it.
            import warnings
            frame = sys._getframe(1)  # the code that called os.fork(), where CPython warned
            registry = frame.f_globals.setdefault("__warningregistry__", {})
            warnings.warn_explicit(text, DeprecationWarning, frame.f_code.co_filename, frame.f_lineno,
                                   frame.f_globals.get("__name__", "<string>"), registry)
        return True

    def __repr__(self):
        return "<tracer: the fork warning its own threads would cause>"


_ENTRY = ("ignore", _ForkWarningCausedByTheProfiler(), DeprecationWarning, None, 0)


def _remove():
    import warnings
    filters = warnings.filters
    for i, item in enumerate(filters):
        if item is _ENTRY:
            del filters[i]
            return


def _before_fork():
    import warnings
    _remove()
    if _tracer._own_threads():
        warnings.filters.insert(0, _ENTRY)


def _after_fork_in_parent():
    if sys.version_info < (3, 13):  # 3.13 warns after this hook: the entry is still needed
        _remove()


def install():
    if sys.version_info >= (3, 12):
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_remove)
