"""A record of counts, not history: memory bounded whatever the stream's length.

A recorder with no view — headless ``inspector record``, the proxy for a
flow nobody follows — writes every chunk to the capture file as it arrives
and only needs, at the end, what the summary line and the exit code say: the
outcome, how many frames, events and bytes, the violations. A
:class:`~inspector.core.trace.Trace` keeps everything a view may show, about
2.7 times the bytes received. A :class:`Summary` is the other
:class:`~inspector.core.recorder.Recorder` (it is no kind of trace):

- chunks, frames and events are counted (the capture file has the bytes),
  events by type too; the last :data:`KEPT_EVENTS` events are kept (the
  terminal event is the last one), each checked as it is recorded by an
  :class:`~inspector.core.invariants.InvariantChecker`, which gives the
  problems :func:`~inspector.core.invariants.check_invariants` would;
- violations, ignored frames and problems keep the first
  :data:`KEPT_ENTRIES` each (:class:`Kept`), with exact totals; block
  transitions are counted; stream transitions (at most three) are all
  kept, so :attr:`Summary.state` is exact.

The machine built on a summary keeps no block content but a tool call's
arguments (see :class:`~inspector.core.machine.StreamMachine`).
:class:`~inspector.core.normalizer.Normalizer` builds one with
``keep_history=False``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from .choices import key_of
from .invariants import InvariantChecker, Problem
from .sse import Frame, Tail
from .trace import (
    TERMINAL_TYPES,
    Event,
    Ignored,
    IntColumn,
    Transition,
    TransportEnd,
    Violation,
    skeleton_of,
)

__all__ = ["KEPT_ENTRIES", "KEPT_EVENTS", "Kept", "Summary"]

#: The last events a summary keeps (the terminal event is the last one).
KEPT_EVENTS: Final = 8
#: Violations, ignored frames and invariant problems kept, each.
KEPT_ENTRIES: Final = 100

T = TypeVar("T")


class Kept(Generic[T]):
    """The first :attr:`limit` items recorded, and how many were (:attr:`total`)."""

    __slots__ = ("items", "limit", "total")

    def __init__(self, limit: int = KEPT_ENTRIES) -> None:
        self.items: list[T] = []
        self.limit = limit
        self.total = 0

    def add(self, item: T) -> None:
        """Count ``item``; keep it while fewer than :attr:`limit` are."""
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append(item)


class _FrameCount:
    """A summary's frame log: how many frames were decoded (the capture has them)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def extend(self, frames: Sequence[Frame]) -> None:
        self.count += len(frames)

    def extend_spans(
        self, bounds: list[int], first_chunk: int, chunk: int, time: float, id: str
    ) -> None:
        self.count += len(bounds) - 1


@dataclass(frozen=True, slots=True)
class _Delta:
    block: dict[str, Any]
    kind: str
    text: str


class Summary:
    """Counts and the last events of one stream (see the module docstring)."""

    def __init__(
        self,
        stream_id: str,
        provider: str | None = None,
        source: str | None = None,
        header: dict[str, Any] | None = None,
    ) -> None:
        self.stream_id = stream_id
        self.provider = provider
        self.source = source
        self.header = header
        self.tail: Tail | None = None
        self.transport_end: TransportEnd | None = None
        self.decoder_error: str | None = None
        self.chunk_count = 0
        self._received = 0
        self._frames = _FrameCount()
        self._events = 0
        self._recent: deque[Event | _Delta] = deque(maxlen=KEPT_EVENTS)
        self._counts: dict[str, int] = {}
        #: The contract's invariants, checked event by event.
        self.checker = InvariantChecker(limit=KEPT_ENTRIES)
        #: Every stream transition (at most three), in order.
        self.stream_transitions: list[Transition] = []
        self.block_transitions = 0
        self.blocks = 0
        self.violations: Kept[Violation] = Kept()
        self.ignored: Kept[Ignored] = Kept()
        self.problems: Kept[str] = Kept()

    # -- the Recorder protocol -----------------------------------------------------------

    @property
    def keeps_history(self) -> bool:
        """A summary keeps none."""
        return False

    @property
    def span_log(self) -> _FrameCount:
        """Decoded frames are counted."""
        return self._frames

    def add_chunk(self, offset: int, time: float, data: bytes) -> None:
        """Count a chunk."""
        self.chunk_count += 1
        self._received = offset + len(data)

    def add_chunks(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        """Count chunks."""
        if offsets:
            self.chunk_count += len(offsets)
            self._received = offsets[-1] + len(datas[-1])

    def set_frame_end(self, index: int, end: int) -> None:
        """Spans are not kept."""

    def frame_started(self) -> None:
        """Frame → event links are not kept."""

    def frames_started(self, events: Sequence[int]) -> None:
        """Frame → event links are not kept."""

    @property
    def event_count(self) -> int:
        """Events recorded."""
        return self._events

    def emit(self, event: Event, frame: int) -> None:
        """Count, check and keep (among the last) one event."""
        row = skeleton_of(event)
        self.checker.rows((row,))
        kind = str(row[0])
        self._counts[kind] = self._counts.get(kind, 0) + 1
        self._recent.append(event)
        self._events += 1

    def emit_delta(
        self, block: dict[str, Any], kind: str, text: str, frame: int, links: IntColumn
    ) -> None:
        """Count, check and keep (among the last) one plain delta."""
        key = block["index"] if "choice" not in block else key_of(block)
        self.checker.deltas(key, self.stream_id, self._events + 1, 1)
        self._counts["block.delta"] = self._counts.get("block.delta", 0) + 1
        self._recent.append(_Delta(block, kind, text))
        self._events += 1

    def emit_deltas(
        self, block: dict[str, Any], kind: str, texts: list[str], frame: int, links: IntColumn
    ) -> Sequence[int]:
        """:meth:`emit_delta` for each text, in bulk."""
        first, count = self._events, len(texts)
        key = block["index"] if "choice" not in block else key_of(block)
        self.checker.deltas(key, self.stream_id, first + 1, count)
        self._counts["block.delta"] = self._counts.get("block.delta", 0) + count
        self._recent.extend(_Delta(block, kind, text) for text in texts[-KEPT_EVENTS:])
        self._events += count
        return range(first, first + count)

    def block_opened(self, index: int, links: IntColumn) -> None:
        """Count a block."""
        self.blocks += 1

    def add_transition(self, transition: Transition) -> None:
        """Keep a stream transition; count a block's."""
        if transition.subject == "stream":
            self.stream_transitions.append(transition)
        else:
            self.block_transitions += 1

    def add_violation(self, violation: Violation) -> None:
        """Keep (the first) and count."""
        self.violations.add(violation)

    def add_ignored(self, ignored: Ignored) -> None:
        """Keep (the first) and count."""
        self.ignored.add(ignored)

    def error_body(self) -> bytes:
        """No bytes are kept: the caller hands an error body to ``fail_http`` itself."""
        return b""

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """The stream state after everything recorded so far."""
        return self.stream_transitions[-1].after if self.stream_transitions else "idle"

    @property
    def recent_events(self) -> list[Event]:
        """The last :data:`KEPT_EVENTS` events (fewer if fewer were recorded), in order."""
        first = self._events - len(self._recent)
        out: list[Event] = []
        for seq, kept in enumerate(self._recent, start=first + 1):
            if isinstance(kept, dict):
                out.append(kept)
            else:
                delta = {"kind": kept.kind, "text": kept.text}
                out.append(
                    {
                        "stream_id": self.stream_id,
                        "seq": seq,
                        "type": "block.delta",
                        "block": kept.block,
                        "delta": delta,
                    }
                )
        return out

    @property
    def terminal_event(self) -> Event | None:
        """The ``stream.done`` / ``stream.error`` event, if the stream ended."""
        last = self._recent[-1] if self._recent else None
        if isinstance(last, dict) and last.get("type") in TERMINAL_TYPES:
            return last
        return None

    @property
    def outcome(self) -> str:
        """``completed (stop)``, ``failed (rate_limited)``; the state alone while open."""
        terminal = self.terminal_event
        if terminal is None:
            return self.state
        if terminal["type"] == "stream.done":
            return f"{self.state} ({terminal['finish_reason']})"
        return f"{self.state} ({terminal['error']['category']})"

    @property
    def bytes_received(self) -> int:
        """Total bytes in all chunks."""
        return self._received

    @property
    def frame_count(self) -> int:
        """Frames decoded."""
        return self._frames.count

    def type_counts(self) -> Mapping[str, int]:
        """Events by type, counted as they were recorded."""
        return self._counts

    def invariant_problems(self, ended: bool = True) -> list[Problem]:
        """What :func:`~inspector.core.invariants.check_invariants` says of the events
        (the first :data:`KEPT_ENTRIES`; ``checker.found`` counts them all)."""
        return self.checker.finish(ended)
