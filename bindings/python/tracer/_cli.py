"""The command line of `python -m tracer`: options first, then the program.

Options spelled out one by one, each value its own argument (`-o out.json --sample 500`),
are read here; argparse reads everything else (`--output=x`, `-pl`, abbreviations, a value
starting with '-', -h) and gives the help and every usage error, so that both read the
same command line alike. argparse is imported only then: it imports re, gettext, locale
and shutil, which with building its parser cost every start-up ~5 ms. tracer._sampling
(its rates) is imported only for --sample."""
from tracer import _tracer

# Options that take a value, so the program's own arguments can be told apart.
_VALUED = {"-o", "--output", "-t", "--port", "--include", "--exclude", "--max-depth", "--min-duration"}
_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_SUFFIXES = sorted(_UNITS, key=len, reverse=True)  # "ms" before "s"


def _type_error(message):
    import argparse
    return argparse.ArgumentTypeError(message)


def duration_ns(text):
    """'250us', '1.5ms', '2s', '800ns'; a bare number is microseconds."""
    stripped = text.strip()
    unit = next((u for u in _SUFFIXES if stripped.endswith(u)), None)
    number = stripped[:-len(unit)].rstrip() if unit else stripped
    # [0-9]*\.?[0-9]+ : ASCII digits, at most one point, a digit last
    if not (number and number[-1] in "0123456789" and number.count(".") <= 1
            and all(c in "0123456789." for c in number)):
        raise _type_error(f"not a duration: {text!r} (try 100us, 2ms, 1s)")
    return int(float(number) * _UNITS[unit or "us"])


def looks_like_number(text):
    """What may follow --sample as its rate: anything number-like ([-+]?(\\d+\\.?\\d*|\\.\\d+)
    ([eE][-+]?\\d+)?), so that a bad rate is an error rather than the name of the program."""
    if text[:1] in ("+", "-"):
        text = text[1:]
    mantissa, e, exponent = text.partition("e") if "e" in text else text.partition("E")
    if e:
        if exponent[:1] in ("+", "-"):
            exponent = exponent[1:]
        if not exponent.isdecimal():
            return False
    digits = mantissa.replace(".", "", 1)
    return digits.isdecimal()


def sample_rate(text):
    """--sample HZ: samples per second, 1 to 10000."""
    from tracer import _sampling
    try:
        hz = int(text)
    except ValueError:
        raise _type_error(f"not a sampling rate: {text!r} (a whole number of samples per second, "
                          f"1 to {_sampling.MAX_HZ})") from None
    if not 1 <= hz <= _sampling.MAX_HZ:
        raise _type_error(f"the sampling rate must be between 1 and {_sampling.MAX_HZ} samples per "
                          f"second (default {_sampling.DEFAULT_HZ}), not {hz}")
    return hz


def output_path(text):
    """-o FILE: a name whose format the in-process capture writes."""
    try:
        _tracer.check_output(text)
    except ValueError as exc:
        raise _type_error(str(exc)) from None
    return text


def _parser(prog):
    import argparse

    from tracer import _sampling

    class NoReport(argparse.Action):
        """tt-metal's -r (capture plus ops report) needs tt-metal's own tools."""

        def __call__(self, parser, namespace, values, option_string=None):
            parser.error("-r (tt-metal's capture and ops report) is not part of tracer: run tracyc-capture -o "
                         "profile.json (or upstream's tracy-capture -o profile.tracy) next to the program; signposts "
                         "keep tt-metal's format for its report tools")

    p = argparse.ArgumentParser(
        prog=prog, usage=f"{prog} [options] (script.py | -m module) [args ...]",
        description="Run a Python program with every call recorded as a Tracy zone, or with the Python stack of "
                    "every thread sampled (--sample). With no -o and no Tracy server connected, a summary of the "
                    "top zones and sampled functions is printed at exit.")
    p.add_argument("-p", "--partial", action="store_true",
                   help="trace only between Profiler().enable() and disable()")
    p.add_argument("-l", "--lines", action="store_true", help="line-level zones (needs --partial)")
    p.add_argument("--sample", nargs="?", const=_sampling.DEFAULT_HZ, type=sample_rate, metavar="HZ",
                   help=f"sample every thread's Python stack HZ times per second of its CPU time (default "
                        f"{_sampling.DEFAULT_HZ}) instead of tracing every call; with --include, also trace "
                        "the calls of those files")
    p.add_argument("--native-samples", action="store_true",
                   help="with --sample: keep the profiler's native CPU samples (the interpreter's C stacks) too")
    p.add_argument("-o", "--output", metavar="FILE", type=output_path,
                   help="profile in-process, no server: write FILE at exit (.pftrace Perfetto trace, "
                        ".json Chrome trace, .csv zone statistics, .folded sampled stacks, .svg their flame graph, "
                        ".txt or no extension a text summary)")
    p.add_argument("-t", "--port", type=int, metavar="N",
                   help="listen for the Tracy server on port N (default 8086)")
    p.add_argument("-r", nargs=0, action=NoReport, help=argparse.SUPPRESS)
    p.add_argument("--wait", action="store_true",
                   help="at exit, wait until a Tracy server has connected and received everything")
    p.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="trace only files whose absolute path matches GLOB (repeatable); "
                        "overrides the default of leaving out the standard library and site-packages")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="never trace files whose absolute path matches GLOB (repeatable)")
    p.add_argument("--max-depth", type=int, default=0, metavar="N", help="record at most N nested calls")
    p.add_argument("--min-duration", type=duration_ns, default=0, metavar="TIME",
                   help="drop zones shorter than TIME (e.g. 50us, 1ms; a bare number is µs)")
    p.add_argument("--no-c-calls", action="store_true", help="no zones for calls of C functions")
    p.add_argument("--no-follow", action="store_true",
                   help="profile this process only, not the Python processes it starts (multiprocessing, "
                        "concurrent.futures, subprocess running Python): by default they are followed into the "
                        "same profile")
    return p


class Options:
    """The options of the command line, as argparse's parser gives them."""

    def __init__(self):
        self.partial = self.lines = self.native_samples = self.wait = self.no_c_calls = self.no_follow = False
        self.sample = self.output = self.port = None
        self.include, self.exclude = [], []
        self.max_depth = self.min_duration = 0


_FLAGS = {"-p": "partial", "--partial": "partial", "-l": "lines", "--lines": "lines",
          "--native-samples": "native_samples", "--wait": "wait", "--no-c-calls": "no_c_calls",
          "--no-follow": "no_follow"}
_CONVERTED = {"-o": ("output", output_path), "--output": ("output", output_path), "-t": ("port", int),
              "--port": ("port", int), "--max-depth": ("max_depth", int), "--min-duration": ("min_duration", duration_ns)}
_APPENDED = {"--include": "include", "--exclude": "exclude"}


def read_options(args):
    """The options args give when each is spelled out and its value is its own argument not
    starting with '-', as argparse's parser reads them; None for anything else, and for a
    value that is not right, which argparse reads and reports."""
    options = Options()
    i = 0
    while i < len(args):
        arg, value = args[i], args[i + 1] if i + 1 < len(args) else None
        if arg in _FLAGS:
            setattr(options, _FLAGS[arg], True)
            i += 1
            continue
        if arg == "--sample" and (value is None or not looks_like_number(value)):
            from tracer import _sampling
            options.sample = _sampling.DEFAULT_HZ  # its rate is optional: parse() took a number for one
            i += 1
            continue
        if value is None or value.startswith("-"):
            return None
        try:
            if arg == "--sample":
                options.sample = sample_rate(value)
            elif arg in _APPENDED:
                getattr(options, _APPENDED[arg]).append(value)
            elif arg in _CONVERTED:
                name, convert = _CONVERTED[arg]
                setattr(options, name, convert(value))
            else:
                return None
        except Exception:  # argparse.ArgumentTypeError, ValueError: argparse says what is wrong
            return None
        i += 2
    return options


def parse(argv, prog="python -m tracer"):
    """Returns (options, module, script, args): one of module and script is set."""
    i = 0
    while i < len(argv) and argv[i] != "-m" and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] == "--":
            break
        if argv[i] == "--sample":  # its rate is optional: a number after it is the rate
            i += 2 if i + 1 < len(argv) and looks_like_number(argv[i + 1]) else 1
            continue
        i += 2 if argv[i] in _VALUED else 1
    options = read_options(argv[:i]) or _parser(prog).parse_args(argv[:i])
    rest = argv[i + 1:] if i < len(argv) and argv[i] == "--" else argv[i:]

    def error(message):
        _parser(prog).error(message)

    if options.native_samples and not options.sample:
        error("--native-samples goes with --sample")
    if options.lines and options.sample:
        error("--lines cannot be combined with --sample: line zones come from the per-call hook that "
              "sampling does without")
    if options.lines and not options.partial:
        error("--lines needs --partial (line zones are only recorded between Profiler().enable() and "
              "disable())")
    if options.max_depth < 0:
        error("--max-depth must not be negative")
    if rest[:1] == ["-m"]:
        if len(rest) < 2:
            error("-m needs a module name")
        return options, rest[1], None, rest[2:]
    if not rest:
        error("no script or module to run")
    return options, None, rest[0], rest[1:]
