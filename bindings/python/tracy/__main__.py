"""python -m tracy: tt-metal's command line, run by tracer's (-t is --port there too)."""
import sys

from tracer.__main__ import main

if __name__ == "__main__":
    main(sys.argv[1:], prog="python -m tracy")
