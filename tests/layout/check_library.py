#!/usr/bin/env python3
"""check_library.py - fails when libtracyc.so exports anything but the public ABI
(___tracy_* and tracyc_* functions) or carries code a profiled program does not need (the
capture session, tcs_*, which only tools link).

usage: check_library.py LIBRARY
"""
import subprocess
import sys

PUBLIC = ("___tracy_", "tracyc_")
NOT_IN_CLIENT = ("tcs_",)


def symbols(library, dynamic):
    args = ["nm", "--defined-only"] + (["-D"] if dynamic else []) + [library]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split()[2].split("@")[0] for line in out.splitlines() if len(line.split()) == 3]


def main():
    library = sys.argv[1]
    errors = ["exported but not public: %s" % s for s in symbols(library, True) if not s.startswith(PUBLIC)]
    errors += ["capture-session code in the client library: %s" % s
               for s in symbols(library, False) if s.startswith(NOT_IN_CLIENT)]
    for e in errors:
        print("FAIL", e)
    print("%s: %d exported symbols, %s" % (library, len(symbols(library, True)),
                                          "not only the public ABI" if errors else "only the public ABI"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
