#!/usr/bin/env bash
# A static link needs nothing but -ltracyc: from C with libtracyc.a alone (every member of
# it: no libm, whatever the build type), from C with pkg-config --static against an
# install that has no shared library, and from Rust with #[link(kind = "static")] as
# tracy-client-sys's static mode links it. Each program profiles itself through the
# in-process capture (which pulls in the exporters too).
#
#   static_link.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/lib" "$work/src"
cp "$build_dir/libtracyc.a" "$work/lib/"
cat >"$work/src/main.c" <<'C'
#include <tracy/TracyC.h>
int main(void)
{
    TracyCZoneN(zone, "static zone", 1);
    TracyCZoneEnd(zone);
    return 0;
}
C
cc "$work/src/main.c" -I"$source_dir/include" -DTRACY_ENABLE -L"$work/lib" -ltracyc -o "$work/c-static"
TRACYC_OUTPUT="$work/c.csv" "$work/c-static"
grep -q '^static zone,' "$work/c.csv"
! ldd "$work/c-static" | grep -q tracyc
# Every member of the archive, not only those this program pulls in: nothing from libm.
cc "$work/src/main.c" -I"$source_dir/include" -DTRACY_ENABLE -L"$work/lib" -Wl,--whole-archive -ltracyc \
  -Wl,--no-whole-archive -o "$work/c-whole"

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
rm -f "$work/prefix/lib/"libtracyc.so*
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc "$work/src/main.c" -o "$work/pc-static" $(pkg-config --static --cflags --libs tracyc)
TRACYC_OUTPUT="$work/pc.csv" "$work/pc-static"
grep -q '^static zone,' "$work/pc.csv"
echo "static: C with -ltracyc alone (the whole archive too), and with pkg-config --static"

rustc=$(command -v rustc || true)
if [ -z "$rustc" ]; then
  echo "rustc not found: the Rust static link is not tested"
  exit 0
fi
cat >"$work/src/main.rs" <<'RS'
use std::os::raw::{c_char, c_int};

#[repr(C)]
struct SourceLocation {
    name: *const c_char,
    function: *const c_char,
    file: *const c_char,
    line: u32,
    color: u32,
}
unsafe impl Sync for SourceLocation {}

#[repr(C)]
#[derive(Clone, Copy)]
struct ZoneContext {
    id: u32,
    active: c_int,
}

#[link(name = "tracyc", kind = "static")]
extern "C" {
    fn ___tracy_emit_zone_begin(srcloc: *const SourceLocation, active: c_int) -> ZoneContext;
    fn ___tracy_emit_zone_end(ctx: ZoneContext);
}

static LOC: SourceLocation = SourceLocation {
    name: b"static rust zone\0".as_ptr() as *const c_char,
    function: b"main\0".as_ptr() as *const c_char,
    file: b"main.rs\0".as_ptr() as *const c_char,
    line: 1,
    color: 0,
};

fn main() {
    unsafe { ___tracy_emit_zone_end(___tracy_emit_zone_begin(&LOC, 1)) };
}
RS
# tracy-client-sys's static mode adds -ldl on Linux, nothing else.
"$rustc" --edition 2021 -O -L "native=$work/lib" -l dl "$work/src/main.rs" -o "$work/rust-static"
TRACYC_OUTPUT="$work/rust.csv" "$work/rust-static"
grep -q '^static rust zone,' "$work/rust.csv"
echo "static: Rust with #[link(name = \"tracyc\", kind = \"static\")]"
