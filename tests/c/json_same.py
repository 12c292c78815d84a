#!/usr/bin/env python3
"""json_same.py - whether two Chrome Trace Event JSON files hold the same trace.

usage: json_same.py EXPECTED ACTUAL

The same events (in any order: viewers sort them by time), each with the same fields; an
event's "sf" compared as the call path it names in its file's "stackFrames" (frame ids are
given in the order events were written, so they differ with the order); "stackFrames" as
the set of call paths; every other root key as it is. Prints what differs and exits 1.
"""
import json
import sys


def paths(frames):
    """Each frame id -> its call path (names, innermost first)."""
    out = {}
    for fid in frames:
        path, at = [], fid
        while at is not None:
            path.append(frames[at]["name"] + "|" + frames[at].get("category", ""))
            at = frames[at].get("parent")
        out[fid] = tuple(path)
    return out


def canonical(doc):
    frames = paths(doc.get("stackFrames", {}))
    events = []
    for e in doc["traceEvents"]:
        e = dict(e)
        if "sf" in e:
            e["sf"] = frames.get(str(e["sf"]), ("missing frame", e["sf"]))
        events.append(json.dumps(e, sort_keys=True))
    rest = {k: v for k, v in doc.items() if k not in ("traceEvents", "stackFrames")}
    return sorted(events), sorted(set(frames.values())), rest


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        expected = canonical(json.load(f))
    with open(sys.argv[2], encoding="utf-8") as f:
        actual = canonical(json.load(f))
    ok = True
    for what, a, b in zip(("traceEvents", "stackFrames", "root keys"), expected, actual):
        if a == b:
            continue
        ok = False
        if isinstance(a, list):
            missing = [x for x in a if x not in set(b)][:5]
            extra = [x for x in b if x not in set(a)][:5]
            print(f"{what}: {len(a)} expected, {len(b)} written; missing {missing}; extra {extra}")
        else:
            print(f"{what}: expected {a}, written {b}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
