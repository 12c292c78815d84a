"""Which files automatic tracing leaves out by default: the standard library and
site-packages (users of every Python profiler ask for that), and tracer itself."""
import os
import site


def _as_dir(path):
    return os.path.join(os.path.abspath(path), "")


def skip_dirs():
    """The standard library and site-packages directories, as given and resolved."""
    import sysconfig  # (not at every `import tracer`: only the tracing mode needs it)
    paths = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
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
