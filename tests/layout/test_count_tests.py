#!/usr/bin/env python3
"""test_count_tests.py - scripts/count_tests.py counts what scripts/test.sh reports: a
pytest suite as the tests pytest ran, skipped tests as skipped.

A scratch CMake project registers, as the repository does, a test that passes, one that
fails, one that skips itself (SKIP_RETURN_CODE 77), one whose fixture failed, and a
pytest suite (two pass, one fails, one skips) that writes its JUnit file where
tests/CMakeLists.txt says; ctest runs them, and count_tests.py must find 3 passed, 4
failed and 2 skipped, and say why each skipped test was skipped.

usage: test_count_tests.py REPOSITORY
"""
import os
import subprocess
import sys
import tempfile

PYTEST_SUITE = '''
import pytest

def test_one():
    pass

def test_two():
    pass

def test_fails():
    assert False

@pytest.mark.skip(reason="needs something absent")
def test_skipped():
    pass
'''

PROJECT = '''
cmake_minimum_required(VERSION 3.16)
project(counting NONE)
enable_testing()
set(junit ${CMAKE_BINARY_DIR}/junit)
add_test(NAME passes COMMAND /bin/true)
add_test(NAME fails COMMAND /bin/false)
add_test(NAME skips COMMAND /bin/sh -c "echo skipped: no upstream here; exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME setup COMMAND /bin/false)
add_test(NAME needs_setup COMMAND /bin/true)
set_tests_properties(setup PROPERTIES FIXTURES_SETUP thing)
set_tests_properties(needs_setup PROPERTIES FIXTURES_REQUIRED thing)
add_test(NAME suite COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
  --junitxml=${junit}/suite.xml ${CMAKE_SOURCE_DIR}/test_suite.py)
'''


def main():
    repo = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        src, build = os.path.join(tmp, "src"), os.path.join(tmp, "build")
        os.mkdir(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write(PROJECT)
        with open(os.path.join(src, "test_suite.py"), "w") as f:
            f.write(PYTEST_SUITE)
        subprocess.run(["cmake", "-S", src, "-B", build], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["ctest", "--output-junit", "ctest-junit.xml"], cwd=build, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        out = subprocess.run([sys.executable, os.path.join(repo, "scripts", "count_tests.py"),
                              os.path.join(build, "ctest-junit.xml"), os.path.join(build, "junit")],
                             check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    ok = True
    # passed: passes, test_one, test_two; failed: fails, setup, needs_setup (its fixture
    # failed: not run, which is no skip), test_fails; skipped: skips, test_skipped.
    if lines[-1] != "3 4 2":
        print("FAIL: counted %r, expected '3 4 2' (passed failed skipped)" % lines[-1])
        ok = False
    for expected in ("skipped: skips: skipped: no upstream here", "test_skipped: needs something absent"):
        if not any(expected in line for line in lines):
            print("FAIL: no line saying %r in:\n%s" % (expected, out))
            ok = False
    print("count_tests: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
