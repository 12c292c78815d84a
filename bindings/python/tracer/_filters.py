"""Which files automatic tracing leaves out by default: the standard library and
site-packages (users of every Python profiler ask for that), and tracer itself."""
import os
import site
import sys


def _as_dir(path):
    return os.path.join(os.path.abspath(path), "")


def _stdlib_dirs():
    """sysconfig's stdlib and platstdlib, without importing sysconfig (2.4-3.8 ms of every
    traced start-up, most of it its build-time variables): the directory os.py came from,
    and platstdlib as sysconfig's posix scheme puts it."""
    if not getattr(os, "__file__", None):  # (a frozen os that does not know where it is)
        import sysconfig
        return {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib")}
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return {os.path.dirname(os.__file__), os.path.join(sys.exec_prefix, sys.platlibdir, version)}


def skip_dirs():
    """The standard library and site-packages directories, as given and resolved.
    site.getsitepackages() holds sysconfig's purelib and platlib: both are made from
    sys.prefix and sys.exec_prefix alike."""
    paths = _stdlib_dirs()
    paths.update(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        paths.add(site.getusersitepackages())
    dirs = {_as_dir(p) for p in paths} | {_as_dir(os.path.realpath(p)) for p in paths}
    return sorted(dirs)


def own_packages():
    """tracer's own package and its tt-metal-named twin `tracy`, beside it."""
    here = os.path.dirname(os.path.abspath(__file__))
    return here, os.path.join(os.path.dirname(here), "tracy")


def own_dirs():
    """tracer's own packages: their frames are machinery, never part of the program."""
    return sorted({_as_dir(d) for d in own_packages()} | {_as_dir(os.path.realpath(d)) for d in own_packages()})
