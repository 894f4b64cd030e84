"""The compact trace storage behaves exactly like the lists it replaces.

Frames are rebuilt from their stored bytes, chunks come back byte for byte
across storage blocks, events are built on access: each is checked against
what the decoder and the machine produced.
"""

from __future__ import annotations

import itertools
import random

import pytest

from benchmarks.streams import GENERATORS, chunked, stream_of_size
from inspector.capture import load_recording
from inspector.core.normalizer import Normalizer, normalize
from inspector.core.sse import FrameDecoder
from inspector.core.trace import IntColumn
from inspector.session import load_trace

from .conftest import CAPTURES
from .golden import capture_files


def _cuts(body: bytes, rnd: random.Random) -> list[bytes]:
    bounds = sorted({0, len(body), *rnd.sample(range(len(body) + 1), min(len(body), 12))})
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def _bodies() -> list[bytes]:
    odd = (
        b"\xef\xbb\xbfdata: bom\n\n: ping\n\nevent: e\ndata: a\n: inside\ndata: b\nid: 7\n\n"
        b"retry: 15\ndata: \xff not utf-8\r\n\r\ndata: lone cr\r\rdata: unterminated"
    )
    files = [load_recording(path).body for path in capture_files()][:40]
    return [odd, *files, *(GENERATORS[p](30) for p in GENERATORS)]


def test_frames_rebuilt_from_the_stored_bytes_equal_the_decoded_frames() -> None:
    rnd = random.Random(11)
    for body in _bodies():
        for variant in (body, body.replace(b"\n", b"\r\n"), body.replace(b"\n", b"\r")):
            for chunks in (_cuts(variant, rnd), chunked(variant, 1), [variant]):
                decoder = FrameDecoder()
                expected = [f for i, c in enumerate(chunks) for f in decoder.feed(c, float(i))]
                normalizer = Normalizer("openai-chat", "st_test")
                for i, chunk in enumerate(chunks):
                    normalizer.feed(chunk, float(i))
                frames = normalizer.trace.frames
                assert list(frames) == expected
                assert frames == expected
                if expected:
                    assert frames[-1] == expected[-1]
                    assert frames[1:3] == expected[1:3]
                    last = expected[-1]
                    assert frames.span_of(-1) == (last.start, last.end)
                    assert frames.time_of(last.index) == last.time
                    assert frames.chunks_of(last.index) == range(
                        last.first_chunk, last.last_chunk + 1
                    )
                columns = [f.start for f in expected], [f.end for f in expected]
                chunk_links = [f.first_chunk for f in expected], [f.last_chunk for f in expected]
                assert tuple(map(list, frames.span_columns())) == (*columns, *chunk_links)
                assert [frames.chunks_of(f.index) for f in expected] == [
                    range(f.first_chunk, f.last_chunk + 1) for f in expected
                ]


def test_chunks_come_back_byte_for_byte_across_the_storage_blocks() -> None:
    rnd = random.Random(5)
    body = bytes(rnd.randrange(256) for _ in range(300_000))
    chunks = _cuts(body, rnd) + chunked(body[:5000], 7)
    normalizer = Normalizer("openai-chat", "st_test")
    for i, chunk in enumerate(chunks):
        normalizer.feed(chunk, i / 10)
    stored = normalizer.trace.chunks
    assert [c.data for c in stored] == chunks
    assert [c.index for c in stored] == list(range(len(chunks)))
    assert stored[-1].time == (len(chunks) - 1) / 10
    whole = b"".join(chunks)
    assert normalizer.trace.bytes_received == len(whole)
    for _ in range(50):
        a = rnd.randrange(len(whole))
        b = rnd.randrange(a, len(whole) + 1)
        assert stored.span(a, b) == whole[a:b]


def test_events_and_index_columns_behave_like_the_lists_they_replace() -> None:
    body = stream_of_size("openai-chat", 5_000)
    trace = normalize([(0.0, chunk) for chunk in chunked(body, 100)], "openai-chat")
    events = list(trace.events)
    assert trace.events == events and events == list(trace.events)
    assert trace.events[-1] == events[-1] and trace.events[2:5] == events[2:5]
    assert [e["seq"] for e in trace.events] == list(range(1, len(events) + 1))
    deltas = [e for e in events if e["type"] == "block.delta"]
    assert deltas[0]["block"] is events[1]["block"]  # the shared {id, index, kind}
    assert trace.terminal_event == events[-1]
    starts = list(trace.frame_event_start)
    assert trace.frame_event_start == starts and isinstance(starts[0], int)
    assert trace.block_events[0] == [
        i for i, e in enumerate(events) if e.get("block", {}).get("index") == 0
    ]
    assert IntColumn([1, 2]) == [1, 2] and IntColumn([1, 2]) != [2, 1] and IntColumn() == []
    with pytest.raises(IndexError):
        trace.events[len(events)]


@pytest.mark.parametrize(
    ("capture", "outcome"),
    [
        ("anthropic/tool-call-fragmented-json.jsonl", "completed (tool_calls)"),
        ("openai-chat/http-429-rate-limited.jsonl", "failed (rate_limited)"),
        ("openai-chat/interrupted-reset-mid-text.jsonl", "interrupted (transport)"),
    ],
)
def test_the_outcome_names_the_state_and_why_it_ended(capture: str, outcome: str) -> None:
    trace = load_trace(CAPTURES / capture)
    assert trace.outcome == outcome
    assert trace.ending == outcome.split("(")[1].rstrip(")")
