"""Two streams compared by their normalized events: where they part, and how.

"This worked yesterday and fails today" is one call: :func:`diff_streams`
normalizes both sides (a capture, a raw SSE body, a cassette, or a golden
``.events.jsonl``) and reports

* the **first divergence**: the first event index where the two sequences
  differ, with both events;
* **per-block** differences: kind, tool name, the text or the tool
  arguments (which keys differ, or where the text parts);
* the **terminal state** (status, finish reason, error category and code),
  **usage**, and the **timing shape** (time to first token, total, longest
  gap, chunk and frame counts) — timing is shown, never compared: two
  recordings never share a clock.

By default the values that differ between any two recordings of the same
exchange — the stream id, the provider's response and call ids, the raw
usage object — are left out of the comparison (``exact=True`` keeps all
but the stream id), so a divergence means the *stream* changed.

Across protocols (Claude direct over SSE against Claude on Bedrock invoke,
an AWS event stream) the same answer must compare equal, so the facts of
the transport are set aside too (:data:`TRANSPORT_FACTS`), unless ``exact``:

====================================  ==========================================
fact                                  why it is the transport's, not the answer's
====================================  ==========================================
``stream.start``'s ``framing``        how the bytes were cut (contract v1.1)
``stream.heartbeat`` events, when     keep-alives are each transport's own (SSE
the two sides' framings differ        ``ping`` / comments; an event stream has
                                      none); they never change a stream's state
``seq``                               the position, which is what is compared
``frame N`` in a warning's or an      where on the wire: pings and framings
error's message, when the framings    number frames differently (the code, the
differ                                path and the rest are compared)
====================================  ==========================================

What stays compared is the answer: the provider name (Bedrock invoke keeps
the inner model's), the model, every block and delta, the finish reason,
the normalized usage and every warning and error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from .core.choices import key_name, key_of
from .core.trace import Trace

__all__ = [
    "BlockSummary",
    "DiffInputError",
    "Divergence",
    "Side",
    "StreamDiff",
    "TimingShape",
    "diff_events",
    "diff_streams",
    "is_events_file",
    "load_side",
]

# Kept as written (fmt: skip): a set of event types, several to a line.
_EVENT_TYPES: Final = frozenset(
    {"stream.start", "block.start", "block.delta", "block.stop", "stream.done", "stream.error",
     "stream.heartbeat", "stream.warning"}
)  # fmt: skip
_ID_FIELDS: Final = ("response_id", "call_id")
#: Fields of the transport, not of the answer (see the module docstring).
TRANSPORT_FACTS: Final = ("framing", "seq")
_HEARTBEAT: Final = "stream.heartbeat"
_MAX_EVENTS_FILE: Final = 1 << 30


class DiffInputError(ValueError):
    """A side that cannot be read or normalized; the message says why, path first."""


@dataclass(frozen=True)
class TimingShape:
    """How a stream unfolded in time (seconds); None where the recording kept no timing."""

    timed: bool
    ttft: float | None
    total: float | None
    max_gap: float | None
    chunks: int
    frames: int


@dataclass
class Side:
    """One side of a diff: its events, and the trace when it was a stream (not a golden)."""

    path: str
    events: list[dict[str, Any]]
    trace: Trace | None = None
    #: Keep-alives set aside across transports (their events are not in ``events``).
    set_aside: int = 0

    @property
    def framing(self) -> str:
        """The framing its ``stream.start`` names (``sse`` when it names none)."""
        start = self.events[0] if self.events else {}
        framing = start.get("framing") if start.get("type") == "stream.start" else None
        return framing if isinstance(framing, str) else "sse"


@dataclass(frozen=True)
class Divergence:
    """The first event index (0-based) where the sides differ, and both events there."""

    index: int
    left: dict[str, Any] | None
    right: dict[str, Any] | None


@dataclass
class BlockSummary:
    """What one block of a stream carried, assembled from its events."""

    index: int
    kind: str = "?"
    name: str | None = None
    text: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    signature: int = 0
    citations: int = 0
    closed: bool = False

    @property
    def label(self) -> str:
        """``b_1 tool_call get_weather``."""
        name = f" {self.name}" if self.name else ""
        return f"{key_name(self.index)} {self.kind}{name}"


@dataclass
class StreamDiff:
    """The whole comparison (see the module docstring)."""

    left: Side
    right: Side
    first: Divergence | None
    blocks: list[str]
    terminal: tuple[dict[str, Any], dict[str, Any]]
    usage: tuple[dict[str, Any] | None, dict[str, Any] | None]
    timing: tuple[TimingShape | None, TimingShape | None]
    exact: bool = False

    @property
    def same(self) -> bool:
        """No event differs (as compared; timing never counts)."""
        return self.first is None


# -- loading ------------------------------------------------------------------


def is_events_file(path: str | Path, head: bytes) -> bool:
    """A golden ``.events.jsonl``: named so, or its first line is a contract event."""
    if str(path).endswith(".events.jsonl"):
        return True
    first = head.lstrip().split(b"\n", 1)[0]
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return (
        isinstance(record, dict)
        and record.get("type") in _EVENT_TYPES
        and "seq" in record
        and "stream_id" in record
    )


def _read_events(path: str) -> list[dict[str, Any]]:
    try:
        with Path(path).open("rb") as file:
            data = file.read(_MAX_EVENTS_FILE + 1)
    except OSError as exc:
        raise DiffInputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > _MAX_EVENTS_FILE:
        raise DiffInputError(f"{path}: larger than 1 GiB")
    events: list[dict[str, Any]] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise DiffInputError(f"{path}:{number}: not valid JSON ({exc})") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise DiffInputError(f"{path}:{number}: not a contract event (no 'type')")
        events.append(event)
    return events


def load_side(path: str | Path, provider: str | None = None) -> Side:
    """Read one side: a golden events file as is, anything else normalized.

    Raises :class:`DiffInputError` (a ``ValueError``) when it cannot be read.
    """
    from .session import load_trace

    name = str(path)
    try:
        with Path(path).open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise DiffInputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if is_events_file(name, head):
        return Side(name, _read_events(name))
    try:
        trace = load_trace(path, provider)
    except ValueError as exc:  # UnreadableInput, ProviderUnknown
        raise DiffInputError(str(exc)) from None
    return Side(name, list(trace.events), trace)


# -- comparing ----------------------------------------------------------------


_FRAME_REF: Final = re.compile(r"\bframe \d+")


def _without_frame_numbers(value: Any) -> Any:
    return _FRAME_REF.sub("frame #", value) if isinstance(value, str) else value


def comparable(
    event: Mapping[str, Any], exact: bool = False, across: bool = False
) -> dict[str, Any]:
    """The parts of an event that are compared (see the module docstring).

    ``across``: the two sides' framings differ, so a message's frame numbers
    are the transports' too.
    """
    out = {k: v for k, v in event.items() if k != "stream_id"}
    if exact:
        return out
    if across:
        if "message" in out:
            out["message"] = _without_frame_numbers(out["message"])
        error = out.get("error")
        if isinstance(error, Mapping) and "message" in error:
            out["error"] = {**error, "message": _without_frame_numbers(error["message"])}
    for key in TRANSPORT_FACTS:
        out.pop(key, None)
    for key in _ID_FIELDS:
        if key in out:
            out[key] = "<id>" if out[key] else out[key]
    usage = out.get("usage")
    if isinstance(usage, Mapping):
        out["usage"] = {k: v for k, v in usage.items() if k != "raw"}
    return out


def first_divergence(
    left: Sequence[Mapping[str, Any]],
    right: Sequence[Mapping[str, Any]],
    exact: bool = False,
    across: bool = False,
) -> Divergence | None:
    """The first index where the two event sequences differ, or None."""
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else None
        b = right[i] if i < len(right) else None
        if a is None or b is None or comparable(a, exact, across) != comparable(b, exact, across):
            return Divergence(
                i, dict(a) if a is not None else None, dict(b) if b is not None else None
            )
    return None


def blocks_of(events: Sequence[Mapping[str, Any]]) -> dict[int, BlockSummary]:
    """Each block's kind, tool name, text, arguments, by its key (its index without choices)."""
    blocks: dict[int, BlockSummary] = {}
    for event in events:
        block = event.get("block")
        if not isinstance(block, Mapping) or not isinstance(key := key_of(block), int):
            continue  # (the key: choice and index as one int)
        summary = blocks.setdefault(key, BlockSummary(key))
        kind = event.get("type")
        if kind == "block.start":
            summary.kind = str(block.get("kind", "?"))
            name = event.get("name")
            summary.name = name if isinstance(name, str) else None
        elif kind == "block.stop":
            summary.closed = True
        elif kind == "block.delta":
            delta = event.get("delta")
            if not isinstance(delta, Mapping):
                continue
            value = delta.get("text")
            text = value if isinstance(value, str) else ""
            dkind = delta.get("kind")
            if dkind == "text":
                summary.text.append(text)
            elif dkind == "json_text":
                summary.arguments.append(text)
            elif dkind == "signature":
                summary.signature += len(text)
            elif dkind == "citation":
                summary.citations += 1
    return blocks


def _snippet(text: str, at: int, width: int = 24) -> str:
    start = max(0, at - width // 2)
    piece = text[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _text_difference(what: str, a: str, b: str) -> str:
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return (
        f"{what}: different from character {at}: {_snippet(a, at)!r} vs {_snippet(b, at)!r} "
        f"({len(a)} vs {len(b)} characters)"
    )


def _arguments_difference(a: str, b: str) -> str:
    try:
        left, right = orjson.loads(a), orjson.loads(b)
    except orjson.JSONDecodeError:
        return _text_difference("arguments (not both valid JSON)", a, b)
    if isinstance(left, dict) and isinstance(right, dict):
        keys = sorted(
            (k for k in set(left) | set(right) if left.get(k, ...) != right.get(k, ...)), key=str
        )
        shown = ", ".join(
            f"{k}: {orjson.dumps(left.get(k)).decode() if k in left else '(absent)'} vs "
            f"{orjson.dumps(right.get(k)).decode() if k in right else '(absent)'}"
            for k in keys[:5]
        )
        more = f" (+{len(keys) - 5} more)" if len(keys) > 5 else ""
        return f"arguments differ in {len(keys)} key(s): {shown}{more}"
    return _text_difference("arguments", a, b)


def block_differences(
    left: Sequence[Mapping[str, Any]], right: Sequence[Mapping[str, Any]]
) -> list[str]:
    """One line per block that differs between the sides (empty when none does)."""
    a_blocks, b_blocks = blocks_of(left), blocks_of(right)
    lines = []
    for index in sorted(set(a_blocks) | set(b_blocks)):
        a, b = a_blocks.get(index), b_blocks.get(index)
        if a is None or b is None:
            present = a or b
            assert present is not None
            side = "A" if a is not None else "B"
            lines.append(f"{present.label}: only in {side}")
            continue
        label = a.label if a.label == b.label else key_name(index)
        found = []
        if (a.kind, a.name) != (b.kind, b.name):
            found.append(f"{a.kind} {a.name or ''} vs {b.kind} {b.name or ''}".replace("  ", " "))
        a_text, b_text = "".join(a.text), "".join(b.text)
        if a_text != b_text:
            found.append(_text_difference("text", a_text, b_text))
        a_args, b_args = "".join(a.arguments), "".join(b.arguments)
        if a_args != b_args:
            found.append(_arguments_difference(a_args, b_args))
        if a.closed != b.closed:
            found.append(
                f"{'closed' if a.closed else 'left open'} vs "
                f"{'closed' if b.closed else 'left open'}"
            )
        if bool(a.signature) != bool(b.signature):
            found.append(f"signature {a.signature} vs {b.signature} characters")
        if found:
            lines.append(f"{label}: " + "; ".join(found))
    return lines


def terminal_of(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How the stream ended: state, finish reason, error category and code."""
    last = events[-1] if events else None
    if last is None or last.get("type") not in ("stream.done", "stream.error"):
        return {"state": "unfinished"}
    if last.get("type") == "stream.done":
        return {
            "state": "completed",
            "finish_reason": last.get("finish_reason"),
            "provider_finish_reason": last.get("provider_finish_reason"),
        }
    found = last.get("error")
    error: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    return {
        "state": last.get("status"),
        "category": error.get("category"),
        "provider_code": error.get("provider_code"),
    }


def usage_of(events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The normalized usage of ``stream.done`` (without the raw object), if any."""
    for event in reversed(events):
        usage = event.get("usage")
        if event.get("type") == "stream.done" and isinstance(usage, Mapping):
            return {k: v for k, v in usage.items() if k != "raw"}
    return None


def _is_timed(trace: Trace) -> bool:
    header = trace.header
    if header is not None:
        return header.get("timed") is not False
    return any(trace.frames.time_of(i) for i in range(min(len(trace.frames), 1000)))


def timing_of(trace: Trace | None) -> TimingShape | None:
    """The timing shape of a normalized stream; None for a golden events file."""
    if trace is None:
        return None
    frames = trace.frames
    n = len(frames)
    chunks = len(trace.chunks)
    if not _is_timed(trace):
        return TimingShape(False, None, None, None, chunks, n)
    ttft = None
    for e in range(len(trace.events)):
        if trace.events.type_of(e) == "block.delta":
            ttft = float(frames.time_of(trace.event_frame[e]))
            break
    max_gap = 0.0
    previous = None
    for i in range(n):
        t = float(frames.time_of(i))
        if previous is not None:
            max_gap = max(max_gap, t - previous)
        previous = t
    end = trace.transport_end
    total = end.time if end is not None and end.time is not None else previous
    return TimingShape(True, ttft, total, max_gap if n > 1 else None, chunks, n)


def without_keepalives(side: Side) -> Side:
    """``side`` with its heartbeats set aside (counted in ``set_aside``)."""
    kept = [e for e in side.events if e.get("type") != _HEARTBEAT]
    return Side(side.path, kept, side.trace, side.set_aside + len(side.events) - len(kept))


def diff_events(left: Side, right: Side, exact: bool = False) -> StreamDiff:
    """Compare two sides (see the module docstring)."""
    across = not exact and left.framing != right.framing
    if across:
        left, right = without_keepalives(left), without_keepalives(right)
    return StreamDiff(
        left,
        right,
        first_divergence(left.events, right.events, exact, across),
        block_differences(left.events, right.events),
        (terminal_of(left.events), terminal_of(right.events)),
        (usage_of(left.events), usage_of(right.events)),
        (timing_of(left.trace), timing_of(right.trace)),
        exact,
    )


def diff_streams(
    left: str | Path, right: str | Path, provider: str | None = None, exact: bool = False
) -> StreamDiff:
    """Load and compare two files (raises :class:`DiffInputError`)."""
    return diff_events(load_side(left, provider), load_side(right, provider), exact)
