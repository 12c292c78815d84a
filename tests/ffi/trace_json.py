"""trace_json.py - runs an example under the in-process capture (TRACYC_OUTPUT) and
summarises the Chrome trace it wrote, for the example tests."""
import collections
import json
import os
import subprocess


def run_captured(args, output, extra_env=None):
    """Runs args with TRACYC_OUTPUT=output and no server wait; returns (trace, stdout)."""
    if os.path.exists(output):
        os.remove(output)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACY_", "TRACYC_"))}
    env.update(extra_env or {}, TRACYC_OUTPUT=output)
    result = subprocess.run(args, env=env, check=True, timeout=240, capture_output=True, text=True)
    with open(output) as f:
        return json.load(f), result.stdout


class Summary:
    def __init__(self, trace):
        events = trace["traceEvents"]
        self.other = trace.get("otherData", {})
        self.threads = {e["tid"]: e["args"]["name"] for e in events
                        if e["ph"] == "M" and e["name"] == "thread_name"}
        self.zone_values = collections.Counter()
        for e in events:
            if e["ph"] == "X":
                self.zone_values[e["name"]] += e["args"].get("value", 0)
        self.zones_by_thread = collections.Counter((self.threads.get(e["tid"], ""), e["name"])
                                                   for e in events if e["ph"] == "X")
        self.counters = collections.defaultdict(list)
        for e in events:
            if e["ph"] == "C":
                self.counters[e["name"]].append(e["args"][e["name"]])
        self.instants = [e["name"] for e in events if e["ph"] == "i"]


class Checker:
    def __init__(self, name):
        self.name, self.failed, self.passed = name, 0, 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL", what)

    def finish(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 1 if self.failed else 0
