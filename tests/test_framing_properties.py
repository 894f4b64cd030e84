"""Properties of every framing beside SSE, on the bundled captures and on generated bodies.

- how the bytes are chunked never changes the frames, nor the normalized events;
- a stream cut at any byte before its final signal ends ``interrupted``, never
  ``completed``;
- a frame rebuilt from its span (what the trace stores) is the frame decoded;
- a changed byte in an event-stream message is a protocol error at that message's
  first byte, whatever the byte.
"""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.framing import decoder_for, rebuild_for
from inspector.core.framing.eventstream import encode_message
from inspector.core.sse import Frame

from .framing_support import body_of, compact, protocol_captures, run

CAPTURE_FILES = protocol_captures()
IDS = [f"{p.parent.name}/{p.name}" for p in CAPTURE_FILES]
FRAMINGS = ("ndjson", "aws-eventstream", "json-array")

JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-9, 9)
    | st.text(alphabet='ab"\\{}[],\n\u00e9\U0001f600', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text('ab{"', max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
OBJECTS = st.lists(
    st.dictionaries(st.text('ab"', max_size=3), JSON_VALUE, max_size=3), min_size=1, max_size=6
)


def body_for(framing: str, objects: list[dict[str, object]], style: int) -> bytes:
    """A body of ``objects`` in ``framing`` (``style`` varies the whitespace between them)."""
    texts = [orjson.dumps(o) for o in objects]
    if framing == "ndjson":
        ends = (b"\n", b"\r\n", b"\n\n  \n")
        return b"".join(t + ends[(style + i) % 3] for i, t in enumerate(texts))
    if framing == "json-array":
        gaps = (b",", b"\n,\r\n", b" ,\n ")
        return b"[" + gaps[style % 3].join(texts) + b"]\n"
    return b"".join(
        encode_message(
            {":event-type": f"e{i}", ":message-type": "event", "n": i, "ok": bool(i % 2)}, t
        )
        for i, t in enumerate(texts)
    )


def frames_of(framing: str, pieces: list[bytes]) -> list[tuple[str, str, int, int]]:
    decoder = decoder_for(framing)
    frames: list[Frame] = []
    for piece in pieces:
        frames += decoder.feed(piece)
    assert decoder.error is None
    return [(f.event, f.data, f.start, f.end) for f in frames]


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


@pytest.mark.parametrize("framing", FRAMINGS)
@given(objects=OBJECTS, style=st.integers(0, 2), cuts=st.lists(st.integers(0, 10_000), max_size=8))
def test_any_chunking_gives_the_same_frames(
    framing: str, objects: list[dict[str, object]], style: int, cuts: list[int]
) -> None:
    body = body_for(framing, objects, style)
    whole = frames_of(framing, [body])
    assert frames_of(framing, split(body, cuts)) == whole
    assert frames_of(framing, [body[i : i + 1] for i in range(len(body))]) == whole
    assert [orjson.loads(data) for _, data, _, _ in whole] == objects


@pytest.mark.parametrize("framing", FRAMINGS)
@given(objects=OBJECTS, style=st.integers(0, 2))
def test_a_frame_rebuilt_from_its_span_is_the_frame_decoded(
    framing: str, objects: list[dict[str, object]], style: int
) -> None:
    body = body_for(framing, objects, style)
    decoder = decoder_for(framing)
    frames = decoder.feed(body)
    rebuild = rebuild_for(framing)
    assert rebuild is not None
    for f in frames:
        again = rebuild(
            body[f.start : f.end],
            f.index,
            f.id,
            f.start,
            f.end,
            f.first_chunk,
            f.last_chunk,
            f.time,
        )
        assert again == f
    # The spans tile the body from byte 0 (the separators belong to the frame after them).
    assert [f.start for f in frames] == [0, *(f.end for f in frames[:-1])]


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=IDS)
@settings(max_examples=25)
@given(cuts=st.lists(st.integers(0, 100_000), max_size=12))
def test_a_capture_rechunked_anywhere_gives_the_same_events(path: Path, cuts: list[int]) -> None:
    body, provider, framing, end = body_of(path)
    expected = compact(run([body], provider, framing, end))
    assert compact(run(split(body, cuts), provider, framing, end)) == expected


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=IDS)
def test_a_capture_fed_byte_by_byte_gives_the_same_events(path: Path) -> None:
    body, provider, framing, end = body_of(path)
    expected = compact(run([body], provider, framing, end))
    assert (
        compact(run([body[i : i + 1] for i in range(len(body))], provider, framing, end))
        == expected
    )


COMPLETED = [
    p
    for p in CAPTURE_FILES
    if '"status":"completed"' in p.with_name(p.name[:-6] + ".events.jsonl").read_text()
]


@pytest.mark.parametrize("path", COMPLETED, ids=[f"{p.parent.name}/{p.name}" for p in COMPLETED])
def test_a_cut_before_the_final_signal_is_interrupted_never_completed(path: Path) -> None:
    body, provider, framing, _ = body_of(path)
    whole = run([body], provider, framing)
    assert whole.state == "completed"
    final_frame = whole.frame_of_event(len(whole.events) - 1)
    proof_end = whole.frames.span_of(final_frame)[1]
    # Every cut point up to the last byte of the frame that proves the end (all of
    # them for a small body, an even spread for a larger one).
    step = max(1, proof_end // 400)
    for cut in [*range(0, proof_end, step), proof_end - 1]:
        trace = run([body[:cut]], provider, framing)
        assert trace.state == "interrupted", (cut, trace.outcome)
        assert trace.terminal_event is not None
        assert trace.terminal_event["error"]["category"] == "transport"


def eventstream(payloads: list[bytes]) -> tuple[bytes, list[int]]:
    messages = [encode_message({":event-type": "x", ":message-type": "event"}, p) for p in payloads]
    starts = [sum(len(m) for m in messages[:i]) for i in range(len(messages))]
    return b"".join(messages), starts


@given(
    payloads=st.lists(st.binary(max_size=40), min_size=1, max_size=5),
    which=st.integers(0, 1000),
    at=st.integers(0, 10_000),
    xor=st.integers(1, 255),
    cuts=st.lists(st.integers(0, 10_000), max_size=4),
)
def test_a_changed_byte_is_a_protocol_error_at_its_message(
    payloads: list[bytes], which: int, at: int, xor: int, cuts: list[int]
) -> None:
    body, starts = eventstream(payloads)
    k = which % len(payloads)
    size = (starts[k + 1] if k + 1 < len(starts) else len(body)) - starts[k]
    broken = bytearray(body)
    broken[starts[k] + at % size] ^= xor
    trace = run(split(bytes(broken), cuts), "bedrock-converse", "aws-eventstream")
    assert trace.state == "failed"
    assert trace.terminal_event is not None
    assert trace.terminal_event["error"]["category"] == "protocol_error"
    assert f"at byte {starts[k]};" in str(trace.decoder_error)
    assert len(trace.frames) == k  # every message before it was decoded and kept


def test_a_message_over_the_frame_limit_stops_at_its_first_byte() -> None:
    body, starts = eventstream([b"{}", b"x" * 200])
    decoder = decoder_for("aws-eventstream", max_frame=100)
    assert len(decoder.feed(body)) == 1
    assert f"at byte {starts[1]}" in str(decoder.error)
    assert "over the limit of 100 bytes" in str(decoder.error)


def test_an_ndjson_line_over_the_limit_stops_at_its_first_byte_whatever_the_chunks() -> None:
    body = b'{"a":1}\n' + b'{"b":"' + b"x" * 300 + b'"}\n'
    for pieces in ([body], [body[i : i + 7] for i in range(0, len(body), 7)]):
        decoder = decoder_for("ndjson", max_line=100)
        frames = [f for piece in pieces for f in decoder.feed(piece)]
        assert [f.data for f in frames] == ['{"a":1}']
        assert "ndjson: a line larger than the limit of 100 bytes" in str(decoder.error)
        assert "at byte 8;" in str(decoder.error)


@pytest.mark.parametrize(
    ("body", "offset", "what"),
    [
        (b'{"a":1}', 0, "expected '['"),
        (b'[{"a":1} {"b":2}]', 9, "expected ',' or ']'"),
        (b'[{"a":1},,{"b":2}]', 9, "expected an element"),
        (b'[{"a":1}] x', 10, "after the array's closing ']'"),
    ],
)
def test_a_json_array_out_of_shape_stops_at_the_byte(body: bytes, offset: int, what: str) -> None:
    decoder = decoder_for("json-array")
    decoder.feed(body)
    assert what in str(decoder.error)
    assert f"at byte {offset};" in str(decoder.error)


def test_every_header_value_type_is_read() -> None:
    import struct
    import uuid

    from inspector.core.framing.eventstream import parse_headers

    def header(name: str, kind: int, value: bytes) -> bytes:
        return bytes((len(name),)) + name.encode() + bytes((kind,)) + value

    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    raw = b"".join(
        [
            header("t", 0, b""),
            header("f", 1, b""),
            header("b", 2, b"\xff"),
            header("s", 3, struct.pack(">h", -2)),
            header("i", 4, struct.pack(">i", 70000)),
            header("l", 5, struct.pack(">q", -(2**40))),
            header("y", 6, b"\x00\x02\x01\x02"),
            header("str", 7, b"\x00\x03abc"),
            header("ts", 8, struct.pack(">q", 1764619200000)),
            header("u", 9, ident.bytes),
        ]
    )
    assert parse_headers(raw, 0, len(raw)) == (
        ("t", True),
        ("f", False),
        ("b", -1),
        ("s", -2),
        ("i", 70000),
        ("l", -(2**40)),
        ("y", b"\x01\x02"),
        ("str", "abc"),
        ("ts", 1764619200000),
        ("u", str(ident)),
    )
    with pytest.raises(ValueError, match="runs past"):
        parse_headers(raw[:-3], 0, len(raw) - 3)


def test_the_recorded_bedrock_bodies_pass_both_crcs() -> None:
    from .conftest import DATA

    for path in sorted((DATA / "cassette_bodies").glob("*.b64")):
        body = base64.b64decode(path.read_text())
        decoder = decoder_for("aws-eventstream")
        frames = decoder.feed(body)
        assert decoder.error is None and decoder.close().pending_bytes == 0, path.name
        assert frames and frames[-1].end == len(body)
