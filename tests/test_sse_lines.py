"""The core's line scanner reads a body as the decoder does, and says where each piece sits.

``body_lines`` (``inspector/core/sse/lines.py``) gives every line's field,
value and byte spans, for readers that edit a body in place (the exporter).
Grouped at their blank lines by the standard's dispatch rule, the lines must
give exactly the frames the decoder gives — the same events, data, ids,
retries, comments and byte spans — whatever the body: any mix of line ends,
a BOM, fields with and without colons or spaces, invalid UTF-8, NUL bytes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from inspector.core.sse import FrameDecoder
from inspector.core.sse.lines import _any_ends, body_lines, field_span, uniform_line_end

LINE_ENDS = [b"\n", b"\r\n", b"\r"]
FIELDS = [b"data:", b"data: ", b"data", b"event: x", b"event:", b": comment", b":", b"id: 7"]
FIELDS += [b"id: a\x00b", b"retry: 10", b"retry: x", b"da", b"x:y", b"data:  two"]
VALUES = [b"", b"{}", b'{"a": "b"}', b"[DONE]", b" lead", b"caf\xc3\xa9", b"\xff", b":x"]
#: Pieces a body is made of when anything goes: every byte the rules look at.
PIECES = [b"data", b"event", b"id", b"retry", b":", b" ", b"\r", b"\n", b"x", b"1", b"\x00"]
PIECES += [b"\xff", b"\xef\xbb\xbf", b"\r\n\r\n", b"\n\n"]


def _decoded(body: bytes) -> list[tuple[Any, ...]]:
    """The decoder's frames of the whole body, as plain values."""
    decoder = FrameDecoder(max_line=len(body) + 1, max_frame=len(body) + 1)
    return [(f.event, f.data, f.id, f.retry, f.comment, f.start, f.end) for f in decoder.feed(body)]


def _dispatched(body: bytes) -> list[tuple[Any, ...]]:
    """The frames the standard dispatches, read off the scanner's lines."""
    frames: list[tuple[Any, ...]] = []
    data: list[bytes] = []
    event, last_id, retry, block = b"", "", None, -1
    for field, start, value, end, following in body_lines(body):
        if following == end:  # the last line, without its line end: held, never read
            break
        text = body[value:end]
        if field is None:  # a comment: a frame of its own
            comment = body[start + 1 : end]
            comment = comment[1:] if comment[:1] == b" " else comment
            frames.append(
                ("", "", last_id, None, comment.decode("utf-8", "replace"), start, following)
            )
        elif field == b"":  # a blank line: dispatch
            if data:
                name = event.decode("utf-8", "replace") or "message"
                joined = b"\n".join(data).decode("utf-8", "replace")
                frames.append((name, joined, last_id, retry, None, block, following))
            data, event, retry, block = [], b"", None, -1
        else:
            if block < 0:
                block = start
            if field == b"data":
                data.append(text)
            elif field == b"event":
                event = text
            elif field == b"id" and b"\0" not in text:
                last_id = text.decode("utf-8", "replace")
            elif field == b"retry" and text.isdigit():
                retry = int(text)
    return frames


body_of_fields = st.builds(
    lambda bom, parts: (
        (b"\xef\xbb\xbf" if bom else b"")
        + b"".join(f + (v if f.startswith(b"data") else b"") + e for f, v, e in parts)
    ),
    st.booleans(),
    st.lists(
        st.tuples(st.sampled_from(FIELDS), st.sampled_from(VALUES), st.sampled_from(LINE_ENDS)),
        max_size=14,
    ),
)
any_body = st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(body_of_fields, any_body))
@example(b"data: {}\r\ndata:x\n\r")
@example(b"\xef\xbb\xbfdata: a\n\n")
@example(b"data\n\n:\n\nevent\n\n")
def test_the_lines_grouped_at_blank_lines_are_the_decoders_frames(body: bytes) -> None:
    assert _dispatched(body) == _decoded(body)


@settings(max_examples=200, deadline=None)
@given(st.one_of(body_of_fields, any_body))
def test_every_byte_is_on_one_line_and_the_spans_nest(body: bytes) -> None:
    at = 3 if body.startswith(b"\xef\xbb\xbf") else 0
    for field, start, value, end, following in body_lines(body):
        assert start == at and start <= value <= end <= following
        assert b"\r" not in body[start:end] and b"\n" not in body[start:end]
        assert body[end:following] in (b"", b"\n", b"\r", b"\r\n")
        if field is not None:
            assert field == body[start : field_span(body, start, end)[0]]
        at = following
    assert at == len(body)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([b"data: {}", b"event: e", b": c", b"", b"id", b"data"]), max_size=20),
    st.sampled_from([b"\n", b"\r\n"]),
)
def test_a_body_with_one_kind_of_line_end_reads_as_the_general_path_reads_it(
    fields: list[bytes], end: bytes
) -> None:
    body = end.join(fields) + end
    assert list(body_lines(body)) == list(_any_ends(body, 0, None))


@settings(max_examples=200, deadline=None)
@given(st.one_of(body_of_fields, any_body), st.data())
def test_resuming_at_a_line_reads_on_from_there(body: bytes, data: st.DataObject) -> None:
    every = list(body_lines(body))
    if len(every) < 2:
        return
    first = data.draw(st.integers(0, len(every) - 2))
    later = data.draw(st.integers(first + 1, len(every) - 1))
    resume: list[int] = []
    seen = []
    for line in body_lines(body, 0, resume):
        seen.append(line)
        if len(seen) == first + 1:
            resume.append(every[later][1])  # on from the start of line ``later``
    assert seen == every[: first + 1] + every[later:]


@settings(max_examples=100, deadline=None)
@given(st.one_of(body_of_fields, any_body))
def test_a_line_end_given_by_the_caller_reads_as_the_one_found(body: bytes) -> None:
    given_end = uniform_line_end(body)
    assert list(body_lines(body, line_end=given_end)) == list(body_lines(body))
