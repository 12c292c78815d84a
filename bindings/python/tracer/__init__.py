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
from tracer._profiler import Profiler
from tracer._sampling import start as start_sampling
from tracer._sampling import stop as stop_sampling
from tracer._signpost import signpost
from tracer._tracer import frame_mark, is_connected, message, plot, sampling_stats, set_thread_name, zone

_fork.install()
if os.environ.get("TRACYC_OUTPUT", "-") != "-":
    # the profiler starts at its first use, perhaps after an os.chdir: a relative path
    # means where the program is now
    os.environ["TRACYC_OUTPUT"] = os.path.abspath(os.environ["TRACYC_OUTPUT"])

__all__ = ["Profiler", "frame_mark", "is_connected", "message", "plot", "set_thread_name", "signpost",
           "sampling_stats", "start_sampling", "stop_sampling", "zone"]
