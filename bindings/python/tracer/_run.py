"""Running the program as plain `python` would: same sys.argv, sys.path[0], __main__,
exit code, and uncaught exceptions reported through sys.excepthook without our frames."""
import builtins
import importlib.machinery
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


def run_script(script, args):
    """Exit status 2 with Python's own message when the script cannot be opened."""
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
    except OSError as exc:
        sys.stderr.write(f"{sys.executable}: can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}\n")
        raise SystemExit(2)
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
