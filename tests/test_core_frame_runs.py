"""Runs of plain events, kept as columns, are exactly the frames the general path builds.

The decoder hands the normalizer each run of plain events (``data: …``, or
``event: …`` + ``data: …``, then a blank line) as one ``FrameRun`` instead of
a ``Frame`` per event. Whatever the bytes and however they are chunked, the
frames a run stands for, its spans and chunk links, the decoder's error and
what is left at the end must be the ones the line-by-line path gives.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.streams import GENERATORS, stream_of_size
from inspector.core.normalizer import Normalizer
from inspector.core.sse import Frame, FrameDecoder, FrameRun, columns, flatten

# Lines of the usual shapes, most of the time, and of every shape that ends a run.
_PLAIN = [b'data: {"a": 1}', b"data: x", b"event: e", b"event: message", b"event: f"]
_ODD = [
    b"data:x", b"event:e", b"id: 7", b"retry: 5", b": ping", b"data: \xff\xfe", b"event: \xc3",
    b"data: " + b"z" * 120, b"event: " + b"n" * 90, b"dat: x", b"data: a\rb",
]  # fmt: skip


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\n", b"\r\n", b"\r"]))
    pieces = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.integers(0, 9))
        if kind < 5:
            pieces.append(draw(st.sampled_from(_PLAIN[:2])) + end + end)
        elif kind < 8:
            event = draw(st.sampled_from(_PLAIN[2:]))
            pieces.append(event + end + draw(st.sampled_from(_PLAIN[:2])) + end + end)
        else:
            pieces.append(draw(st.sampled_from(_ODD)) + draw(st.sampled_from([end, b"\n"])))
    body = b"".join(pieces)
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=10))))
    return body, cuts


def _frame(f: Frame) -> tuple[Any, ...]:
    return (
        f.index, f.event, f.data, f.id, f.retry, f.comment,
        f.start, f.end, f.first_chunk, f.last_chunk, f.time,
    )  # fmt: skip


def _decode(pieces: list[bytes], runs: bool) -> tuple[Any, ...]:
    decoder = FrameDecoder(max_line=100, max_frame=100)
    frames: list[Frame] = []
    for i, piece in enumerate(pieces):
        if runs:
            items = decoder.feed_runs(piece, float(i))
            batches = columns(items)
            assert [
                f for batch in batches for f in map(batch.__getitem__, range(len(batch)))
            ] == flatten(items)
            frames += flatten(items)
        else:
            frames += decoder.feed(piece, float(i))
    tail = decoder.close()
    return [_frame(f) for f in frames], repr(decoder.error), tail, decoder.last_event_id


def _pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in pairwise(bounds)]


@settings(max_examples=300, deadline=None)
@given(streams())
def test_runs_decode_to_the_frames_the_line_by_line_path_decodes(
    stream: tuple[bytes, list[int]],
) -> None:
    body, cuts = stream
    pieces = _pieces(body, cuts)
    with_runs = _decode(pieces, runs=True)
    assert _decode(pieces, runs=False) == with_runs  # feed() is feed_runs(), flattened
    with pytest.MonkeyPatch.context() as patch:
        # The general path alone: no run, no single-event shortcut, no held event line.
        patch.setattr(FrameDecoder, "_regular", lambda *args: 0)
        patch.setattr(FrameDecoder, "_single", lambda *args: None)
        patch.setattr(FrameDecoder, "_hold_event_line", lambda *args: None)
        assert _decode(pieces, runs=True) == with_runs


def test_a_run_reads_as_the_frames_it_stands_for() -> None:
    decoder = FrameDecoder()
    body = b"event: a\ndata: 1\n\nevent: b\ndata: \xff\n\nevent: a\ndata: 3\n\n"
    items = decoder.feed_runs(body, 2.5)
    (run,) = items
    assert isinstance(run, FrameRun) and len(run) == 3 and run.last_index == 2
    assert run.payloads == [b"1", b"\xff", b"3"]  # undecoded: orjson parses bytes as text
    assert run[1] == Frame(1, "b", "\ufffd", "", None, None, 18, 36, 0, 0, 2.5)
    assert run[-1] == run.frames()[2] and run[0:2] == run.frames()[:2] == list(run)[:2]
    with pytest.raises(IndexError):
        run[3]


@pytest.mark.parametrize("provider", sorted(GENERATORS))
@pytest.mark.parametrize("size", [4096, 333, 7])
def test_the_normalizer_records_the_same_frames_from_runs_as_from_frames(
    provider: str, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = stream_of_size(provider, 8_000)

    def trace() -> tuple[Any, ...]:
        normalizer = Normalizer(provider, "st_runs")
        for at in range(0, len(body), size):
            normalizer.feed(body[at : at + size], at / 1000)
        done = normalizer.finish()
        return [_frame(f) for f in done.frames], list(done.events), done.transitions

    with_runs = trace()
    monkeypatch.setattr(FrameDecoder, "feed_runs", FrameDecoder.feed)  # frames only
    assert trace() == with_runs
