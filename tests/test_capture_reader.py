"""Reading a capture a piece at a time gives what judging it line by line, as written, gives.

The reader splits reads into lines and takes a short cut for the common
line (a chunk record with text). Whatever the file holds — damage anywhere,
CRLF line ends, blank lines, a line cut short, lines over the limits — and
wherever the reads fall, the chunks, the end and the problems must be those
of reading one line at a time with ``readline`` and judging each line as it
was written (``_line_problem``, the rules the short cut stands in for).
"""

from __future__ import annotations

import base64
import io

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector.capture as capture
from inspector.capture import Recording

HEADER = orjson.dumps(
    {"type": "header", "format": "llm-stream-capture", "version": 1, "provider": "openai-chat"}
)
NAME = "cap.jsonl"


def read_line_by_line(raw: bytes, limit: int) -> Recording:
    """The reference: one bounded ``readline`` at a time, each line judged as written."""
    file = io.BytesIO(raw)
    rec = Recording(NAME, "capture")
    number = first = capture._read_header(rec, file, NAME)
    total = 0
    last = b"\n"
    while line := file.readline(capture.MAX_RECORD_LINE + 1):
        number += 1
        total += len(line)
        last = line
        problem = capture._line_problem(rec, line, number - first, total, limit)
        if problem is not None:
            rec.problems.append(f"{NAME}:{number}: {problem}")
            return rec
    if not last.endswith(b"\n") and rec.end is None:
        rec.problems.append(f"{NAME}:{number}: the last line is cut short")
    elif rec.end is None:
        rec.problems.append(
            f"{NAME}: no end record — the recording stopped before the transport ended"
        )
    return rec


def read_in_pieces(raw: bytes, limit: int) -> Recording:
    return capture._read_stream(io.BytesIO(raw), NAME, NAME, limit)


def chunk(t: float, text: str) -> bytes:
    return orjson.dumps({"type": "chunk", "t": t, "text": text})


# Lines a capture may hold. Good lines are drawn most, so that a capture
# often reaches its limits, its end record, or a damaged line deep inside.
TEXTS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
GOOD = st.one_of(
    st.builds(chunk, st.floats(0, 1e6, allow_nan=False), TEXTS),
    st.builds(chunk, st.floats(0, 1e6, allow_nan=False), TEXTS),
    st.builds(lambda t, s: chunk(t, s), st.integers(0, 99), TEXTS),  # an integer time
    st.builds(
        lambda data: orjson.dumps(
            {"type": "chunk", "t": 0.5, "b64": base64.b64encode(data).decode()}
        ),
        st.binary(max_size=20),
    ),
    st.just(b'{"t": 0.1, "text": "data: x\\n\\n", "type": "chunk", "extra": [1]}'),
    st.sampled_from([b"", b"   ", b"\r", b"\t \t"]),
    st.builds(lambda n: chunk(0.2, "y" * n), st.integers(20, 120)),  # long lines
)
END = b'{"type": "end", "t": 1.0, "reason": "eof", "error": null}'
BAD = st.sampled_from(
    [
        b'{"type": "chunk", "t": 0.1, "b64": "not base64!"}',
        b'{"type": "chunk", "t": "soon", "text": "x"}',
        b'{"type": "chunk", "t": true, "text": "x"}',
        b'{"type": "chunk", "t": 0.1}',
        b'{"type": "chunk", "t": 0.1, "text": 7}',
        b'{"type": "end", "reason": "exploded"}',
        b'{"type": "mystery"}',
        b'"chunk"',
        b"[1, 2]",
        b'{"type": "chunk", "t": 0.1, "te',  # cut mid-record
        b"\xff\xfe not utf-8",
    ]
)


@st.composite
def captures(draw: st.DrawFn) -> list[bytes]:
    """The lines after the header: good ones, maybe a bad one, maybe an end record (last or not)."""
    lines = draw(st.lists(GOOD, max_size=25))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(BAD))
    ending = draw(st.sampled_from(["none", "last", "inside"]))
    if ending == "last":
        lines.append(END)
    elif ending == "inside":  # records after the end
        lines.insert(draw(st.integers(0, len(lines))), END)
    return lines


@settings(max_examples=400, deadline=None)
@given(
    lines=captures(),
    crlf=st.booleans(),
    read_size=st.sampled_from([1, 2, 7, 64, 1 << 20]),
    bound=st.sampled_from(["none", "line", "records", "bytes"]),
    cut=st.booleans(),
    data=st.data(),
)
def test_reading_in_pieces_is_judging_each_line_as_written(
    lines: list[bytes], crlf: bool, read_size: int, bound: str, cut: bool, data: st.DataObject
) -> None:
    end = b"\r\n" if crlf else b"\n"
    written = [line + end for line in lines]
    body = b"".join(written)
    limit, max_line, max_records = 1 << 30, 64 << 20, 2_000_000
    # One bound is brought near to where some line ends; the file may end mid-line.
    near = data.draw(st.integers(0, len(written))) if written else 0
    by = data.draw(st.integers(-1, 1))
    if cut:
        body = body[: data.draw(st.integers(0, len(body)))]
    if bound == "line" and written:
        max_line = max(len(written[min(near, len(written) - 1)]) + by, 1)
    elif bound == "records":
        max_records = max(near + by, 0)
    elif bound == "bytes":  # the most bytes after the header
        limit = max(len(b"".join(written[:near])) + by, 0)
    raw = HEADER + b"\n" + body
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(capture, "_READ_SIZE", read_size)
        patch.setattr(capture, "MAX_RECORD_LINE", max_line)
        patch.setattr(capture, "MAX_RECORDS", max_records)
        expected = read_line_by_line(raw, limit)
        got = read_in_pieces(raw, limit)
    assert (got.chunks, got.end, got.problems) == (expected.chunks, expected.end, expected.problems)


def test_a_damaged_line_is_reported_with_the_parsers_words_for_the_line_as_written() -> None:
    damaged = b'{"type": "chunk", "t": 0.1, "te'
    raw = (
        HEADER
        + b"\n"
        + chunk(0.0, "data: a\n\n")
        + b"\n"
        + damaged
        + b"\n"
        + chunk(0.2, "b")
        + b"\n"
    )
    rec = read_in_pieces(raw, 1 << 30)
    with pytest.raises(orjson.JSONDecodeError) as parsed:
        orjson.loads(damaged + b"\n")  # the line as written, with its LF
    words = str(parsed.value)
    assert rec.chunks == [(0.0, b"data: a\n\n")]
    assert rec.problems == [f"{NAME}:3: not valid JSON ({words})"]


def test_a_line_longer_than_the_limit_is_never_held_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture, "MAX_RECORD_LINE", 1000)
    monkeypatch.setattr(capture, "_READ_SIZE", 100)
    held: list[int] = []
    real_lines = capture._Lines

    class Watched(real_lines):  # type: ignore[misc, valid-type]
        def __iter__(self):  # type: ignore[no-untyped-def]
            for block, size in super().__iter__():
                held.append(max(map(len, block)))
                yield block, size
            held.append(len(self.unterminated))

    monkeypatch.setattr(capture, "_Lines", Watched)
    endless = b'{"type": "chunk", "t": 0.1, "text": "' + b"x" * 1_000_000
    rec = read_in_pieces(HEADER + b"\n" + chunk(0.0, "a") + b"\n" + endless, 1 << 30)
    assert rec.chunks == [(0.0, b"a")]
    assert rec.problems == [f"{NAME}:3: a record line longer than 1,000 bytes"]
    assert max(held) <= 1001


@pytest.mark.parametrize(("spare", "problem"), [(0, "the last line is cut short"), (-1, "longer")])
def test_a_last_line_cut_short_counts_its_bytes_against_the_limit(spare: int, problem: str) -> None:
    first = chunk(0.0, "data: a\n\n") + b"\n"
    cut = chunk(0.1, "data: b\n\n")[:-5]
    rec = read_in_pieces(HEADER + b"\n" + first + cut, len(first) + len(cut) + spare)
    assert rec.chunks == [(0.0, b"data: a\n\n")]
    assert len(rec.problems) == 1 and problem in rec.problems[0]
    assert rec.problems[0].startswith(f"{NAME}:3: ")
