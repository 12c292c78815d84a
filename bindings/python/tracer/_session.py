"""The profiling options of this process, shared by the CLI, Profiler and the pytest plugin:
automatic tracing (a zone per call), sampling, or both. tracer._sampling is imported when
the session samples, not by every start-up."""
from tracer import _filters, _tracer

# True while `python -m tracer` runs the program (the pytest plugin then needs no flag),
# and in a child process it follows.
cli_active = False
# True in a child process followed from its parent's profile (tracer/_follow.py): the
# profile and its file are the parent's.
follower = False
# Samples per second when the session samples (--sample), else None; and whether the
# profiler's native samples stay on too (--native-samples).
sample_hz = None
sample_native = False
# Whether the session traces calls (off under --sample unless --include chose files).
trace_calls = True
_configured = False


# The options configure() was given, for the children that follow (tracer/_follow.py).
options = {}


def configure(**given):
    """Sets tracing options (see _tracer.configure) with the default filters."""
    global _configured
    _tracer.configure(skip_dirs=_filters.skip_dirs(), own_dirs=_filters.own_dirs(), **given)
    options.update(given)
    _configured = True


def start():
    """Starts what the session profiles. False when the profiler is disabled
    (TRACYC_DISABLE=1)."""
    if not _configured:
        configure()
    started = _tracer.start() if trace_calls else False
    if sample_hz:
        from tracer import _sampling
        started = _sampling.start(sample_hz, native=sample_native) or started
    return started


def stop():
    if trace_calls:
        _tracer.stop()
    if sample_hz:
        from tracer import _sampling
        _sampling.stop()


def active():
    """Tracing or sampling runs."""
    return _tracer.is_tracing() or _tracer.sampling_rate() != 0  # (as _sampling.is_sampling)
