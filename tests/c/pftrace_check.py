#!/usr/bin/env python3
"""pftrace_check.py - reads tracyc's Perfetto output (.pftrace) back with Google's protobuf
library (message classes compiled by protoc from tests/c/pftrace.proto, a reader's view of
Perfetto's schema written for this test) and checks that it holds what the capture had.

  pftrace_check.py REPLAY_OUTPUTS STREAM...

For each recorded stream, replay_outputs writes every output from one pass; the .pftrace is then
  - checked as Perfetto's trace processor reads it: every field of the wire type the schema
    gives it, each sequence starting with its incremental state cleared, every interned id
    defined on its sequence before use, every track described before its events;
  - rebuilt into what Perfetto shows (slices by track, nested as the trace processor nests
    begin and end events: by time, then by position in the file; counters; samples with their
    frames; scheduling events) and compared with the other outputs of the same pass: the
    Chrome JSON's zones (name, thread, begin, duration, file, line, text, value), messages,
    frames, plots, GPU zones, sections, thread and process names, zone callstacks ("stackFrames") and
    context switches and wakeups (its ftrace text); the folded stacks' CPU samples;
  - for examples/c/all_events (all_events.stream), checked for what that program recorded:
    source locations, severities, plot units, memory pools, locks, the fiber, the GPU zone.
"""
import collections
import decimal
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4
CLEARED, NEEDS_STATE = 1, 2
STATE_BITS = {"R": 0, "S": 1, "D": 2, "T": 4, "t": 8, "X": 0x10, "Z": 0x20, "P": 0x200, "I": 0x402, "R+": 0x800}


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def load_messages(work):
    subprocess.run(["protoc", "-I", HERE, "--python_out", work, os.path.join(HERE, "pftrace.proto")], check=True)
    sys.path.insert(0, work)
    return importlib.import_module("pftrace_pb2")


# ---- the wire: every field as the schema types it ------------------------------------------------

def varint(data, i):
    value = shift = 0
    while True:
        check(i < len(data), "a varint runs past the end of its message")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def check_wire(data, descriptor, where):
    """Each field the descriptor knows has the wire type of its type: varint for integers (one
    field per element of a repeated unpacked one), 8 bytes for doubles, length-delimited for
    strings, messages and packed arrays. Messages are checked inside."""
    from google.protobuf.descriptor import FieldDescriptor as F
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(data, i)
            body = None
        elif wire == 1:
            i += 8
            body = None
        elif wire == 2:
            n, i = varint(data, i)
            body = data[i:i + n]
            check(len(body) == n, f"{where}: field {number} runs past the end of its message")
            i += n
        elif wire == 5:
            i += 4
            body = None
        else:
            raise Failure(f"{where}: field {number} has wire type {wire}")
        field = descriptor.fields_by_number.get(number)
        if field is None:
            continue
        if field.type == F.TYPE_MESSAGE:
            expected = 2
        elif field.type in (F.TYPE_STRING, F.TYPE_BYTES):
            expected = 2
        elif field.type == F.TYPE_DOUBLE:
            expected = 1
        else:
            expected = 2 if field.label == F.LABEL_REPEATED and field.GetOptions().packed else 0
        check(wire == expected, f"{where}.{field.name}: wire type {wire}, the schema's is {expected}")
        if field.type == F.TYPE_MESSAGE:
            check_wire(body, field.message_type, f"{where}.{field.name}")


# ---- the trace as the trace processor reads it ---------------------------------------------------

class Sequence:
    def __init__(self):
        self.tables = collections.defaultdict(dict)  # interned field -> iid -> entry


class Model:
    """What Perfetto makes of the file."""

    def __init__(self, trace):
        self.tracks = {}  # uuid -> Track
        self.events = collections.defaultdict(list)  # track uuid -> [(time, position, packet, sequence)]
        self.samples = []  # (packet, sequence)
        self.bundles = []  # FtraceBundle
        self.clocks = []
        sequences = {}
        for position, packet in enumerate(trace.packets):
            check(packet.HasField("sequence"), f"packet {position} has no trusted_packet_sequence_id")
            seq = sequences.get(packet.sequence)
            if seq is None:
                check(packet.flags & CLEARED and packet.first_on_sequence,
                      f"sequence {packet.sequence} starts without clearing its state, or saying it starts")
                seq = sequences[packet.sequence] = Sequence()
            self.intern(seq, packet, position)
            event = packet.event if packet.HasField("event") else None
            uses = packet.HasField("sample") or event is not None and (
                event.args or any(event.HasField(f) for f in ("name_iid", "source_location_iid", "callstack_iid",
                                                                "log")))
            if uses:
                check(packet.flags & (NEEDS_STATE | CLEARED), f"packet {position} uses interned data unflagged")
            if packet.HasField("track"):
                track = packet.track
                check(track.uuid != 0, "a track with uuid 0")
                old = self.tracks.get(track.uuid)
                check(old is None or old == track, f"track {track.uuid} described twice, differently")
                check(not track.HasField("parent") or track.parent in self.tracks,
                      f"track {track.uuid}'s parent is described after it")
                self.tracks[track.uuid] = track
            if packet.HasField("event"):
                event = packet.event
                check(event.track in self.tracks, f"packet {position}: an event on undescribed track {event.track}")
                self.resolve_event(seq, event, position)
                self.events[event.track].append((packet.timestamp, position, packet, seq))
            if packet.HasField("sample"):
                self.samples.append((packet, seq))
                if packet.sample.HasField("callstack_iid"):
                    self.stack(seq, packet.sample.callstack_iid)
            if packet.HasField("ftrace"):
                self.bundles.append(packet.ftrace)
            if packet.HasField("clocks"):
                self.clocks.append(packet.clocks)
        self.sequences = sequences

    @staticmethod
    def intern(seq, packet, position):
        if not packet.HasField("interned"):
            return
        for field, entries in packet.interned.ListFields():
            table = seq.tables[field.name]
            for entry in entries:
                check(entry.iid != 0, f"packet {position}: {field.name} with iid 0")
                old = table.get(entry.iid)
                check(old is None or old == entry, f"packet {position}: {field.name} {entry.iid} redefined")
                table[entry.iid] = entry
        # what the entries refer to is defined on the sequence by now
        for frame in packet.interned.frames:
            check(frame.function_iid in seq.tables["function_names"], f"frame {frame.iid}: unknown function")
            check(frame.mapping_iid in seq.tables["mappings"], f"frame {frame.iid}: unknown mapping")
            check(not frame.HasField("source_path_iid") or frame.source_path_iid in seq.tables["source_paths"],
                  f"frame {frame.iid}: unknown source path")
        for mapping in packet.interned.mappings:
            for path in mapping.path_iids:
                check(path in seq.tables["mapping_paths"], f"mapping {mapping.iid}: unknown path")
        for stack in packet.interned.stacks:
            for frame in stack.frame_iids:
                check(frame in seq.tables["frames"], f"callstack {stack.iid}: unknown frame {frame}")

    def lookup(self, seq, table, iid, what):
        entry = seq.tables[table].get(iid)
        check(entry is not None, f"{what}: {table} iid {iid} not interned before")
        return entry

    def resolve_event(self, seq, event, position):
        where = f"packet {position}"
        if event.HasField("name_iid"):
            self.lookup(seq, "event_names", event.name_iid, where)
        if event.HasField("source_location_iid"):
            self.lookup(seq, "locations", event.source_location_iid, where)
        if event.HasField("callstack_iid"):
            self.stack(seq, event.callstack_iid)
        if event.HasField("log"):
            self.lookup(seq, "log_bodies", event.log.body_iid, where)
        for arg in event.args:
            self.lookup(seq, "arg_names", arg.name_iid, where)

    def stack(self, seq, iid):
        """A callstack's frames, outermost first: (function, file, line, mapping path)."""
        stack = self.lookup(seq, "stacks", iid, "a callstack")
        frames = []
        for f in stack.frame_iids:
            frame = seq.tables["frames"][f]
            function = seq.tables["function_names"][frame.function_iid].value.decode()
            file = (seq.tables["source_paths"][frame.source_path_iid].value.decode()
                    if frame.HasField("source_path_iid") else "")
            mapping = seq.tables["mappings"][frame.mapping_iid]
            image = "/".join(seq.tables["mapping_paths"][p].value.decode() for p in mapping.path_iids)
            frames.append((function, file, frame.line, image))
        return frames

    def name(self, seq, event):
        if event.HasField("name_iid"):
            return seq.tables["event_names"][event.name_iid].value.decode()
        return event.name

    def args(self, seq, event):
        out = {}
        for arg in event.args:
            key = seq.tables["arg_names"][arg.name_iid].value.decode()
            out[key] = arg.string_value if arg.HasField("string_value") else (
                arg.uint_value if arg.HasField("uint_value") else arg.bool_value)
        return out

    def slices(self, uuid):
        """The track's slices and instants, as the trace processor makes them: events by time,
        ties by position in the file; a begin opens a slice, an end closes the innermost open one
        (its arguments merged into it), an instant is a slice of no length at the depth reached."""
        out, stack = [], []
        for time, _, packet, seq in sorted(self.events[uuid], key=lambda e: (e[0], e[1])):
            event = packet.event
            if event.type == BEGIN or event.type == INSTANT:
                s = {"name": self.name(seq, event), "begin": time, "end": time, "depth": len(stack),
                     "args": self.args(seq, event), "event": event, "seq": seq,
                     "parent": stack[-1] if stack else None}
                out.append(s)
                if event.type == BEGIN:
                    stack.append(s)
            elif event.type == END:
                check(stack, f"track {uuid}: an end at {time} with no slice open")
                s = stack.pop()
                s["end"] = time
                s["args"].update(self.args(seq, event))
        check(not stack, f"track {uuid}: {len(stack)} slices never ended")
        for s in out:  # each lies within the one it is below
            p = s["parent"]
            check(p is None or p["begin"] <= s["begin"] <= s["end"] <= p["end"], f"track {uuid}: {s['name']} "
                  f"[{s['begin']}, {s['end']}] sticks out of {p and p['name']}")
        return out

    def counters(self, uuid):
        values = []
        for time, _, packet, _ in sorted(self.events[uuid], key=lambda e: (e[0], e[1])):
            event = packet.event
            check(event.type == COUNTER, f"track {uuid}: a {event.type} event on a counter track")
            values.append((time, event.counter if event.HasField("counter") else event.double_counter))
        return values

    def thread_tracks(self):
        return {uuid: t for uuid, t in self.tracks.items() if t.HasField("thread")}

    def track_name(self, uuid):
        t = self.tracks[uuid]
        return t.thread.name if t.HasField("thread") else t.process.name if t.HasField("process") else t.name

    def children(self, parent):
        return {uuid: t for uuid, t in self.tracks.items() if t.parent == parent}


# ---- the other outputs ------------------------------------------------------------------------------

def ns(text):
    """A JSON time (microseconds, as tracyc writes them: exact nanoseconds and a trailing "01")."""
    return int(decimal.Decimal(text) * 1000)


def read_json(path):
    with open(path) as f:
        return json.load(f, parse_float=str)


GPU_TID_BASE = 0xFFFFFF00


def json_zones(doc):
    """Zones and GPU zones: (pid, tid, name, begin, duration, file, line, text, value)."""
    zones = collections.Counter()
    for e in doc["traceEvents"]:
        if e["ph"] != "X":
            continue
        a = e["args"]
        zones[(e["pid"], e["tid"], e["name"], ns(e["ts"]), ns(e["dur"]), a["file"], a["line"], a.get("text"),
               a.get("value"))] += 1
    return zones


def json_stack(doc, sf):
    labels = []
    while sf is not None:
        frame = doc["stackFrames"][str(sf)]
        labels.append(frame["name"])
        sf = frame.get("parent")
    return labels[::-1]


def sched_lines(doc):
    """sched_switch: (cpu, time, prev_pid, prev_state, next_pid, next_comm, prev_comm); sched_waking:
    (cpu, time, pid, comm); and the process of each thread a line starts with, where known."""
    switches, wakings, tgids = [], [], {}
    for line in doc.get("systemTraceEvents", "").splitlines():
        m = re.match(r".*-(\d+) +\(([-\d]+)\) +\[(\d+)\] +\S+ +(\d+)\.(\d{9}): (\w+): (.*)$", line)
        if not m:
            continue
        if m.group(2) != "-----":
            tgids[int(m.group(1))] = int(m.group(2))
        cpu, time, event, fields = int(m.group(3)), int(m.group(4)) * 10**9 + int(m.group(5)), m.group(6), m.group(7)
        kv = dict(re.findall(r"(\w+)=(\S+)", fields))
        if event == "sched_switch":
            switches.append((cpu, time, int(kv["prev_pid"]), kv["prev_state"], int(kv["next_pid"]), kv["next_comm"],
                             kv["prev_comm"]))
        elif event == "sched_waking":
            wakings.append((cpu, time, int(kv["pid"]), kv["comm"]))
    return switches, wakings, tgids


def ftrace_comm(name):
    """A name as the JSON's ftrace text prints it."""
    return "".join("_" if c in " =" or ord(c) < 0x20 else c for c in name)[:31]


def folded_label(s):
    return "".join("_" if c == ";" or ord(c) < 0x20 else c for c in s)


# ---- the comparisons ------------------------------------------------------------------------------------

def check_stream(pb2, replay, stream, work):
    name = os.path.basename(stream).rsplit(".", 1)[0]
    out = os.path.join(work, name)
    os.makedirs(out)
    subprocess.run([replay, stream, out], check=True)
    return check_outputs(pb2, out, name)


def check_outputs(pb2, out, name=""):
    """The .pftrace in directory out (trace.pftrace) read back and compared with the other outputs of
    the same capture there (trace.json, profile.folded): what each holds of it (zones, messages, ...)."""
    with open(os.path.join(out, "trace.pftrace"), "rb") as f:
        data = f.read()
    check_wire(data, pb2.Trace.DESCRIPTOR, "Trace")
    trace = pb2.Trace()
    trace.ParseFromString(data)
    model = Model(trace)
    doc = read_json(os.path.join(out, "trace.json"))
    facts = {}

    # processes and threads, named as in the JSON
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    # a process track a source, named and numbered as the JSON's process_name events
    json_processes = sorted((e["pid"], e["args"]["name"]) for e in doc["traceEvents"]
                            if e["ph"] == "M" and e["name"] == "process_name")
    processes = [t for t in model.tracks.values() if t.HasField("process")]
    check(sorted((t.process.pid, t.process.name) for t in processes) == json_processes,
          f"process tracks {[t.process for t in processes]} are not the JSON's {json_processes}")
    pid_of_track = {uuid: t.process.pid for uuid, t in model.tracks.items() if t.HasField("process")}
    threads = model.thread_tracks()
    by_thread = {(t.thread.pid, t.thread.tid): uuid for uuid, t in threads.items()}
    check(len(by_thread) == len(threads), "two tracks for one thread")
    for key, uuid in by_thread.items():
        if key in names:
            check(threads[uuid].thread.name == names[key], f"thread {key} named {threads[uuid].thread.name!r}")

    # zones and messages on thread tracks; GPU zones on GPU tracks
    zones, instants = collections.Counter(), collections.Counter()
    stacks = {}
    for uuid, t in threads.items():
        for s in model.slices(uuid):
            event, seq = s["event"], s["seq"]
            if event.type == INSTANT:
                instants[(t.thread.pid, t.thread.tid, s["name"], s["begin"])] += 1
                continue
            loc = model.lookup(seq, "locations", event.source_location_iid, "a zone")
            name = s["args"].get("name", s["name"])  # a name given after the begin went out
            key = (t.thread.pid, t.thread.tid, name, s["begin"], s["end"] - s["begin"], loc.file, loc.line,
                   s["args"].get("text"), s["args"].get("value"))
            zones[key] += 1
            if event.HasField("callstack_iid"):
                stacks[key] = model.stack(seq, event.callstack_iid)
    gpu = {uuid: t for uuid, t in model.tracks.items() if t.name.startswith("GPU context")}
    section_tracks = {uuid: t for uuid, t in model.tracks.items() if re.fullmatch(r"section \d+", t.name)}
    for uuid in gpu:
        for s in model.slices(uuid):
            loc = model.lookup(s["seq"], "locations", s["event"].source_location_iid, "a GPU zone")
            tid = GPU_TID_BASE | int(re.match(r"GPU context (\d+)", gpu[uuid].name).group(1))
            pid = pid_of_track.get(gpu[uuid].parent, json_processes[0][0])
            zones[(pid, tid, s["name"], s["begin"], s["end"] - s["begin"], loc.file, loc.line, None,
                   None)] += 1
    expected = json_zones(doc)
    check(zones == expected, f"zones differ from the JSON's: missing {list((expected - zones).items())[:3]}, "
                             f"extra {list((zones - expected).items())[:3]}")
    facts["zones"] = sum(zones.values())

    # zone callstacks: the JSON's "stackFrames" names each frame "function file:line"
    checked = 0
    for e in doc["traceEvents"]:
        if e["ph"] != "X" or "sf" not in e:
            continue
        a = e["args"]
        key = (e["pid"], e["tid"], e["name"], ns(e["ts"]), ns(e["dur"]), a["file"], a["line"], a.get("text"),
               a.get("value"))
        check(key in stacks, f"zone {key} has a callstack in the JSON, none in the .pftrace")
        labels = [f + (" " + os.path.basename(file) + (f":{line}" if line else "") if file else "")
                  for f, file, line, _ in stacks[key]]
        check(labels == json_stack(doc, e["sf"]), f"zone {key}: callstack {labels}")
        checked += 1
    facts["zone callstacks"] = checked

    expected = collections.Counter((e["pid"], e["tid"], e["name"], ns(e["ts"])) for e in doc["traceEvents"]
                                   if e["ph"] == "i" and e["s"] == "t")
    check(instants == expected, f"messages differ from the JSON's: {instants} {expected}")
    facts["messages"] = sum(instants.values())

    # frames: the JSON has each frame's start, named after its set (with " frame" when the name lacks it)
    frames = collections.Counter()
    for uuid, t in model.tracks.items():
        if t.parent and model.tracks[t.parent].HasField("process") and not t.HasField("counter") \
                and uuid not in gpu and uuid not in section_tracks:
            for s in model.slices(uuid):
                check(s["name"] == t.name, f"frame {s['name']} on track {t.name}")
                label = t.name if "frame" in t.name.lower() else t.name + " frame"
                frames[(label, s["begin"])] += 1
    expected = collections.Counter((e["name"], ns(e["ts"])) for e in doc["traceEvents"]
                                   if e["ph"] == "i" and e["s"] == "g")
    check(frames == expected, f"frames differ from the JSON's: {frames} {expected}")
    facts["frames"] = sum(frames.values())

    # sections: a track of each id under its process, as the JSON's "b"/"e" pairs of category "section"
    sections = collections.Counter()
    for uuid, t in section_tracks.items():
        for s in model.slices(uuid):
            a = s["args"]
            sections[(pid_of_track[t.parent], int(t.name.split()[1]), s["name"], s["begin"], s["end"],
                      a.get("category"), a.get("description"), bool(a.get("unfinished")))] += 1
    expected, begun = collections.Counter(), {}
    for e in doc["traceEvents"]:
        if e.get("cat") != "section":
            continue
        if e["ph"] == "b":
            begun[(e["pid"], e["id"])] = e
            continue
        b = begun.pop((e["pid"], e["id"]))
        a = b["args"]
        expected[(e["pid"], e["id"], b["name"], ns(b["ts"]), ns(e["ts"]), a["category"], a.get("description"),
                  bool(e.get("args", {}).get("unfinished")))] += 1
    check(sections == expected, f"sections differ from the JSON's: {sections} {expected}")
    facts["sections"] = sum(sections.values())

    # plots
    counters = {t.name: model.counters(uuid) for uuid, t in model.tracks.items() if t.HasField("counter")}
    plots = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "C":
            value = list(e["args"].values())[0]
            plots[e["name"]].append((ns(e["ts"]), float(value)))
    for plot, values in plots.items():
        check(plot in counters, f"no counter track for plot {plot}")
        check(sorted(values) == sorted((t, float(v)) for t, v in counters[plot]), f"plot {plot}'s values differ")
    facts["plot values"] = sum(len(v) for v in plots.values())

    # CPU samples: as the folded stacks count them
    folded = collections.Counter()
    thread_names = {(t.thread.pid, t.thread.tid): t.thread.name for t in threads.values()}
    for packet, seq in model.samples:
        s = packet.sample
        path = [thread_names[(s.pid, s.tid)]]
        if len(json_processes) > 1:  # several processes: the folded lines start with the process
            path = [dict(json_processes)[s.pid]] + path
        if s.HasField("callstack_iid"):
            path += [folded_label(f[0]) for f in model.stack(seq, s.callstack_iid)]
        folded[";".join(path)] += 1
    expected = collections.Counter()
    with open(os.path.join(out, "profile.folded")) as f:
        for line in f:
            if line.startswith("#"):  # why there are no samples, for people: not a stack
                continue
            path, count = line.rstrip("\n").rsplit(" ", 1)
            expected[path] += int(count)
    check(folded == expected, f"samples differ from the folded stacks': {folded - expected} {expected - folded}")
    facts["samples"] = sum(folded.values())

    # context switches and wakeups: the JSON's ftrace text
    json_switches, json_wakings, tgids = sched_lines(doc)
    prev_comms = {(cpu, time): prev_comm for cpu, time, *_, prev_comm in json_switches}
    # timeline: every switch and wakeup in file order, a bundle's compact switches before its
    # compact wakeups (as the trace processor tokenizes them); IMPLIED: a thread the compact form
    # leaves to the CPU's last switch
    timeline, IMPLIED, SWITCH, WAKING = [], object(), "switch", "waking"
    for b in model.bundles:
        sched, time = b.sched, 0
        check(len(sched.switch_time) == len(sched.switch_prev_state) == len(sched.switch_next_pid)
              == len(sched.switch_next_prio) == len(sched.switch_next_comm), "compact sched arrays differ in length")
        for i, step in enumerate(sched.switch_time):
            time += step
            check(sched.switch_next_comm[i] < len(sched.comms), "a comm index past the bundle's table")
            timeline.append((b.cpu, time, SWITCH, IMPLIED, sched.switch_prev_state[i], sched.switch_next_pid[i],
                             ftrace_comm(sched.comms[sched.switch_next_comm[i]])))
        for e in b.events:  # in full: a switch's previous thread, a wakeup's waker said, not implied
            check(e.HasField("sched_switch") or e.HasField("sched_waking"),
                  "an ftrace event other than sched_switch or sched_waking")
            if e.HasField("sched_waking"):
                wk = e.sched_waking
                check(wk.target_cpu == b.cpu and wk.prio == 120 and wk.success == 1,
                      f"the full sched_waking at {e.timestamp}: its target CPU, prio or success")
                timeline.append((b.cpu, e.timestamp, WAKING, e.pid, wk.pid, ftrace_comm(wk.comm)))
                continue
            sw = e.sched_switch
            check(e.pid == sw.prev_pid and sw.prev_prio == sw.next_prio == 120, "a full sched_switch's pid or prio")
            check(ftrace_comm(sw.prev_comm) == prev_comms.get((b.cpu, e.timestamp)),
                  f"the full sched_switch at {e.timestamp} names its previous thread otherwise than the JSON")
            timeline.append((b.cpu, e.timestamp, SWITCH, sw.prev_pid, sw.prev_state, sw.next_pid,
                             ftrace_comm(sw.next_comm)))
        time = 0
        for i, step in enumerate(sched.waking_time):
            time += step
            check(sched.waking_target_cpu[i] == b.cpu, "a wakeup targets another CPU than its bundle's")
            timeline.append((b.cpu, time, WAKING, IMPLIED, sched.waking_pid[i],
                             ftrace_comm(sched.comms[sched.waking_comm[i]])))
    # as the trace processor sorts them (by time; stable), a compact switch's previous thread
    # being the one the CPU's previous switch put there, a compact wakeup's waker the thread on
    # the CPU; a CPU's first switch in the compact form it drops (FtraceSchedEventTracker::
    # PushSchedSwitchCompact: no previous thread), and so a compact wakeup before it
    # (PushSchedWakingCompact: no waker)
    switches, wakings, last = [], [], {}
    for cpu, time, kind, said, *fields in sorted(timeline, key=lambda s: s[1]):
        if kind == WAKING:
            pid, comm = fields
            check(said is not IMPLIED or cpu in last,
                  f"a wakeup on CPU {cpu} at {time}, before the CPU's first switch, is compact: "
                  "the trace processor drops it")
            check(said is IMPLIED or said == last.get(cpu, 0),
                  f"the full sched_waking at {time}: its waker is not the thread on CPU {cpu}")
            wakings.append((cpu, time, pid, comm))
            continue
        state, nxt, comm = fields
        check(said is not IMPLIED or cpu in last,
              f"CPU {cpu}'s first switch, at {time}, is compact: the trace processor drops it")
        switches.append((cpu, time, last.get(cpu) if said is IMPLIED else said, state, nxt, comm))
        last[cpu] = nxt
    expected = [(cpu, time, prev, STATE_BITS[state], nxt, comm)
                for cpu, time, prev, state, nxt, comm, _ in json_switches]
    check(sorted(switches, key=lambda s: (s[1], s[0])) == sorted(expected, key=lambda s: (s[1], s[0])),
          "context switches differ from the JSON's")
    check(sorted(wakings) == sorted(json_wakings), "wakeups differ from the JSON's")
    facts["switches"], facts["wakeups"] = len(switches), len(wakings)
    # the processes of other programs' threads
    tree = {t.tid: t.tgid for packet in trace.packets if packet.HasField("process_tree")
            for t in packet.process_tree.threads}
    own = {t.thread.tid: t.thread.pid for t in threads.values()}
    expected = {tid: tgid for tid, tgid in tgids.items() if tid and tid not in own}
    check(tree == expected, "the processes of other programs' threads differ from the JSON's")
    check(all(own[tid] == tgid for tid, tgid in tgids.items() if tid in own), "a thread's process differs")
    facts["threads of other programs"] = len(tree)

    # the clock: the trace's clock, with the wall-clock time of the start
    if model.clocks:
        readings = {r.clock: r.time for r in model.clocks[0].readings}
        check(model.clocks[0].primary == 6 and 6 in readings and 1 in readings, "the clock snapshot")

    if name == "all_events":
        check_all_events(model, threads, counters)
    return facts


def check_all_events(model, threads, counters):
    """What examples/c/all_events.c recorded."""
    main = [u for u, t in threads.items() if t.thread.name == "Main thread"][0]
    slices = {s["name"]: s for s in model.slices(main)}
    outer = slices["renamed outer"]
    loc = model.lookup(outer["seq"], "locations", outer["event"].source_location_iid, "outer")
    check((loc.function, loc.file.endswith("all_events.c")) == ("main", True), f"outer's source location {loc}")
    check(outer["args"] == {"text": "some text\n42 [0x2a]", "value": 42, "color": "#00ff00"},
          f"outer's arguments {outer['args']}")
    inner = slices["dynamic zone"]
    loc = model.lookup(inner["seq"], "locations", inner["event"].source_location_iid, "inner")
    check((loc.function, loc.file, loc.line) == ("dynamic_function", "dynamic.c", 7), f"inner's location {loc}")
    check(inner["depth"] == 1 and outer["begin"] <= inner["begin"] <= inner["end"] <= outer["end"],
          "the dynamic zone is not inside the outer one")
    priorities = {s["name"]: s["event"].log.priority for s in model.slices(main) if s["event"].type == INSTANT}
    check(priorities["error message"] == 6 and priorities["dynamic message"] == 4, f"priorities {priorities}")
    fiber = [u for u, t in threads.items() if t.thread.name == "fiber A"]
    check(fiber and [s["name"] for s in model.slices(fiber[0])] == ["in fiber"], "the fiber's zone")
    units = {t.name: (t.counter.unit, t.counter.unit_name) for t in model.tracks.values() if t.HasField("counter")}
    check(units["value"] == (0, "%") and units["memory"] == (3, "") and units["memory: pool"] == (3, ""),
          f"counter units {units}")
    check([v for _, v in counters["memory"]] == [100, 0] and [v for _, v in counters["memory: pool"]] == [200, 0],
          "the memory pools' live bytes")
    check([v for _, v in counters["int plot"]] == [-3], "the integer plot")
    locks = collections.Counter()
    for uuid, t in model.tracks.items():
        if t.name.startswith("lock: "):
            check(t.parent == main, f"{t.name} is not beside the main thread")
            for s in model.slices(uuid):
                check(s["end"] >= s["begin"], "a lock slice ends before it begins")
                locks[s["name"]] += 1
    check(locks == {"wait: state lock": 2, "hold: state lock": 2, "wait: locks": 2, "hold: locks": 2},
          f"lock slices {locks}")
    gpu = [t.name for t in model.tracks.values() if t.name.startswith("GPU context")]
    check(gpu == ["GPU context 0: compute queue"], f"GPU tracks {gpu}")
    process = [t for t in model.tracks.values() if t.HasField("process")][0]
    check(list(process.process.labels) == ["all_events"], f"app info {process.process.labels}")


def main():
    replay, streams = sys.argv[1], sys.argv[2:]
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        pb2 = load_messages(work)
        for stream in streams:
            name = os.path.basename(stream)
            try:
                facts = check_stream(pb2, replay, stream, work)
                print(f"ok   {name}: " + ", ".join(f"{v} {k}" for k, v in facts.items()))
            except Failure as e:
                print(f"FAIL {name}: {e}")
                failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
