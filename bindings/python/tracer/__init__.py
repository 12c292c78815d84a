"""tracer - Tracy profiling for Python, in C.

    python -m tracer script.py             every Python call becomes a Tracy zone
    from tracer import zone, signpost       manual zones and tt-metal-style signposts

See docs/python.md.
"""
from tracer import _fork
from tracer._profiler import Profiler
from tracer._signpost import signpost
from tracer._tracer import frame_mark, is_connected, message, plot, set_thread_name, zone

_fork.install()

__all__ = ["Profiler", "frame_mark", "is_connected", "message", "plot", "set_thread_name", "signpost", "zone"]
