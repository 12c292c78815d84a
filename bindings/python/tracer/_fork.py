"""os.fork() on 3.12+ warns when the process has more than one thread ("This process is
multi-threaded, use of fork() may lead to deadlocks in the child"), counting the threads
the kernel lists. The profiler's worker thread must not add that warning to a program that
plain Python would not warn about, and a program with threads of its own must still get it.

So a filter ignores that warning exactly when the forking thread and tracer's own threads
(the profiler's worker, and the sampler's thread while sampling) are the process's only
threads, decided when the warning is given. Each fork moves the
filter to the front of warnings.filters, ahead of filters the program (or pytest) added
since, and leaves it there: 3.12 warns before the after-fork hooks run, 3.13 after them.
It is put in place without warnings._filters_mutated(), so no registry of warnings already
shown is reset, and it never matches any other warning."""
import os
import re
import sys
import warnings

from tracer import _tracer


class _ForkWarningCausedByTheProfiler:
    """The `message` of a warnings filter: warnings calls match(text)."""

    _TEXT = re.compile(r"This process \(pid=\d+\) is multi-threaded, use of \w+\(\) may lead to deadlocks")

    def match(self, text):
        own = _tracer._own_threads()  # the profiler's worker, the sampler's thread
        if not self._TEXT.match(text) or not own:
            return False
        try:
            return len(os.listdir("/proc/self/task")) == 1 + own  # this thread and tracer's
        except OSError:
            return False

    def __repr__(self):
        return "<tracer: the fork warning its own worker thread would cause>"


_ENTRY = ("ignore", _ForkWarningCausedByTheProfiler(), DeprecationWarning, None, 0)


def _remove(filters):
    for i, item in enumerate(filters):
        if item is _ENTRY:
            del filters[i]
            return


def _before_fork():
    _remove(warnings.filters)
    warnings.filters.insert(0, _ENTRY)


def _in_child():
    _remove(warnings.filters)


def install():
    if sys.version_info >= (3, 12):
        os.register_at_fork(before=_before_fork, after_in_child=_in_child)
