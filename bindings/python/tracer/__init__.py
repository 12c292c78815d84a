"""tracer - Tracy profiling for Python, in C.

    python -m tracer script.py             every Python call becomes a Tracy zone
    python -m tracer --sample script.py    every thread's Python stack sampled 1000 times a second
    from tracer import zone, signpost       manual zones and tt-metal-style signposts

See docs/python.md.
"""
import os
import sys

try:  # first: every module below needs it
    from tracer import _tracer  # noqa: F401
except ImportError as exc:
    raise ImportError(f"tracer's C extension is not built for this Python ({sys.executable}): run "
                      f"`{os.path.basename(sys.executable)} setup.py build_ext --inplace` in the tracyc checkout, "
                      f"or install the package ({exc})") from exc
from tracer import _fork
from tracer._tracer import frame_mark, is_connected, message, plot, sampling_stats, set_thread_name, zone

# Imported at their first use, not by every start-up of `python -m tracer` (which needs none of them).
_LAZY = {"Profiler": ("_profiler", "Profiler"), "start_sampling": ("_sampling", "start"),
         "stop_sampling": ("_sampling", "stop"), "signpost": ("_signpost", "signpost")}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'tracer' has no attribute {name!r}")
    import importlib
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(f"tracer.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


_fork.install()
if os.environ.get("TRACYC_OUTPUT", "-") != "-":
    # the profiler starts at its first use, perhaps after an os.chdir: a relative path
    # means where the program is now
    os.environ["TRACYC_OUTPUT"] = os.path.abspath(os.environ["TRACYC_OUTPUT"])

__all__ = ["Profiler", "frame_mark", "is_connected", "message", "plot", "set_thread_name", "signpost",
           "sampling_stats", "start_sampling", "stop_sampling", "zone"]
