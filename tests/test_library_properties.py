"""Properties over the whole capture library and every real stream.

Whatever the network does to the bytes — split them anywhere, add keep-alives
and comments between frames, add events nobody knows, or cut the stream at any
byte — the normalized meaning must not change, and every cut stream must still
end with exactly one terminal event that tells the truth.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.capture import Recording, load_recording
from inspector.core.invariants import check_invariants
from inspector.core.sse import FrameDecoder
from inspector.core.trace import Trace, TransportEnd
from inspector.session import guess_provider, trace_recording

from .conftest import CAPTURES, ROOT
from .golden import capture_files

REAL = ROOT / "tests" / "fixtures" / "real"
OPTIONAL = {"stream.heartbeat", "stream.warning"}


def has_adapter(provider: str | None) -> bool:
    from inspector.core.adapters import adapter_for

    try:
        adapter_for(provider or "")
    except Exception:
        return False
    return True


def streams(root: Path) -> list[Path]:
    out = []
    for path in capture_files(root) if root == CAPTURES else sorted(root.rglob("*.sse")):
        rec = load_recording(path)
        if (rec.status or 200) < 400 and has_adapter(guess_provider(rec)):
            out.append(path)
    return out


LIBRARY = streams(CAPTURES)
REAL_STREAMS = streams(REAL)
ALL = LIBRARY + REAL_STREAMS


def ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


def run(rec: Recording, body: bytes, cuts: list[int], end: TransportEnd | None = None) -> Trace:
    """Normalize ``body`` split at ``cuts`` as if it were ``rec``'s bytes."""
    bounds = [0, *sorted(set(cuts)), len(body)]
    chunks = [(0.0, body[a:b]) for a, b in itertools.pairwise(bounds) if b > a]
    provider = guess_provider(rec)
    return trace_recording(replace(rec, chunks=chunks, end=end or rec.end, problems=[]), provider)


def meaning(trace: Trace) -> list[tuple[Any, ...]]:
    """The normalized sequence without optional events, seq and stream_id.

    An error's message may cite frame numbers and byte offsets, which inserted
    frames shift; its category, code and status are what must not change.
    """
    out = []
    for e in trace.events:
        if e["type"] in OPTIONAL:
            continue
        fields = {k: v for k, v in e.items() if k not in ("seq", "stream_id")}
        if "error" in fields:
            fields["error"] = {k: v for k, v in fields["error"].items() if k != "message"}
        out.append(tuple(sorted((k, repr(v)) for k, v in fields.items())))
    return out


def frame_ends(body: bytes) -> list[int]:
    return [f.end for f in FrameDecoder().feed(body) if not f.is_comment]


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_rechunking_at_any_bytes_changes_nothing(path: Path, data: st.DataObject) -> None:
    rec = load_recording(path)
    body = rec.body
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=40))
    assert run(rec, body, cuts).events == run(rec, body, []).events


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_comments_and_unknown_events_between_frames_change_only_optional_events(path: Path) -> None:
    rec = load_recording(path)
    body = rec.body
    rnd = random.Random(path.name)
    ends = frame_ends(body)[:-1]  # between frames, after the first one (it names the model)
    extras = [
        b": keep-alive\n\n",
        b'event: x-inspector-unknown\ndata: {"type": "x_inspector_unknown", "n": 1}\n\n',
    ]
    out = bytearray()
    last = 0
    for end in ends:
        out += body[last:end]
        if rnd.random() < 0.5:
            out += rnd.choice(extras)
        last = end
    out += body[last:]
    changed = run(rec, bytes(out), [rnd.randrange(len(out) + 1) for _ in range(10)])
    original = run(rec, body, [])
    assert meaning(changed) == meaning(original)
    assert check_invariants(changed.events) == []


def cut_points(body: bytes, rnd: random.Random, spread: int) -> list[int]:
    points = {0, len(body) - 1}
    for end in frame_ends(body):
        points.update({end - 1, end, end + 1})
    points.update(rnd.randrange(len(body)) for _ in range(spread))
    return sorted(p for p in points if 0 <= p < len(body))


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_a_stream_cut_at_any_byte_ends_once_and_honestly(path: Path) -> None:
    rec = load_recording(path)
    body = rec.body
    original = run(rec, body, [])
    terminal_frame = original.event_frame[-1]
    rnd = random.Random(path.name)
    points = cut_points(body, rnd, 20)
    if path.is_relative_to(REAL) and len(points) > 60:
        points = sorted(rnd.sample(points, 60))
    for n in points:
        cut = run(rec, body[:n], [], TransportEnd("reset", None, "cut by the test"))
        assert check_invariants(cut.events) == [], n
        terminals = [e for e in cut.events if e["type"] in ("stream.done", "stream.error")]
        assert len(terminals) == 1, n
        arrived = terminal_frame >= 0 and len(cut.frames) > terminal_frame
        if original.decoder_error is not None:  # (a CRC mismatch: after the last frame)
            arrived = cut.decoder_error is not None
        if arrived:
            assert cut.events[-1] == original.events[-1] or cut.state == original.state, n
        else:
            assert cut.state == "interrupted", (n, cut.events[-1])
            assert cut.events[-1]["error"]["category"] == "transport"
