#!/usr/bin/env bash
# Callstacks, symbols and samples from the real Tracy 0.14.0 client: builds
# upstream_callstacks.c against upstream's client library, records it once with tracyc-capture
# (Chrome JSON and the summary) and once with upstream's tracy-capture, and compares with
# what upstream's tracy-dump reports for its capture: the zone and message callstacks frame
# by frame (function, file and line, inlined frames included), the hottest sampled function,
# and that both sampled the program.
#
# Needs UPSTREAM_TRACY_DIR: an upstream 0.14.0 tree built outside this repository, with
# bin/tracy-capture, bin/tracy-dump, client/libTracyClient.so and src/tracy/public; skipped
# (exit 77) without it. Sampling needs perf_event_open (root, or perf_event_paranoid <= 1).
# Upstream's own server is run with TRACY_NO_CONTEXT_SWITCH=1: on kernels whose perf buffers
# deliver switches slightly out of order it stops on an assertion in ProcessContextSwitch,
# where tracyc's decoder carries on.
set -euo pipefail
build_dir=$1
up=${UPSTREAM_TRACY_DIR:-}
if [ -z "$up" ] || [ ! -x "$up/bin/tracy-capture" ] || [ ! -x "$up/bin/tracy-dump" ]; then
  echo "skipped: set UPSTREAM_TRACY_DIR to an upstream Tracy 0.14.0 build (bin/, client/, src/tracy/public)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

gcc -O2 -g -fno-omit-frame-pointer -DTRACY_ENABLE -I"$up/src/tracy/public" "$here/upstream_callstacks.c" \
  -o "$work/prog" -L"$up/client" -lTracyClient -Wl,-rpath,"$up/client" -lpthread

record_ours() { # OUTPUT
  local p; p=$(port)
  "$build_dir/tools/tracyc-capture" -p "$p" -o "$1" -f >"$1.log" 2>&1 &
  local cap=$!
  TRACY_PORT=$p timeout 120 "$work/prog" 1000 >/dev/null
  wait $cap || { cat "$1.log"; exit 1; }
}
record_ours "$work/ours.json"
record_ours "$work/ours.txt"

p=$(port)
"$up/bin/tracy-capture" -a 127.0.0.1 -p "$p" -o "$work/up.tracy" -f >"$work/up.log" 2>&1 &
cap=$!
TRACY_NO_CONTEXT_SWITCH=1 TRACY_PORT=$p timeout 120 "$work/prog" 1000 >/dev/null
wait $cap || { cat "$work/up.log"; exit 1; }
"$up/bin/tracy-dump" "$work/up.tracy" >"$work/up.dump"

/usr/bin/python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
dump = open(f"{work}/up.dump").read()
ours = json.load(open(f"{work}/ours.json"))
summary = open(f"{work}/ours.txt").read()

def name(f):  # the function of a frame, without the " + <offset>" of symbol-table names
    return re.sub(r" \+ \d+$", "", f)

def upstream_stack(line):  # "f@file:line < g@[unknown]:0" -> ["f file:line", "g"]
    out = []
    for fr in line.split(" < "):
        function, where = fr.rsplit("@", 1)
        out.append(name(function) + ("" if where.startswith("[unknown]") else " " + where))
    return out

frames = ours.get("stackFrames", {})
def our_stack(sf):  # innermost first, as tracy-dump prints them
    out = []
    while sf is not None:
        fr = frames[str(sf)]
        # "function file:line", or the function alone when the client knew no file
        m = re.match(r"^(.*)( \S+:\d+)$", fr["name"])
        out.append(name(m.group(1)) + m.group(2) if m else name(fr["name"]))
        sf = fr.get("parent")
    return out

def our_event_stack(ph, name_):
    for e in ours["traceEvents"]:
        if e["ph"] == ph and e["name"] == name_ and "sf" in e:
            return our_stack(e["sf"])
    return None

failed = False
for zone in ("outer_work", "inner_work"):
    m = re.search(rf"^zone-callstack {zone}: (.*)$", dump, re.M)
    up, mine = upstream_stack(m.group(1)) if m else None, our_event_stack("X", zone)
    same = up is not None and up == mine
    print(f"zone {zone} callstack: {'same' if same else 'DIFFERENT'} frames ({len(up or [])}): "
          f"{' < '.join(up or [])}")
    if not same:
        print(f"  tracyc: {mine}"); failed = True
m = re.search(r"^message-callstack: (.*)$", dump, re.M)
up, mine = upstream_stack(m.group(1)) if m else None, our_event_stack("i", "checkpoint")
same = up is not None and up == mine
print(f"message callstack: {'same' if same else 'DIFFERENT'} frames: {' < '.join(up or [])}")
failed |= not same

up_samples = int(re.search(r"^samples: (\d+)$", dump, re.M).group(1))
up_top = re.search(r"^top-sampled: (\S+) count=(\d+)$", dump, re.M)
our_samples = int(re.search(r"^Sampling: ([\d,]+) CPU samples", summary, re.M).group(1).replace(",", ""))
row = re.search(r"^Top \d+ functions by self samples.*\n.*\n\s*([\d,]+)\s+[\d.]+%\s+[\d,]+\s+[\d.]+%\s+(\S+)",
                summary, re.M)
print(f"samples: tracy-dump {up_samples} (top {up_top.group(1)} x{up_top.group(2)}), "
      f"tracyc {our_samples} (top {row.group(2)} x{row.group(1)})")
if not (up_samples >= 100 and our_samples >= 100):
    print("  too few samples: is perf_event_open allowed?"); failed = True
if up_top.group(1) != row.group(2):
    print("  the hottest functions differ"); failed = True
sys.exit(1 if failed else 0)
PY
