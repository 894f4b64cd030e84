"""The rewrite reads the events the decoder makes: its data spans follow the same line rules.

The export edits the body in place, so it finds each event's ``data:`` values
as spans of the body — the core's line scanner (``core/sse/lines.py``)
grouped at blank lines (``export/rewrite/collect.py``: ``data_values``) —
rather than through the decoder, whose frames hold the decoded text. Both
must agree on every event of every stream: same events, same data, whatever
the line ends.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from inspector.core.sse import FrameDecoder
from inspector.export.rewrite import data_values

LINE_ENDS = [b"\n", b"\r\n", b"\r"]
FIELDS = [b"data:", b"data: ", b"data", b"event: x", b": comment", b"id: 7", b"retry: 10", b"da"]
VALUES = [b"", b"{}", b'{"a": "b"}', b"[DONE]", b" two  spaces", b"caf\xc3\xa9", b"\xff", b":x"]


def _decoded_events(body: bytes) -> list[bytes]:
    """The data of every event the decoder dispatches, as UTF-8 (invalid bytes replaced)."""
    decoder = FrameDecoder(max_line=len(body) + 1, max_frame=len(body) + 1)
    frames = decoder.feed(body)
    return [f.data.encode("utf-8") for f in frames if f.comment is None]


def _scanned_events(body: bytes) -> list[bytes]:
    """The data of every event the rewrite finds, joined as the decoder joins data lines."""
    found = []
    for spans in data_values(body):
        data = b"\n".join(body[start:end] for start, end in spans)
        found.append(data.decode("utf-8", "replace").encode("utf-8"))
    return found


lines = st.lists(
    st.tuples(st.sampled_from(FIELDS), st.sampled_from(VALUES), st.sampled_from(LINE_ENDS)),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(lines, st.booleans(), st.sampled_from(LINE_ENDS))
@example([(b"data: ", b"{}", b"\r\n"), (b"data:", b"x", b"\n"), (b"", b"", b"\r")], False, b"\n")
def test_the_rewrite_finds_the_data_of_every_event_the_decoder_dispatches(
    parts: list[tuple[bytes, bytes, bytes]], bom: bool, last_end: bytes
) -> None:
    body = (b"\xef\xbb\xbf" if bom else b"") + b"".join(
        field + (value if field.startswith(b"data") else b"") + end for field, value, end in parts
    )
    body += last_end * 2  # the last event ends, so the decoder dispatches it too
    assert _scanned_events(body) == _decoded_events(body)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from([b"data: {}", b"event: e", b": c", b""]), max_size=20),
    st.sampled_from([b"\n", b"\r\n"]),
)
def test_uniform_line_ends_take_the_fast_scan_and_agree_too(
    fields: list[bytes], end: bytes
) -> None:
    body = end.join(fields) + end * 2
    assert _scanned_events(body) == _decoded_events(body)
