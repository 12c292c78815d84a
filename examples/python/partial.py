"""Profiling one region only, as tt-metal's `python -m tracy -p`:

    python3 -m tracer -p -o trace.json examples/python/partial.py
    python3 -m tracer -p -l -o trace.json examples/python/partial.py    # plus line zones

Without `python -m tracer`, Profiler works the same (run with TRACYC_OUTPUT=trace.json
to write a file, or connect the Tracy GUI).
"""
from tracer import Profiler, signpost


def warm_up():
    return sum(i * i for i in range(10_000))


def step(n):
    total = 0
    for i in range(n):
        total += i % 7
    return total


def main():
    warm_up()  # not profiled
    with Profiler():
        signpost("measured region")
        for n in (1_000, 10_000):
            step(n)


if __name__ == "__main__":
    main()
