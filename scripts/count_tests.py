#!/usr/bin/env python3
"""count_tests.py - counts one ctest run's tests as scripts/test.sh reports them.

usage: count_tests.py CTEST_JUNIT PYTEST_JUNIT_DIR

CTEST_JUNIT is ctest's --output-junit file. A ctest test that runs pytest writes pytest's
own JUnit file as PYTEST_JUNIT_DIR/<ctest test name>.xml (tests/CMakeLists.txt); such a
suite counts as the tests pytest ran, not as one. Skipped tests count as skipped: ctest's
(SKIP_RETURN_CODE, disabled) and pytest's (skip, xfail). A test ctest did not run for
another reason (a fixture that failed, a missing program) counts as failed, and so does a
pytest suite that ctest saw fail while its file shows no failure (it timed out or crashed
before writing it).

Prints a line per skipped test with its reason, then "PASSED FAILED SKIPPED".
"""
import os
import sys
import xml.etree.ElementTree as ET


def pytest_counts(path):
    """(passed, failed, skipped, [(name, reason)]) of a pytest JUnit file."""
    passed = failed = skipped = 0
    reasons = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
            name = "%s::%s" % (case.get("classname", ""), case.get("name", ""))
            reasons.append((name, case.find("skipped").get("message", "")))
        else:
            passed += 1
    return passed, failed, skipped, reasons


def main():
    ctest_junit, pytest_dir = sys.argv[1:3]
    passed = failed = skipped = 0
    reasons = []
    for case in ET.parse(ctest_junit).getroot().iter("testcase"):
        name, status = case.get("name", ""), case.get("status", "")
        own = os.path.join(pytest_dir, name + ".xml")
        if status in ("run", "fail") and os.path.exists(own):
            p, f, s, r = pytest_counts(own)
            if status == "fail" and f == 0:
                f = 1  # the suite failed as a whole
            passed, failed, skipped = passed + p, failed + f, skipped + s
            reasons += r
            continue
        skip = case.find("skipped")
        if status == "run":
            passed += 1
        elif status == "disabled" or (status == "notrun" and skip is not None and
                                      skip.get("message", "").startswith("SKIP_")):
            skipped += 1
            out = (case.findtext("system-out") or "").strip().splitlines()
            reasons.append((name, out[-1] if out else skip.get("message", "") if skip is not None else status))
        else:
            failed += 1
    for name, reason in reasons:
        print("skipped: %s: %s" % (name, reason))
    print(passed, failed, skipped)


if __name__ == "__main__":
    main()
