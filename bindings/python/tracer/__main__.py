"""python -m tracer [options] (script.py | -m module) [args ...]"""
import _signal  # signal without its enums: importing signal imports enum (~1.5 ms of every start)
import atexit
import os
import sys

from tracer import _cli, _follow, _run, _session, _tracer


def _follows(options):
    """Children are followed into a collector: the in-process capture's own (-o), or one the
    profile goes to already (TRACYC_CONNECT, e.g. tracyc-capture --listen)."""
    return not options.no_follow and bool(options.output or os.environ.get("TRACYC_CONNECT"))


def _start_profiler(options, prog):
    """Starts the profiler with the CLI's settings, leaving the program's environment as it was
    (but for what children are followed with: TRACYC_CONNECT and tracer/_follow.py's)."""
    follow = _follows(options)
    settings = {"TRACY_PORT": str(options.port) if options.port is not None else None,
                # with -o the in-process capture, started with the profiler, opens a collector
                # for the children (TRACYC_CONNECT in the environment), and forked children
                # get a profiler of their own that dials it
                "TRACYC_OUTPUT": os.path.abspath(options.output) if follow and options.output else None,
                "TRACYC_FOLLOW_FORK": "1" if follow else None,
                "TRACY_NO_EXIT": "1" if options.wait else None,
                # the sampling mode's Python stacks replace the profiler's native samples of
                # the interpreter, unless asked for both (or the user set it)
                "TRACY_NO_SAMPLING": "1" if options.sample and not options.native_samples
                and "TRACY_NO_SAMPLING" not in os.environ else None}
    saved = {name: os.environ.get(name) for name in settings}
    for name, value in settings.items():
        if value is not None:
            os.environ[name] = value
    _tracer.startup()  # reads the environment once, now
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if options.output and not follow:
        try:
            _tracer.capture_start(options.output)
        except RuntimeError as exc:
            sys.exit(f"{prog}: {exc}")


def _stdout_takes_a_summary():
    """The summary goes to stdout only while the program keeps it open and someone reads
    it: a profiler adds no output (nor errors) to a program that has closed its streams.
    The program's own pending output is flushed first, to come before the summary."""
    if sys.stdout is None or sys.stdout.closed:
        return False
    try:
        sys.stdout.flush()
        import select
        poller = select.poll()
        poller.register(1, select.POLLOUT)
        return not any(events & (select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0))
    except (OSError, ValueError):
        return False  # a broken pipe, or fd 1 closed


def _finish(options, pid):
    """At exit: stop tracing, and with nowhere else for the profile to go, print a summary."""
    if os.getpid() != pid:
        return  # a forked child: the profile belongs to the parent
    _tracer.stop()
    sampling = sys.modules.get("tracer._sampling")  # (imported by whatever started sampling)
    if sampling:
        sampling.stop()  # every sample taken goes into the profile
    if not options.output and not options.wait and not _tracer.is_connected() and _stdout_takes_a_summary():
        try:
            _tracer.capture_start("-")
        except RuntimeError:
            pass  # a capture is running already (TRACYC_OUTPUT), or the profiler is disabled
    _tracer.shutdown()
    if getattr(options, "interrupted", False):
        _die_of_sigint()


def _die_of_sigint():
    """What Python does after the traceback of an uncaught KeyboardInterrupt and its exit
    handlers: die of SIGINT, so that a shell or parent sees the interruption. _finish runs
    as the last exit handler (registered before the program's)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except (OSError, ValueError):
            pass
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    os.kill(os.getpid(), _signal.SIGINT)


def _write_profile_on_sigterm(options, pid):
    """SIGTERM is how programs are stopped the normal way: unless the program handles it
    itself, the profile is written (saying it was cut short) before the process dies of
    SIGTERM, as it would without tracer. Forked children get the default back."""
    if _signal.getsignal(_signal.SIGTERM) != _signal.SIG_DFL:
        return

    def on_sigterm(signum, frame):
        # (with --wait and no server the profile has nowhere to go: do not wait for one)
        if os.getpid() == pid and not (options.wait and not _tracer.is_connected()):
            _tracer.warning("tracer: the program was stopped by SIGTERM; the profile ends here")
            _finish(options, pid)
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        os.kill(os.getpid(), _signal.SIGTERM)

    def in_child():
        if _signal.getsignal(_signal.SIGTERM) is on_sigterm:
            _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)

    _signal.signal(_signal.SIGTERM, on_sigterm)
    os.register_at_fork(after_in_child=in_child)


def main(argv, prog="python -m tracer"):
    options, module, script, args = _cli.parse(argv, prog)
    if module:  # a program python cannot run fails as under python, before anything is profiled
        _run.check_module(module)
    else:
        _run.check_script(script)
    name = module or os.path.basename(script)
    _follow.name(name)
    _start_profiler(options, prog)
    _session.configure(c_calls=not options.no_c_calls, lines=options.lines, max_depth=options.max_depth,
                       min_duration_ns=options.min_duration, include=options.include, exclude=options.exclude)
    _session.cli_active = True
    if options.sample:
        _session.sample_hz = options.sample
        _session.sample_native = options.native_samples
        _session.trace_calls = bool(options.include)
    if _follows(options):
        _follow.export(_follow.settings(name, partial=options.partial))
    if module == "pytest":
        plugins = os.environ.get("PYTEST_PLUGINS")
        os.environ["PYTEST_PLUGINS"] = f"{plugins},tracer.pytest_plugin" if plugins else "tracer.pytest_plugin"
    atexit.register(_finish, options, os.getpid())
    _write_profile_on_sigterm(options, os.getpid())
    if not options.partial:
        _session.start()
    try:
        if module:
            _run.run_module(module, args)
        else:
            _run.run_script(script, args)
    except SystemExit:
        raise
    except BaseException as exc:
        _run.report_uncaught(exc)
        if isinstance(exc, KeyboardInterrupt):
            options.interrupted = True  # _finish ends the process as Python does
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
