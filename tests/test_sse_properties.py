"""Property: how the bytes are chunked never changes what is decoded."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from inspector.core.sse import FrameDecoder

LINE_ENDS = st.sampled_from([b"\n", b"\r", b"\r\n"])
TEXT = st.text(
    alphabet=st.sampled_from(list('ab :{}"\u00e9\u0416\u4e2d\U0001f600\u2028\x00\t')), max_size=12
)
FIELD = st.sampled_from([b"data", b"event", b"id", b"retry", b"dat", b""])


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["field", "field", "field", "comment", "blank", "bare"]))
    end = draw(LINE_ENDS)
    if kind == "blank":
        return end
    if kind == "comment":
        return b":" + draw(TEXT).encode() + end
    if kind == "bare":
        return draw(FIELD) + end
    space = draw(st.sampled_from([b"", b" ", b"  "]))
    value = draw(st.one_of(TEXT, st.integers(0, 99999).map(str))).encode()
    return draw(FIELD) + b":" + space + value + end


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    body = b"".join(draw(st.lists(lines(), max_size=25)))
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    if draw(st.booleans()):
        body += b"\xff\xfe"  # invalid UTF-8, and an unterminated tail
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=12))))
    return body, cuts


def decode(pieces: list[bytes]) -> tuple[list[tuple[object, ...]], tuple[object, ...]]:
    decoder = FrameDecoder()
    frames = []
    for i, piece in enumerate(pieces):
        for f in decoder.feed(piece, float(i)):
            frames.append(f)
    tail = decoder.close()
    # Spans and contents must match; chunk indices and times naturally differ.
    seen = [(f.index, f.event, f.data, f.id, f.retry, f.comment, f.start, f.end) for f in frames]
    return seen, (tail.pending_bytes, tail.start, tail.event, decoder.retry, decoder.last_event_id)


@given(streams())
def test_any_chunking_gives_the_same_frames_spans_and_tail(stream: tuple[bytes, list[int]]) -> None:
    body, cuts = stream
    bounds = [0, *cuts, len(body)]
    pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
    assert decode(pieces) == decode([body])


@given(streams())
def test_byte_at_a_time_equals_whole(stream: tuple[bytes, list[int]]) -> None:
    body, _ = stream
    assert decode([body[i : i + 1] for i in range(len(body))]) == decode([body])


@given(streams())
def test_frame_spans_lie_inside_the_stream_and_do_not_overlap(
    stream: tuple[bytes, list[int]],
) -> None:
    body, _ = stream
    frames, _ = decode([body])
    last_end = 0
    for _index, _event, _data, _id, _retry, comment, start, end in frames:
        assert 0 <= start < end <= len(body)
        if comment is None:
            assert start >= last_end
            last_end = end
