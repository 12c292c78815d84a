"""Builds the `tracer` package: bindings/python/tracer plus the C extension tracer._tracer,
compiled from bindings/python/src and the tracyc core sources (no separate libtracyc), and
`tracy`, tt-metal's module name for the same commands.

    python3 setup.py build_ext --inplace          # importable from bindings/python
    pip install --no-build-isolation .             # installed
"""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def sources(*patterns):
    found = []
    for pattern in patterns:
        found += sorted(glob.glob(os.path.join(HERE, pattern)))
    # setuptools wants paths relative to setup.py
    return [os.path.relpath(path, HERE) for path in found]


def listed(name):
    """The lines of core/<name> but comments and blank ones: the core's sources
    (core/sources.txt) and the flags of every C build (core/cflags.txt), which
    CMakeLists.txt reads too."""
    with open(os.path.join(HERE, "core", name)) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


extension = Extension(
    "tracer._tracer",
    sources=sources("bindings/python/src/*.c") + [os.path.join("core", path) for path in listed("sources.txt")],
    include_dirs=[os.path.join(HERE, d) for d in ("include", "core", "bindings/python/src")],
    define_macros=[("TRACY_ENABLE", None), ("_GNU_SOURCE", None)],
    # libiberty (a static archive) demangles C++ and Rust names; libdw (elfutils), which
    # resolves symbols and unwinds samples, is loaded at run time (only its headers are used).
    libraries=["lz4", "pthread", "m", "iberty", "dl"],
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden"] + listed("cflags.txt"),
    extra_link_args=["-Wl,--version-script=" + os.path.join(HERE, "bindings/python/src/exports.map")],
    depends=sources("bindings/python/src/*.h", "include/*.h", "core/*.h", "core/*/*.h", "core/*.txt"),
)

setup(
    name="tracer",
    version="0.1.0",
    description="Tracy profiling for Python in C: automatic call tracing on every thread, zones, signposts",
    python_requires=">=3.11",
    packages=["tracer", "tracer._boot", "tracy"],  # tracy: tt-metal's `python -m tracy` and `from tracy import signpost`
    package_dir={"tracer": "bindings/python/tracer", "tracy": "bindings/python/tracy"},
    ext_modules=[extension],
)
