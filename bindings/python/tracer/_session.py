"""The tracing options of this process, shared by the CLI, Profiler and the pytest plugin."""
from tracer import _filters, _tracer

# True while `python -m tracer` runs the program (the pytest plugin then needs no flag).
cli_active = False
_configured = False


def configure(**options):
    """Sets tracing options (see _tracer.configure) with the default filters."""
    global _configured
    _tracer.configure(skip_dirs=_filters.skip_dirs(), own_dirs=_filters.own_dirs(), **options)
    _configured = True


def start():
    """Starts automatic tracing. False when the profiler is disabled (TRACYC_DISABLE=1)."""
    if not _configured:
        configure()
    return _tracer.start()
