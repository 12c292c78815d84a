#!/usr/bin/env python3
"""check_symbols.py - fails when libtracyc.so's dynamic symbol table and the manifest
(bindings/ffi/tracyc.abi.json) disagree: every manifest function must be exported as a
function, and nothing else may be exported (no data, no internal helper).

usage: check_symbols.py MANIFEST LIBRARY
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_manifest  # noqa: E402


def exported(library):
    """{name: nm type letter} of the defined dynamic symbols."""
    out = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True).stdout
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols[parts[2].split("@")[0]] = parts[1]
    return symbols


def main():
    manifest = abi_manifest.load(sys.argv[1])
    listed = {f["name"] for f in manifest["functions"]}
    symbols = exported(sys.argv[2])
    errors = ["%s is exported but not in the manifest" % s for s in sorted(set(symbols) - listed)]
    errors += ["%s is in the manifest but not exported" % s for s in sorted(listed - set(symbols))]
    errors += ["%s is exported as %s, not as a function (T)" % (s, t)
               for s, t in sorted(symbols.items()) if s in listed and t != "T"]
    for e in errors:
        print("FAIL", e)
    print("%d exported symbols, %d manifest functions: %s" % (len(symbols), len(listed),
                                                             "mismatch" if errors else "identical"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
