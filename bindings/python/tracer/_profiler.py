"""Profiler: automatic tracing of a region of the program, as in tt-metal's tracy module."""
from tracer import _session


class Profiler:
    """Traces every Python call on every thread between enable() and disable(), or
    inside a `with Profiler():` block; under `python -m tracer --sample --partial` (or
    pytest's --tracer-sample), samples every thread's stack there instead.

    Under `python -m tracer` without --partial the whole program is traced already, and
    enable()/disable() do nothing. disable() closes the function zones still open on the
    calling thread at once; other threads close theirs at their next call or return.
    As with any profile hook, only calls entered after enable() are seen, so enable the
    profiler around a call rather than inside the function to profile.
    """

    def __init__(self):
        self._started = False

    def enable(self):
        if not self._started and not _session.active():
            self._started = _session.start()

    def disable(self):
        if self._started:
            self._started = False
            _session.stop()

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc):
        self.disable()
        return False
