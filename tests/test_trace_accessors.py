"""Read-only bulk accessors of the trace agree with the per-item ones they summarize."""

from __future__ import annotations

import itertools
import random

from benchmarks.streams import GENERATORS
from inspector.core.normalizer import Normalizer

ODD = (
    b"\xef\xbb\xbfdata: bom\n\n: ping\n\nevent: e\ndata: a\n: inside\ndata: b\nid: 7\n\n"
    b"retry: 15\ndata: \xff not utf-8\r\n\r\ndata: lone cr\r\rdata: crlf split\r"
)


def _pieces(body: bytes, rnd: random.Random) -> list[bytes]:
    bounds = sorted({0, len(body), *rnd.sample(range(len(body) + 1), min(len(body), 40))})
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def test_frame_span_columns_hold_every_frames_span_and_chunks_in_order() -> None:
    rnd = random.Random(13)
    bodies = [ODD + b"\n", *(GENERATORS[p](20) for p in sorted(GENERATORS))]
    for body in bodies:
        for provider in ("openai-chat", "anthropic"):
            normalizer = Normalizer(provider, "s")
            normalizer.feed_many((float(i), piece) for i, piece in enumerate(_pieces(body, rnd)))
            frames = normalizer.finish().frames
            starts, ends, firsts, lasts = frames.span_columns()
            assert len(starts) == len(ends) == len(firsts) == len(lasts) == len(frames) > 0
            for i in range(len(frames)):
                assert (starts[i], ends[i]) == frames.span_of(i)
                assert range(firsts[i], lasts[i] + 1) == frames.chunks_of(i)


def test_frame_span_columns_are_copies_the_caller_may_keep_or_change() -> None:
    normalizer = Normalizer("openai-chat", "s")
    normalizer.feed_many([(0.0, b"data: {}\n\ndata: {}\n\n")])
    frames = normalizer.finish().frames
    starts = frames.span_columns()[0]
    starts[0] = 99
    assert frames.span_of(0) == (0, 10)
    assert frames.span_columns()[0].tolist() == [0, 10]


def test_event_compact_yields_every_event_in_order_deltas_as_kind_block_and_text() -> None:
    for provider in sorted(GENERATORS):
        normalizer = Normalizer(provider, "s")
        normalizer.feed_many([(0.0, GENERATORS[provider](20))])
        events = normalizer.finish().events
        rebuilt = []
        for kind, item, text in events.compact():
            if kind is None:
                rebuilt.append(item)
                continue
            rebuilt.append(
                {"stream_id": "s", "seq": len(rebuilt) + 1, "type": "block.delta",
                 "block": item, "delta": {"kind": kind, "text": text}}
            )  # fmt: skip
        assert rebuilt == list(events)
        assert any(kind is not None for kind, _, _ in events.compact())
