#!/usr/bin/env python3
"""check_includes.py - fails when a source file includes across a forbidden boundary of the
module map in core/README.md, when files of one module include each other in a loop, or when
a file of core/client/ includes one of a higher layer of the client's layer table (read from
core/README.md: every file of core/client/ must be in one of its layers).

usage: check_includes.py REPO_ROOT
       check_includes.py --self-test     (proves it catches a forbidden include, a loop and
                                          an include up the client's layers)

A "unit" is a .c file with its header (conn.c and conn.h are the unit conn); a loop is a
cycle in the graph of units inside one module (e.g. conn -> state -> worker -> conn). A
header without a .c of its own (decode_internal.h) is looked through: it joins its
includer to what it includes. The installed headers are the module "include".
"""
import fnmatch
import os
import re
import sys

# module -> modules it may include (besides itself and the C library).
ALLOWED = {
    "core/util": set(),
    "core/native": {"core/util"},
    "core/wire": {"core/util"},
    "core/trace": {"core/wire", "core/util"},
    "core/capture": {"core/wire", "core/util"},
    "core/client": {"core/native", "core/wire", "core/util", "include"},
    "tools": {"core/capture", "core/trace", "core/wire", "core/util", "include"},
    "bindings/lua": {"core/util", "include"},
    "bindings/python": {"core/util", "include"},
    "bindings/ffi": {"core/util", "include"},
    "include": set(),
}
# Single files with a wider reach, and why.
EXCEPTIONS = {
    # the in-process capture feeds the client's own stream to the decoder and trace model
    ("core/client/inproc.c", "core/trace"),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


PUBLIC_HEADERS = {"bindings/ffi/tracyc_ffi.h", "bindings/lua/tracyc_lua.h"}


def module_of(path):
    if path in PUBLIC_HEADERS:
        return "include"
    for m in sorted(ALLOWED, key=len, reverse=True):
        if path == m or path.startswith(m + "/"):
            return m
    return None


def resolve(root, src, name):
    """The repository path an #include "name" in src refers to, or None (a system header)."""
    candidates = [os.path.join(os.path.dirname(src), name), os.path.join("core", name), os.path.join("include", name)]
    if src.startswith("bindings/"):
        candidates.append(os.path.join("/".join(src.split("/")[:2]), name))
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def sources(root):
    for top in ("core", "tools", "bindings", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def find_cycle(graph):
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state:
                found = visit(v)
                if found:
                    return found
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(graph):
        if u not in state:
            found = visit(u)
            if found:
                return found
    return None


def unit_graph(root, edges):
    """Unit-level edges inside each module, looking through header-only units."""
    unit = lambda p: os.path.splitext(p)[0]
    has_c = {unit(p) for p in edges if p.endswith(".c")}
    direct = {}
    for src, targets in edges.items():
        direct.setdefault(unit(src), set()).update(unit(t) for t in targets)

    def reach(u, seen):
        out = set()
        for v in direct.get(u, ()):
            if v in has_c:
                out.add(v)
            elif v not in seen:
                seen.add(v)
                out |= reach(v, seen)
        return out

    graphs = {}
    for u in has_c:
        mod = module_of(u + ".c")
        for v in reach(u, {u}):
            if v != u:
                graphs.setdefault(mod, {}).setdefault(u, set()).add(v)
    return graphs


LAYERED = "core/client"
LAYER_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|(.*)\|\s*$")
LAYER_FILE = re.compile(r"`([A-Za-z0-9_*]+)\.[ch]`")


def client_layers(root):
    """The client's layers, top first, from core/README.md: [(name, [unit patterns])]."""
    try:
        lines = open(os.path.join(root, "core/README.md"), encoding="utf-8").read().splitlines()
    except OSError:
        return []
    layers, inside = [], False
    for line in lines:
        if re.match(r"^\|\s*layer\s*\|\s*files\s*\|", line):
            inside = True
        elif inside and line.startswith("|---"):
            continue
        elif inside and LAYER_ROW.match(line):
            name, files = LAYER_ROW.match(line).groups()
            layers.append((name, LAYER_FILE.findall(files)))
        elif inside:
            break
    return layers


def check_layers(root, files, edges):
    """A file of core/client may include its own layer and those below, never one above."""
    layers = client_layers(root)
    client = [f for f in files if module_of(f) == LAYERED]
    if not client:
        return []
    if not layers:
        return ["core/README.md has no layer table for %s" % LAYERED]

    def layer(path):
        stem = os.path.splitext(os.path.basename(path))[0]
        for i, (_, patterns) in enumerate(layers):
            if any(fnmatch.fnmatchcase(stem, p) for p in patterns):
                return i
        return None

    errors = ["%s is in no layer of the client's table in core/README.md" % f for f in client if layer(f) is None]
    for src in client:
        for target in sorted(edges.get(src, ())):
            i, j = layer(src), layer(target)
            if i is not None and j is not None and j < i:
                errors.append("%s includes %s: the %s layer may not include the %s layer above it"
                              % (src, target, layers[i][0], layers[j][0]))
    return errors


def check(root):
    errors, edges = [], {}
    files = sorted(sources(root))
    for src in files:
        mod = module_of(src)
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        for name in INCLUDE.findall(text):
            target = resolve(root, src, name)
            if target is None:
                continue
            tmod = module_of(target)
            if tmod == mod:
                edges.setdefault(src, set()).add(target)
            if tmod is None or tmod == mod:
                continue
            if tmod not in ALLOWED.get(mod, set()) and (src, tmod) not in EXCEPTIONS:
                errors.append("%s includes %s: %s may not include %s" % (src, target, mod, tmod))
    for mod, graph in sorted(unit_graph(root, edges).items()):
        cycle = find_cycle(graph)
        if cycle:
            errors.append("include loop in %s: %s" % (mod, " -> ".join(os.path.basename(u) for u in cycle)))
    errors += check_layers(root, files, edges)
    return files, errors


def self_test():
    import tempfile

    def tree(files):
        root = tempfile.mkdtemp()
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        return root

    inc = lambda *names: "".join('#include "%s"\n' % n for n in names)
    readme = ("| layer | files |\n|---|---|\n| worker | `worker.c` |\n| connections | `conn*.c` |\n"
              "| state | `state.c`, `record.h` |\n")
    loop = tree({"core/README.md": readme,
                 "core/client/conn.c": inc("client/conn.h", "client/state.h"), "core/client/conn.h": "",
                 "core/client/state.c": inc("client/state.h", "client/worker.h"), "core/client/state.h": "",
                 "core/client/worker.c": inc("client/worker.h", "client/conn.h"), "core/client/worker.h": ""})
    # state (the lowest layer) includes conn.h (a higher one), and a file no layer names
    upward = tree({"core/README.md": readme, "core/client/conn.c": inc("client/conn.h", "client/record.h"),
                   "core/client/conn.h": "", "core/client/record.h": "",
                   "core/client/state.c": inc("client/conn.h"), "core/client/stray.c": ""})
    upward_errors = check(upward)[1]
    across = tree({"core/wire/encode.c": inc("client/state.h"), "core/client/state.h": "",
                   "bindings/lua/module.c": inc("client/state.h")})
    through = tree({"core/wire/decode.c": inc("wire/decode_internal.h"), "core/wire/decode.h": "",
                    "core/wire/decode_internal.h": inc("wire/decode.h")})
    ok = (any("include loop in core/client" in e for e in check(loop)[1])
          and any("state.c includes core/client/conn.h: the state layer may not include the connections" in e
                  for e in upward_errors)
          and any("stray.c is in no layer" in e for e in upward_errors) and len(upward_errors) == 2
          and sum("may not include core/client" in e for e in check(across)[1]) == 2
          and not check(through)[1])
    print("self-test: %s" % ("a loop, forbidden includes and an include up the client's layers are caught" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    files, errors = check(sys.argv[1])
    for e in errors:
        print("FAIL", e)
    print("%d files checked against the module map: %s" % (len(files), "violations" if errors else "clean"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
