"""A busy program with three threads, to profile with tracer's sampling mode.

    python3 -m tracer --sample examples/python/sampled.py                     # summary of the sampled functions
    python3 -m tracer --sample -o flame.svg examples/python/sampled.py        # its flame graph
    python3 -m tracer --sample -o stacks.folded examples/python/sampled.py    # for flamegraph.pl, speedscope
    python3 -m tracer --sample examples/python/sampled.py  (with the Tracy GUI connected: live view)

No function is traced: every thread's Python stack is sampled 1000 times per second of
its CPU time. The renderer is pure Python, the indexer mixes Python with json and re,
the checksum thread spends its time in hashlib without the GIL, and the main thread
mostly waits (waiting is not sampled).
"""
import hashlib
import json
import re
import threading
import time

WORD = re.compile(r"[a-z]+")


def escape_time(c, limit=60):
    z = 0j
    for i in range(limit):
        z = z * z + c
        if abs(z) > 2:
            return i
    return limit


def render_row(y, width):
    return [escape_time(complex(-2 + 3 * x / width, -1.2 + 2.4 * y / width)) for x in range(width)]


def render(width=360):
    return [render_row(y, width) for y in range(width)]


def documents(n):
    for i in range(n):
        yield json.dumps({"id": i, "text": f"document {i} has words like tracer, sample and stack {i % 13}"})


def index(n=60000):
    counts = {}
    for doc in documents(n):
        for word in WORD.findall(json.loads(doc)["text"]):
            counts[word] = counts.get(word, 0) + 1
    return counts


def checksum(blocks=24):
    data = b"tracer" * (2 << 20)
    return [hashlib.sha256(data).hexdigest() for _ in range(blocks)]


def main():
    workers = [threading.Thread(target=render, name="renderer"),
               threading.Thread(target=index, name="indexer"),
               threading.Thread(target=checksum, name="checksum")]
    for t in workers:
        t.start()
    while any(t.is_alive() for t in workers):
        time.sleep(0.01)


if __name__ == "__main__":
    main()
