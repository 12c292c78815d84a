"""The extension carries the tracyc core and needs no more shared libraries than
libtracyc.so does: libdw, which resolves symbols and unwinds samples, is loaded at run time
when installed, so it and its chain (libelf, libz, liblzma, libbz2, libzstd) are not
dependencies (tests/layout/check_library.py reads the dynamic section)."""
import os
import subprocess
import sys

from conftest import REPO


def test_extension_needs_no_libdw():
    import tracer._tracer as extension

    check = os.path.join(REPO, "tests", "layout", "check_library.py")
    result = subprocess.run([sys.executable, check, "--needed-only", extension.__file__],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
