#!/usr/bin/env bash
# What profiling costs a whole process: CPU time of every thread (tracyc's own included),
# untraced (TRACYC_DISABLE=1) against profiled with nothing ever connected, and sampled at the
# default rate by the in-process capture (TRACYC_OUTPUT) and by a live tracyc-capture,
# interleaved round by round; medians, their peak memory over untraced's, their
# ratio to the untraced median of the same run, and tracyc's CPU split by thread (worker,
# sampler, symbol resolver, and its shutdown at exit). Then idle programs, with no server
# and with a capture connected: CPU milliseconds per second (and with the in-process capture
# ready to collect children, and dialing a collector that is not there: measure.py).
#
#   bench/process_cost.sh [BUILD_DIR]      (ROUNDS=N, default 5; IDLE_ONLY=1: the idle runs alone)
#
# BEFORE_BUILD=DIR (another build directory of tracyc, with its bench/ built) runs each
# traced mode with that build's library too, in the same rounds: before and after a change.
#
# The programs: zstd's CLI (compressing 64 MB at level 10) and bzip2 (24 MB), built here
# from Debian's source packages with -O2 -g (no frame pointers: samples are unwound by
# DWARF), and bench/process_cost/cpu2.c (two CPU-bound threads); idle: coreutils' sleep, for 1 s and 6 s
# (what a second of idling costs is the difference over 5 s; the rest is fixed).
# tracyc is preloaded into each (bench/process_cost/start.c starts it), and
# bench/process_cost/run_traced.c reads each thread's CPU time as it exits. The sources are
# taken from SOURCES (default BUILD_DIR/bench/sources), fetched there by `apt-get source`
# when deb-src lines are configured; without them the real programs are skipped, said so.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
rounds=${ROUNDS:-5}
if [ ! -x "$build/bench/bench_process_cost_run" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRACYC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" >/dev/null
fi
bin="$build/bench"
src=${SOURCES:-$bin/sources}
mkdir -p "$src"

programs=()
if [ "${IDLE_ONLY:-}" != 1 ]; then
  # zstd and bzip2 from Debian's sources, built once.
  have_source() { compgen -G "$src/$1" >/dev/null; }
  if ! have_source 'libzstd_*.orig.tar.*' || ! have_source 'bzip2_*.orig.tar.*'; then
    (cd "$src" && apt-get source --download-only libzstd bzip2 >/dev/null 2>&1) ||
      echo "process_cost: no Debian sources (needs deb-src in /etc/apt/sources.list.d): real programs skipped" >&2
  fi
  if have_source 'libzstd_*.orig.tar.*'; then
    zdir=$(find "$src" -maxdepth 1 -type d -name 'zstd-*' | head -1)
    if [ -z "$zdir" ]; then
      tar -C "$src" -xf "$(compgen -G "$src/libzstd_*.orig.tar.*" | head -1)"
      zdir=$(find "$src" -maxdepth 1 -type d -name 'zstd-*' | head -1)
    fi
    [ -x "$zdir/programs/zstd" ] || make -C "$zdir/programs" zstd -j"$(nproc)" MOREFLAGS=-g >/dev/null 2>&1
    zstd_bin=$zdir/programs/zstd
  fi
  if have_source 'bzip2_*.orig.tar.*'; then
    bdir=$(find "$src" -maxdepth 1 -type d -name 'bzip2-*' | head -1)
    if [ -z "$bdir" ]; then
      tar -C "$src" -xf "$(compgen -G "$src/bzip2_*.orig.tar.*" | head -1)"
      bdir=$(find "$src" -maxdepth 1 -type d -name 'bzip2-*' | head -1)
    fi
    [ -x "$bdir/bzip2" ] || make -C "$bdir" bzip2 CFLAGS="-O2 -g -D_FILE_OFFSET_BITS=64" >/dev/null 2>&1
    bzip2_bin=$bdir/bzip2
  fi
  # Input: the files of this machine's /usr/share/doc and libraries, in name order.
  input=$src/input.bin
  if [ ! -s "$input" ]; then
    find /usr/share/doc /usr/lib/x86_64-linux-gnu /usr/lib -maxdepth 3 -type f -size +1k 2>/dev/null | sort |
      xargs cat 2>/dev/null | head -c 64000000 >"$input" || true
  fi
  head -c 24000000 "$input" >"$src/input24.bin"
  [ -n "${zstd_bin:-}" ] && [ -x "$zstd_bin" ] &&
    programs+=(--program "zstd -10 (64 MB; Debian's zstd $(basename "$zdir"))=$zstd_bin -q -c -10 $input")
  [ -n "${bzip2_bin:-}" ] && [ -x "$bzip2_bin" ] &&
    programs+=(--program "bzip2 -9 (24 MB; $(basename "$bdir"))=$bzip2_bin -9 -c $src/input24.bin")
  programs+=(--program "cpu2 (two CPU-bound threads, bench/process_cost/cpu2.c)=$bin/bench_process_cost_cpu2 10000")
  programs+=(--program "cpu2 short (~10 ms of work: wall time and whether samples are kept)=$bin/bench_process_cost_cpu2 40")
fi

/usr/bin/python3 bench/process_cost/measure.py --runner "$bin/bench_process_cost_run" \
  --start "$bin/libbench_process_cost_start.so" --capture "$build/tools/tracyc-capture" --rounds "$rounds" \
  ${BEFORE_BUILD:+--before "$BEFORE_BUILD/bench/libbench_process_cost_start.so"} \
  "${programs[@]}" --idle "sleep (coreutils)=1,6=sleep {s}"
