"""A small threaded pipeline to profile with tracer.

    python3 -m tracer -o trace.json examples/python/pipeline.py     # open trace.json in Perfetto
    python3 -m tracer examples/python/pipeline.py                    # summary of the top zones
    python3 -m tracer examples/python/pipeline.py  (with the Tracy GUI connected: live view)

Every Python call becomes a zone automatically; the zone(), signpost(), plot() and
frame_mark() calls below add what the call tree alone cannot tell.
"""
import json
import queue
import re
import threading

import tracer

WORDS = re.compile(r"[a-z]+")


def make_record(i):
    return {"id": i, "text": f"record {i} says hello to tracer number {i % 7}"}


@tracer.zone("parse record", color=0x3366CC)  # the function's own zone nests inside
def parse(line):
    record = json.loads(line)
    return record["id"], WORDS.findall(record["text"])


def producer(lines, count):
    for i in range(count):
        lines.put(json.dumps(make_record(i)))
    lines.put(None)


def consumer(lines, totals):
    tracer.set_thread_name("consumer")
    while (line := lines.get()) is not None:
        ident, words = parse(line)
        totals[ident] = len(words)
        tracer.plot("queue size", lines.qsize())


def run_batch(batch, count):
    tracer.signpost(f"batch {batch}", f"{count} records")
    lines, totals = queue.Queue(maxsize=64), {}
    threads = [threading.Thread(target=producer, args=(lines, count), name="producer"),
               threading.Thread(target=consumer, args=(lines, totals))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with tracer.zone("summarise"):
        return sum(totals.values())


def main():
    for batch in range(3):
        words = run_batch(batch, 200)
        tracer.message(f"batch {batch}: {words} words")
        tracer.frame_mark()


if __name__ == "__main__":
    main()
