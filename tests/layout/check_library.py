#!/usr/bin/env python3
"""check_library.py - fails when libtracyc.so exports anything but the public ABI
(___tracy_* and tracyc_* functions: the capture's collector, tcs_*, is inside it for the
in-process collection of child processes, hidden like every other internal), or makes the
program depend on more than libc, libm, liblz4, libpthread, libdl and the dynamic loader
(libdw and its chain are loaded at run time when present: core/native/libdw.c), or calls
libdw or libelf directly.

usage: check_library.py [--sanitized] LIBRARY
       check_library.py [--sanitized] --needed-only MODULE   (the Lua module, the Python
                 extension: only the dependencies and the direct libdw calls)
--sanitized: the build links a sanitizer, whose runtime is then needed too
"""
import subprocess
import sys

PUBLIC = ("___tracy_", "tracyc_")
NEEDED_ALLOWED = ("libc.so.", "libm.so.", "liblz4.so.", "libpthread.so.", "libdl.so.", "ld-linux")
SANITIZER_RUNTIMES = ("libasan.so.", "libubsan.so.", "libtsan.so.")
LOADED_AT_RUN_TIME = ("dwfl_", "dwarf_", "dwelf_", "elf_", "gelf_", "elf32_", "elf64_")


def symbols(library, dynamic):
    args = ["nm", "--defined-only"] + (["-D"] if dynamic else []) + [library]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split()[2].split("@")[0] for line in out.splitlines() if len(line.split()) == 3]


def needed(library):
    """The NEEDED entries of the dynamic section (readelf -d)."""
    out = subprocess.run(["readelf", "-d", library], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def undefined(library):
    out = subprocess.run(["nm", "-D", "--undefined-only", library], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1].split("@")[0] for line in out.splitlines() if line.split()]


def main():
    needed_only = "--needed-only" in sys.argv
    allowed = NEEDED_ALLOWED + (SANITIZER_RUNTIMES if "--sanitized" in sys.argv else ())
    library = sys.argv[-1]
    errors = []
    if not needed_only:
        errors += ["exported but not public: %s" % s for s in symbols(library, True) if not s.startswith(PUBLIC)]
    libs = needed(library)
    errors += ["needs a library a profiled program should not have to carry: %s" % n
               for n in libs if not n.startswith(allowed)]
    errors += ["calls libdw/libelf directly instead of through core/native/libdw.c: %s" % s
               for s in undefined(library) if s.startswith(LOADED_AT_RUN_TIME)]
    for e in errors:
        print("FAIL", e)
    print("%s: %d exported symbols, needs %s: %s" % (library, len(symbols(library, True)), " ".join(libs),
                                                    "not as it should be" if errors else "as it should be"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
