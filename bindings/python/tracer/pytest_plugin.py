"""pytest plugin: a profiled test suite reads in Tracy like the run itself.

    pytest -p tracer.pytest_plugin --tracer [--tracer-output trace.json] [--tracer-sample [HZ]]
    python -m tracer [--sample] -m pytest ... (loads this plugin itself)

Each test phase is a zone named by the test's node id ("[setup]" and "[teardown]"
appended for those phases); signposts mark the session's start and end and every
failure.
"""
import os

import pytest

from tracer import _cli, _follow, _sampling, _session, _tracer, signpost, zone

_PHASES = {"setup": zone("pytest setup"), "call": zone("pytest call"), "teardown": zone("pytest teardown")}


def pytest_addoption(parser):
    group = parser.getgroup("tracer", "Tracy profiling (tracer)")
    group.addoption("--tracer", action="store_true", help="trace every Python call of the run into Tracy")
    group.addoption("--tracer-output", metavar="FILE",
                    help="with --tracer: profile in-process and write FILE at exit (.pftrace, .json, .csv, .folded, "
                         ".svg, .txt summary)")
    group.addoption("--tracer-no-follow", action="store_true",
                    help="with --tracer: profile this process only, not the Python processes it starts "
                         "(pytest-xdist's workers, multiprocessing, subprocess running Python)")
    group.addoption("--tracer-sample", nargs="?", const=_sampling.DEFAULT_HZ, type=_cli.sample_rate, metavar="HZ",
                    help="with --tracer: sample every thread's Python stack HZ times per second of CPU time "
                         f"(default {_sampling.DEFAULT_HZ}) instead of tracing every call")


def pytest_configure(config):
    enabled = config.getoption("tracer")
    if not (enabled or _session.cli_active):
        return
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker and not _session.follower:
        return  # an xdist worker its controller does not follow: its profile is nobody's
    if worker:
        _tracer.set_thread_name(f"pytest-xdist {worker}")
    if enabled and not _session.follower:  # (a followed worker's profile is its parent's)
        output = config.getoption("tracer_output")
        if output:
            try:
                _tracer.check_output(output)
            except ValueError as exc:
                raise pytest.UsageError(f"--tracer-output: {exc}") from None
        if config.getoption("tracer_sample"):
            _session.sample_hz = config.getoption("tracer_sample")
            _session.trace_calls = False
        _start(output, follow=not config.getoption("tracer_no_follow"))
    config.pluginmanager.register(_TracedRun(stop_at_end=enabled and not _session.follower), "tracer-run")


def _start(output, follow):
    """Starts the profile (into output, if given) and, with follow, has the processes this one
    starts followed into it (tracer/_follow.py) when there is a collector: output's, or the
    one the profile goes to (TRACYC_CONNECT)."""
    follow = follow and bool(output or os.environ.get("TRACYC_CONNECT"))
    if not _tracer.profiler_started():
        _follow.name("pytest")  # (not python3, as every Python process is)
    if follow and not _tracer.profiler_started():
        _follow.start_profiler(output)
    elif output:
        try:
            _tracer.capture_start(output)
        except RuntimeError as exc:
            raise pytest.UsageError(f"--tracer-output: {exc}") from None
    if follow:
        _follow.export(_follow.settings("pytest"))
    if not _session.active():
        _session.start()


class _TracedRun:
    def __init__(self, stop_at_end):
        self._stop_at_end = stop_at_end

    def pytest_sessionstart(self, session):
        signpost("pytest session start", " ".join(session.config.invocation_params.args))

    def pytest_sessionfinish(self, session, exitstatus):
        signpost("pytest session end", f"exit status {int(exitstatus)}, {session.testsfailed} failed")

    def pytest_terminal_summary(self, terminalreporter):
        # tracer's warnings go to stderr when they happen, which pytest captures per test
        warning = _tracer.budget_warning()
        if warning:
            terminalreporter.write_sep("=", "tracer", yellow=True)
            terminalreporter.write_line(warning, yellow=True)

    def pytest_unconfigure(self, config):
        if self._stop_at_end:
            _session.stop()

    def pytest_runtest_logreport(self, report):
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            reason = crash.message if crash else str(report.longrepr).splitlines()[-1:]
            signpost(f"test failed: {report.nodeid}", f"{report.when}: {reason}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from _phase("setup", f"{item.nodeid} [setup]")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from _phase("call", item.nodeid)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from _phase("teardown", f"{item.nodeid} [teardown]")


def _phase(phase, name):
    with _PHASES[phase] as z:
        z.set_name(name)
        yield
