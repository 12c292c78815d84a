"""abi_manifest.py - the ABI manifest (bindings/ffi/tracyc.abi.json) and the public
headers, both read into the same shape so the checks can compare them.

A function is {"name", "returns", "params": [{"name", "type"}], "variadic", ...}.
Types are spelled as in the header with whitespace normalised ("const char *") and the
TracyCZoneCtx typedef resolved to the struct it names. A header parameter without a name
(the GPU functions, as upstream) is read as "data".
"""
import json
import re
import subprocess

HEADERS = {"tracyc.h": "include/tracyc.h", "tracyc_ffi.h": "bindings/ffi/tracyc_ffi.h"}
TYPEDEFS = {"TracyCZoneCtx": "struct ___tracy_c_zone_context"}
EXPORT = '__attribute__((visibility("default")))'


# Where the library accepts both forms of a "dual" function (include/tracyc.h).
DUAL_MACHINES = {"x86_64", "amd64", "aarch64", "arm64"}


def load(path, defines=()):
    """The manifest with the variants selected by defines applied to its functions. A dual
    function also gets "other_form": the origin and params of the signature not selected,
    which the library accepts as well on DUAL_MACHINES."""
    with open(path) as f:
        manifest = json.load(f)
    for fn in manifest["functions"]:
        base = {"origin": fn["origin"], "params": fn["params"]}
        for define, variant in fn.get("variants", {}).items():
            if define in defines:
                fn.update({k: v for k, v in variant.items()})
        if "dual" in fn:
            variant = fn["variants"][fn["dual"]]
            fn["other_form"] = base if fn["dual"] in defines else {"origin": variant["origin"],
                                                                   "params": variant["params"]}
    return manifest


def norm_type(text):
    text = re.sub(r"\s+", " ", text.strip())
    text = re.sub(r"\s*\*\s*", " *", text).replace("* *", "**")
    return TYPEDEFS.get(text, text)


def split_decl(text):
    """'const char *name' -> ('const char *', 'name'); unnamed -> (type, None)."""
    text = re.sub(r"\s+", " ", text.strip())
    m = re.match(r"^(.*?[\s*])(\w+)$", text)
    if m and m.group(1).strip() and not re.search(r"\b(struct|enum)\s*$", m.group(1)):
        return norm_type(m.group(1)), m.group(2)
    return norm_type(text), None


def preprocess(cc, includes, header, defines):
    args = [cc, "-E", "-P", "-std=c11", "-DTRACY_ENABLE"] + ["-D" + d for d in defines]
    args += ["-I" + i for i in includes] + ["-x", "c", "-"]
    src = '#include "%s"\n' % header
    return subprocess.run(args, input=src, capture_output=True, text=True, check=True).stdout


def parse_functions(text):
    functions = {}
    pattern = re.escape(EXPORT) + r"\s*([^;(]*?)\s*\b(\w+)\s*\(([^()]*)\)\s*(?:__attribute__\s*\(\(.*?\)\))?\s*;"
    for m in re.finditer(pattern, text, re.S):
        ret, name, params = norm_type(m.group(1)), m.group(2), m.group(3).strip()
        fn = {"name": name, "returns": ret, "params": [], "variadic": False}
        for p in [] if params == "void" else [p.strip() for p in params.split(",")]:
            if p == "...":
                fn["variadic"] = True
                continue
            ptype, pname = split_decl(p)
            fn["params"].append({"name": pname or "data", "type": ptype})
        functions[name] = fn
    return functions


def parse_structs(text):
    structs = {}
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{([^{}]*)\}\s*;", text):
        fields = [split_decl(f) for f in m.group(2).split(";") if f.strip()]
        structs[m.group(1)] = [{"name": n, "type": t} for t, n in fields]
    return structs


def parse_callbacks(text):
    """typedef RET (*NAME)(PARAMS); -> {NAME: {"returns", "params"}}"""
    callbacks = {}
    for m in re.finditer(r"\btypedef\s+([^;()]*?)\(\s*\*\s*(\w+)\s*\)\s*\(([^()]*)\)\s*;", text):
        params = [split_decl(p) for p in m.group(3).split(",") if p.strip() and p.strip() != "void"]
        callbacks[m.group(2)] = {"returns": norm_type(m.group(1)),
                                 "params": [{"name": n or "data", "type": t} for t, n in params]}
    return callbacks


def parse_enums(text):
    enums = {}
    for m in re.finditer(r"\benum\s+(\w+)\s*\{([^{}]*)\}\s*;", text):
        values, next_value = {}, 0
        for item in [i.strip() for i in m.group(2).split(",") if i.strip()]:
            name, _, value = item.partition("=")
            next_value = int(value, 0) if value else next_value
            values[name.strip()] = next_value
            next_value += 1
        enums[m.group(1)] = values
    return enums


def parse_headers(cc, includes, defines=()):
    """{"functions": {name: fn + "header"}, "structs": ..., "enums": ...} of the public headers."""
    result = {"functions": {}, "structs": {}, "enums": {}, "callbacks": {}}
    for header, where in HEADERS.items():
        text = preprocess(cc, includes, header, defines)
        for name, fn in parse_functions(text).items():
            result["functions"].setdefault(name, dict(fn, header=where))
        result["structs"].update(parse_structs(text))
        result["enums"].update(parse_enums(text))
        result["callbacks"].update(parse_callbacks(text))
    return result
