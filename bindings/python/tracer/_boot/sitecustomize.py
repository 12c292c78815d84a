"""Imported at start-up by every Python started from a program that tracer profiles and
that follows its children (this directory is put in front of PYTHONPATH: see
tracer/_follow.py). It leaves the process as it would be without it, then has tracer
profile it: this directory goes out of sys.path, the sitecustomize that would have been
imported is imported, and tracer starts (when it can be imported: a Python of another
version than the extension's is left alone)."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_self = sys.modules.pop("sitecustomize")
try:
    import sitecustomize  # noqa: F401  (the program's or the system's own, if any)
except ImportError as exc:
    if exc.name != "sitecustomize":
        raise
    sys.modules["sitecustomize"] = _self  # there is none other (the import system wants one)


def _follow():
    package_parent = os.path.dirname(os.path.dirname(_here))
    added = package_parent not in sys.path
    if added:
        sys.path.append(package_parent)
    try:
        from tracer import _follow
    except ImportError:
        return  # tracer is not built for this Python
    finally:
        if added:
            sys.path.remove(package_parent)
    _follow.start_child()


if os.environ.get("TRACER_FOLLOW") is not None and os.environ.get("TRACYC_CONNECT"):
    _follow()
del _follow, _here, _self
