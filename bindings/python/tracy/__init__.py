"""tracy - tt-metal's Python profiling commands, served by tracer.

    python -m tracy [-p] [-l] [-t PORT] (script.py | -m module) [args ...]
    from tracy import signpost, Profiler

The same options, signposts and Profiler as tt-metal's `tracy` module, with tracer's C
hook behind them (see docs/python.md, "Coming from tt-metal"). Everything tracer exports
is here too.
"""
from tracer import *  # noqa: F401,F403 - the whole tracer API, under tt-metal's name
from tracer import Profiler, __all__, signpost  # noqa: F401
