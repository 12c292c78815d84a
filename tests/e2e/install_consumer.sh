#!/usr/bin/env bash
# Installs tracyc into a temporary prefix, then builds two small consumers against the
# installed files only: one with CMake's find_package(tracyc), one with pkg-config, and
# checks both profile themselves through the in-process capture.
set -euo pipefail
build_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null

mkdir -p "$work/src"
cat >"$work/src/main.c" <<'C'
#include <tracy/TracyC.h>
int main(void)
{
    TracyCZoneN(zone, "installed zone", 1);
    TracyCZoneEnd(zone);
    return 0;
}
C
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(tracyc REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE tracyc::tracyc)
CMAKE
cmake -S "$work/src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib" TRACYC_OUTPUT="$work/a.csv" "$work/cmake-build/consumer"
grep -q '^installed zone,' "$work/a.csv"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc "$work/src/main.c" -o "$work/pc-consumer" $(pkg-config --cflags --libs tracyc) -Wl,-rpath,"$work/prefix/lib"
TRACYC_OUTPUT="$work/b.csv" "$work/pc-consumer"
grep -q '^installed zone,' "$work/b.csv"
echo "install: find_package and pkg-config consumers profiled themselves"
