"""``load_trace(..., as_received=False)``: what check and events show does not depend on chunking.

``check`` and ``events`` normalize a capture's chunks joined into large
pieces. Everything they show - the events, the frames (count, spans, what
they hold), what was ignored or refused, the problems, how the stream
ended - must be what normalizing the chunks as received gives, for every
stream and every way it was chunked, damage and decoder errors included.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector.session as session
from inspector.capture_writer import CaptureWriter
from inspector.core.trace import Trace
from inspector.session import load_trace

from .conftest import CAPTURES, ROOT

REAL = ROOT / "tests" / "fixtures" / "real"


def shown(trace: Trace) -> dict[str, Any]:
    """Everything of a trace that does not depend on how its bytes were chunked."""
    return {
        "events": list(trace.events),
        "frames": [
            (f.index, f.start, f.end, f.event, f.data, f.id, f.retry, f.comment)
            for f in trace.frames
        ],
        "ignored": list(trace.ignored),
        "violations": list(trace.violations),
        "problems": list(trace.problems),
        "decoder_error": trace.decoder_error,
        "outcome": trace.outcome,
        "transport_end": trace.transport_end,
        "bytes": trace.chunks.bytes_received,
    }


def both(path: Path, provider: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    received = load_trace(path, provider)
    joined = load_trace(path, provider, as_received=False)
    return shown(received), shown(joined)


def stream_files() -> list[Path]:
    captures = [p for p in CAPTURES.glob("*/*.jsonl") if not p.name.endswith(".events.jsonl")]
    return sorted(captures) + sorted(REAL.glob("*/*.sse"))


def test_every_bundled_capture_and_real_stream_shows_the_same_joined() -> None:
    files = stream_files()
    assert len(files) >= 60
    for path in files:
        received, joined = both(path)
        assert joined == received, path


def write_capture(path: Path, body: bytes, cuts: list[int], provider: str) -> None:
    writer = CaptureWriter(path, {"provider": provider, "endpoint": "test"})
    at = 0
    for i, cut in enumerate(sorted({min(c, len(body)) for c in cuts} | {len(body)})):
        writer.chunk(i * 0.01, body[at:cut])
        at = cut
    writer.end("eof", 1.0)


# Real streams, with their line ends rewritten (CR, CRLF) and damage added.
BODIES = {
    path.name: (path.parent.name, path.read_bytes())
    for path in [
        REAL / "openai-chat" / "openai-text-plain.sse",
        REAL / "anthropic" / "tool-use-with-text.sse",
        REAL / "gemini" / sorted(p.name for p in (REAL / "gemini").glob("*.sse"))[0],
        REAL / "openai-responses"
        / sorted(p.name for p in (REAL / "openai-responses").glob("*.sse"))[0],
    ]
}  # fmt: skip


def damaged(name: str, line_end: bytes, damage: str) -> tuple[str, bytes]:
    """The provider and body of real stream ``name`` with these line ends and this damage."""
    provider, body = BODIES[name]
    body = body.replace(b"\r\n", b"\n").replace(b"\n", line_end)
    if damage == "bad json":
        middle = body.find(line_end * 2, len(body) // 2) + 2 * len(line_end)
        body = body[:middle] + b"data: {not json" + line_end * 2 + body[middle:]
    elif damage == "cut":
        body = body[: len(body) * 2 // 3]
    elif damage == "comment":
        body = b": keep-alive" + line_end + body
    elif damage == "bom":
        body = b"\xef\xbb\xbf" + body
    return provider, body


@contextlib.contextmanager
def joined_in_pieces(piece: int, max_line: int | None) -> Iterator[None]:
    """Joined normalization in pieces of ``piece`` bytes, and decoder bounds of ``max_line``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session, "JOINED_PIECE", piece)
        if max_line is not None:  # a line over the decoder's bound, found out at any chunk
            bounded = functools.partial(
                session.Normalizer, max_line=max_line, max_frame=4 * max_line
            )
            patch.setattr(session, "Normalizer", bounded)
        yield


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(BODIES)),
    line_end=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    damage=st.sampled_from(["none", "bad json", "cut", "comment", "bom"]),
    cuts=st.lists(st.integers(0, 1 << 16), max_size=40),
    piece=st.sampled_from([1, 7, 300, session.JOINED_PIECE]),
    max_line=st.sampled_from([None, 64, 200]),
)
def test_a_capture_chunked_any_way_shows_the_same_joined(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    line_end: bytes,
    damage: str,
    cuts: list[int],
    piece: int,
    max_line: int | None,
) -> None:
    provider, body = damaged(name, line_end, damage)
    path = tmp_path_factory.mktemp("joined") / "c.jsonl"
    write_capture(path, body, [c % (len(body) + 1) for c in cuts], provider)
    with joined_in_pieces(piece, max_line):
        received, joined = both(path)
    assert joined == received
