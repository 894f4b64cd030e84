"""The decoder's own promises beyond WHATWG: spans, chunk links, limits, the tail."""

from __future__ import annotations

import itertools

import pytest

from inspector.core.sse import FrameDecoder, FrameTooLarge


def test_each_frame_knows_its_byte_span_chunks_and_arrival_time() -> None:
    decoder = FrameDecoder()
    first = decoder.feed(b"event: a\ndata: 1", 0.5)
    frames = decoder.feed(b"\n\n: ping\n\ndata: 2\n\n", 0.75)
    assert first == []
    a, ping, two = frames
    assert (a.event, a.data, a.start, a.end, a.first_chunk, a.last_chunk, a.time) == (
        "a", "1", 0, 18, 0, 1, 0.75,
    )  # fmt: skip
    assert (ping.comment, ping.start, ping.end, ping.is_comment) == ("ping", 18, 25, True)
    assert (two.data, two.start, two.end, two.first_chunk) == ("2", 26, 35, 1)
    assert [f.index for f in frames] == [0, 1, 2]


def test_crlf_split_across_chunks_is_one_line_end_and_the_span_includes_the_lf() -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(b"data: x\r\n\r", 0.0)
    assert [f.data for f in frames] == ["x"]
    assert frames[0].end == 10
    assert decoder.feed(b"\ndata: y\r\n\r\n", 1.0)[0].data == "y"
    assert frames[0].end == 11


def test_multibyte_utf8_split_between_chunks_decodes_whole() -> None:
    raw = "data: Проверяю 😀\n\n".encode()
    decoder = FrameDecoder()
    frames = [f for i in range(len(raw)) for f in decoder.feed(raw[i : i + 1])]
    assert [f.data for f in frames] == ["Проверяю 😀"]


def test_a_line_past_the_limit_stops_decoding_with_a_clear_error_keeping_earlier_frames() -> None:
    decoder = FrameDecoder(max_line=64)
    frames = decoder.feed(b"data: ok\n\ndata: " + b"x" * 100)
    assert [f.data for f in frames] == ["ok"]
    assert isinstance(decoder.error, FrameTooLarge)
    assert "line starting at byte 10 is larger than the limit of 64 bytes" in str(decoder.error)
    assert decoder.feed(b"\n\ndata: later\n\n") == []


def test_a_long_line_fed_in_small_chunks_hits_the_limit_without_a_terminator() -> None:
    decoder = FrameDecoder(max_line=1000)
    for _ in range(20):
        decoder.feed(b"y" * 100)
    assert isinstance(decoder.error, FrameTooLarge)


def test_an_event_past_the_frame_limit_is_an_error_even_with_short_lines() -> None:
    decoder = FrameDecoder(max_frame=50)
    decoder.feed(b"data: 0123456789\n" * 10)
    assert isinstance(decoder.error, FrameTooLarge)
    assert decoder.error.what == "event"


def test_close_reports_an_unterminated_event_and_its_name() -> None:
    decoder = FrameDecoder()
    decoder.feed(b'event: message_stop\ndata: {"type":"message_stop"}')
    tail = decoder.close()
    assert tail.unterminated
    assert (tail.event, tail.has_data, tail.start, tail.pending_bytes) == (
        "message_stop", True, 0, 49,
    )  # fmt: skip


def test_close_after_a_clean_end_reports_nothing_pending() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"data: a\n\n")
    assert not decoder.close().unterminated


def test_a_bom_split_over_three_chunks_is_still_stripped() -> None:
    decoder = FrameDecoder()
    out = decoder.feed(b"\xef") + decoder.feed(b"\xbb") + decoder.feed(b"\xbfdata: a\n\n")
    assert [(f.data, f.start) for f in out] == [("a", 3)]


@pytest.mark.parametrize(
    ("body", "cuts"),
    [
        # A lone CR inside a comment, balanced by a line without its CR further on:
        # a count of CRs alone would call this segment CRLF throughout.
        (b"data:\n:\n:\r:\r\n\r\ndata:\ndata:\ndata:\ndata:\ndata:\n", [8, 21]),
        (b"\ndata:y\r\ndata:y\r\n", []),
        (b"data: a\rb\r\n\r\ndata: c\n\r\n", []),
        (b"event: e\rx\r\ndata: 1\r\n\r\nevent: f\r\ndata: 2\n\r\n", [3]),
        (b"data: 1\r\n\r\ndata: 2\r\n\r", [20]),
    ],
)
def test_lone_crs_among_crlf_lines_decode_as_whatwg_says_whatever_the_chunking(
    body: bytes, cuts: list[int]
) -> None:
    def decode(pieces: list[bytes]) -> list[tuple[object, ...]]:
        decoder = FrameDecoder()
        frames = [f for piece in pieces for f in decoder.feed(piece)]
        return [(f.event, f.data, f.comment, f.start, f.end) for f in frames]

    bounds = [0, *cuts, len(body)]
    whole = decode([body])
    assert decode([body[a:b] for a, b in itertools.pairwise(bounds)]) == whole
    assert decode([body[i : i + 1] for i in range(len(body))]) == whole
