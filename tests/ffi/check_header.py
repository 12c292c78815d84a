#!/usr/bin/env python3
"""check_header.py - fails when bindings/ffi/tracyc.abi.json and the public headers
disagree: the same functions with the same return, parameter names and types; the same
structs, fields, enums and callback types. Then the C compiler checks the rest: a generated file assigns
every function to a pointer of the manifest's prototype and asserts every struct's size,
alignment and field offsets, every enum value and scalar size (_Static_assert), with
incompatible pointer types an error.

The memory functions whose signature Tracy 0.14 changed must be marked "dual" (the
library accepts both forms, include/tracyc.h): a signature that changed between releases
without that mark would crash programs built for the other one.

usage: check_header.py MANIFEST SOURCE_DIR CC [DEFINE...]
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_manifest  # noqa: E402

errors = []


def compare_functions(manifest, header):
    listed = {f["name"]: f for f in manifest["functions"]}
    for name in sorted(set(header) - set(listed)):
        errors.append("%s is declared in %s but missing from the manifest" % (name, header[name]["header"]))
    for name in sorted(set(listed) - set(header)):
        errors.append("%s is in the manifest but not declared in any public header" % name)
    for name in sorted(set(listed) & set(header)):
        m, h = listed[name], header[name]
        for key in ("header", "returns", "params"):
            if m[key] != h[key]:
                errors.append("%s: manifest %s %s, header %s" % (name, key, m[key], h[key]))
        if m.get("variadic", False) != h["variadic"]:
            errors.append("%s: variadic differs" % name)


def check_dual(manifest, text):
    """Every function with a 0.13 variant is dual, and the two forms differ exactly by
    0.13's `int32_t secure` argument."""
    for fn in manifest["functions"]:
        variants = fn.get("variants", {})
        if variants and fn.get("dual") not in variants:
            errors.append("%s has two signatures (%s) but is not marked dual" % (fn["name"], ", ".join(variants)))
            continue
        if "dual" not in fn:
            continue
        forms = [p for p in (fn["params"], fn["other_form"]["params"])]
        with_secure, without = sorted(forms, key=lambda ps: -len(ps))
        secure = [p for p in with_secure if p["name"] == "secure"]
        if len(with_secure) != len(without) + 1 or secure != [{"name": "secure", "type": "int32_t"}] or \
                [p for p in with_secure if p["name"] != "secure"] != without:
            errors.append("%s: the dual forms do not differ by exactly an int32_t secure" % fn["name"])
        if fn["name"] not in text:
            errors.append("%s is dual but not declared in tracyc.h" % fn["name"])


def compare_types(manifest, header, text):
    structs = {s["name"]: s for s in manifest["structs"]}
    if set(structs) != set(header["structs"]):
        errors.append("structs differ: manifest %s, header %s" % (sorted(structs), sorted(header["structs"])))
    for name in set(structs) & set(header["structs"]):
        fields = [{"name": f["name"], "type": f["type"]} for f in structs[name]["fields"]]
        if fields != header["structs"][name]:
            errors.append("struct %s: manifest fields %s, header %s" % (name, fields, header["structs"][name]))
    for name in manifest["opaque_structs"]:
        if not re.search(r"\bstruct\s+%s\s*;" % name, text):
            errors.append("opaque struct %s is not declared in tracyc.h" % name)
    callbacks = {c["name"]: {"returns": c["returns"], "params": c["params"]} for c in manifest.get("callbacks", [])}
    if callbacks != header["callbacks"]:
        errors.append("callbacks differ: manifest %s, header %s" % (callbacks, header["callbacks"]))
    enums = {e["name"]: e["values"] for e in manifest["enums"]}
    if enums != header["enums"]:
        errors.append("enums differ: manifest %s, header %s" % (enums, header["enums"]))


def c_checks(manifest):
    """A C file that compiles only if the headers match the manifest's binary layout."""
    lines = ['#include "tracyc.h"', '#include "tracyc_ffi.h"', "#include <stddef.h>", ""]
    for name, size in manifest["scalars"].items():
        ctype = "void *" if name == "pointer" else name
        lines.append('_Static_assert(sizeof(%s) == %d, "sizeof(%s)");' % (ctype, size, ctype))
    for s in manifest["structs"]:
        t = "struct " + s["name"]
        lines.append('_Static_assert(sizeof(%s) == %d, "sizeof(%s)");' % (t, s["size"], t))
        lines.append('_Static_assert(_Alignof(%s) == %d, "_Alignof(%s)");' % (t, s["align"], t))
        for f in s["fields"]:
            lines.append('_Static_assert(offsetof(%s, %s) == %d, "%s.%s");' % (t, f["name"], f["offset"], t, f["name"]))
    for c in manifest.get("callbacks", []):
        params = ", ".join("%s %s" % (p["type"], p["name"]) for p in c["params"]) or "void"
        lines.append('_Static_assert(__builtin_types_compatible_p(%s, %s (*)(%s)), "%s");'
                     % (c["name"], c["returns"], params, c["name"]))
    for e in manifest["enums"]:
        for name, value in e["values"].items():
            lines.append('_Static_assert(%s == %d, "%s");' % (name, value, name))
    for f in manifest["functions"]:
        params = ["%s %s" % (p["type"], p["name"]) for p in f["params"]]
        params += ["..."] if f.get("variadic") else []
        lines.append("%s (*check_%s)(%s) = %s;" % (f["returns"], f["name"], ", ".join(params) or "void", f["name"]))
    return "\n".join(lines) + "\n"


def compile_checks(manifest, source_dir, cc, defines):
    includes = [os.path.join(source_dir, "include"), os.path.join(source_dir, "bindings/ffi")]
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(c_checks(manifest))
    args = [cc, "-std=c11", "-fsyntax-only", "-Werror", "-Werror=incompatible-pointer-types", "-DTRACY_ENABLE"]
    args += ["-D" + d for d in defines] + ["-I" + i for i in includes] + [f.name]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode:
        errors.append("the manifest's prototypes and layouts do not compile against the headers:\n" + result.stderr)
    os.unlink(f.name)


def main():
    manifest_path, source_dir, cc, defines = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    manifest = abi_manifest.load(manifest_path, defines)
    includes = [os.path.join(source_dir, "include"), os.path.join(source_dir, "bindings/ffi")]
    header = abi_manifest.parse_headers(cc, includes, defines)
    text = abi_manifest.preprocess(cc, includes, "tracyc.h", defines)
    compare_functions(manifest, header["functions"])
    check_dual(manifest, text)
    compare_types(manifest, header, text)
    compile_checks(manifest, source_dir, cc, defines)
    for e in errors:
        print("FAIL", e)
    dual = sum(1 for f in manifest["functions"] if "dual" in f)
    print("%d functions (%d dual), %d structs: %s" % (len(manifest["functions"]), dual, len(manifest["structs"]),
                                                      "mismatch" if errors else "manifest matches the headers"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
