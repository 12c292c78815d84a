"""Tests of pipeline.py, to profile a test run (every test a signposted region, every call a zone):

    PYTHONPATH=bindings/python python3 -m tracer -m pytest examples/python
    PYTHONPATH=bindings/python python3 -m pytest -p tracer.pytest_plugin --tracer examples/python
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipeline  # noqa: E402


def test_parse_gives_the_id_and_the_words():
    assert pipeline.parse('{"id": 3, "text": "record 3 says hi"}') == (3, ["record", "says", "hi"])


def test_a_batch_counts_the_words_of_every_record():
    expected = sum(len(pipeline.WORDS.findall(pipeline.make_record(i)["text"])) for i in range(50))
    assert pipeline.run_batch(0, 50) == expected
