#!/usr/bin/env python3
"""check_calls.py - fails when the files of one folder call each other in a loop.

usage: check_calls.py FOLDER OBJECT...   (the folder's compiled objects, x.c.o for x.c)
       check_calls.py --self-test        (proves it catches a loop, and passes a tree)

check_includes.py sees the #include graph, which a shared header (bindings/lua/binding.h
declares the functions of every file) hides: every file includes the header, none
another. This reads what the compiler made instead: file A depends on file B when A's
object refers to a symbol B's object defines (a function, a variable; calls inlined from
the header count, as they are A's references). The files must form a tree (a DAG): no
loop such as state.c -> generation.c -> state.c.
"""
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbol names of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWCGS":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def unit_of(obj):
    name = os.path.basename(obj)
    for suffix in (".c.o", ".o"):
        if name.endswith(suffix):
            return name[: -len(suffix)] + ".c"
    return name


def edges_of(units):
    """units: {unit: (defined, undefined)} -> {unit: {other unit: [symbols]}}."""
    owner = {s: u for u, (defined, _) in units.items() for s in defined}
    edges = {u: {} for u in units}
    for u, (_, undefined) in units.items():
        for s in sorted(undefined):
            v = owner.get(s)
            if v and v != u:
                edges[u].setdefault(v, []).append(s)
    return edges


def find_loop(edges):
    """One loop as a list of units (first == last), or None."""
    state = {}
    path = []

    def visit(u):
        state[u] = 1
        path.append(u)
        for v in sorted(edges[u]):
            if state.get(v) == 1:
                return path[path.index(v) :] + [v]
            if v not in state:
                found = visit(v)
                if found:
                    return found
        state[u] = 2
        path.pop()
        return None

    for u in sorted(edges):
        if u not in state:
            found = visit(u)
            if found:
                return found
    return None


def report(folder, units):
    edges = edges_of(units)
    loop = find_loop(edges)
    if not loop:
        print(f"{folder}: {len(units)} files, no loop")
        return 0
    steps = [f"{a} -> {b} ({', '.join(edges[a][b][:3])})" for a, b in zip(loop, loop[1:])]
    print(f"FAIL {folder}: files call each other in a loop:\n  " + "\n  ".join(steps))
    return 1


def self_test():
    tree = {
        "module.c": (set(), {"tl_open", "tl_state_new"}),
        "api.c": ({"tl_open"}, {"tl_state_new", "tl_gen_keep"}),
        "state.c": ({"tl_state_new"}, {"tl_gen_keep"}),
        "generation.c": ({"tl_gen_keep"}, set()),
    }
    loop = dict(tree, **{"generation.c": ({"tl_gen_keep"}, {"tl_state_new"})})
    ok = report("tree", tree) == 0 and report("loop", loop) == 1
    print("check_calls self-test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    folder, objects = sys.argv[1], sys.argv[2:]
    return report(folder, {unit_of(o): symbols(o) for o in objects})


if __name__ == "__main__":
    sys.exit(main())
