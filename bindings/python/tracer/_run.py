"""Running the program as plain `python` would: same sys.argv, sys.path[0], __main__,
exit code, and uncaught exceptions reported through sys.excepthook without our frames."""
import builtins
import importlib.machinery
import importlib.util
import io
import os
import runpy
import sys
import types

from tracer import _filters

_OWN_FILES = (*(os.path.join(d, "") for d in _filters.own_packages()), runpy.__file__)


def _fresh_main(path=None):
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    if "__annotations__" in vars(sys.modules["__main__"]):  # the interpreter's own __main__ has one (3.11-3.13)
        main.__annotations__ = {}
    if path:
        main.__file__ = path
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
        main.__cached__ = None
    sys.modules["__main__"] = main
    return main


def check_script(script):
    """What python finds out before running anything of a script: when it cannot run it,
    the same message and exit status (and, nothing of the program having run, no profile)."""
    path = os.path.abspath(script)
    if os.path.isdir(path) or not path.endswith(".py") and _is_zip(path):
        if importlib.machinery.PathFinder.find_spec("__main__", [path]) is None:
            _cannot_run(f"can't find '__main__' module in {path!r}", 1)
        return
    try:
        with io.open_code(path):
            pass
    except OSError as exc:
        _cannot_run(f"can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}", 2)


def check_module(module):
    """The same for -m module, as far as it goes without running any of the program's code:
    a module whose top-level package is there may still be missing, which python (and
    runpy under tracer) finds out once that package's code has run."""
    top = module.partition(".")[0]
    try:
        if top and importlib.util.find_spec(top) is not None:
            return
    except (ImportError, ValueError):
        pass
    try:
        runpy._get_module_details(module, runpy._Error)  # fails at once, importing nothing
    except runpy._Error as exc:
        _cannot_run(str(exc), 1)


def _cannot_run(message, status):
    sys.stderr.write(f"{sys.executable}: {message}\n")
    raise SystemExit(status)


def run_script(script, args):
    path = os.path.abspath(script)
    sys.argv = [script, *args]
    if os.path.isdir(path) or not path.endswith(".py") and _is_zip(path):
        sys.path[0] = path
        _fresh_main()
        runpy._run_module_as_main("__main__", alter_argv=False)
        return
    try:
        with io.open_code(path) as f:
            source = f.read()
    except OSError as exc:  # gone since check_script
        _cannot_run(f"can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}", 2)
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    main = _fresh_main(path)
    code = compile(source, path, "exec", dont_inherit=True)
    exec(code, main.__dict__)


def _is_zip(path):
    import zipfile
    return os.path.isfile(path) and zipfile.is_zipfile(path)


def run_module(module, args):
    sys.argv = [module, *args]
    _fresh_main()
    runpy._run_module_as_main(module, alter_argv=True)


def report_uncaught(exc):
    """What the interpreter does with an uncaught exception, minus tracer's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_OWN_FILES):
        tb = tb.tb_next
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)  # printing uses exc.__traceback__
