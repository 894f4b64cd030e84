"""The append-only record of one stream session.

A :class:`Trace` holds everything a view may want, linked by index:

    chunk ─┐ (bytes as received, with time and stream offset)
           ├─▶ frame (byte span, first/last chunk)
                 └─▶ events (contiguous range per frame)
                       └─▶ transitions, violations (by event and frame)

Events produced by one frame are contiguous, so ``frame_event_start[i]`` is
enough to map a frame to its events and, with a bisect, an event to its
frame. Only the normalizer appends; views read. Nothing is ever removed:
frames after the terminal event stay, marked as ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .sse import Frame, Tail

__all__ = ["Chunk", "Ignored", "Trace", "Transition", "TransportEnd", "Violation"]

Event = dict[str, Any]

TRANSPORT_END_REASONS = ("eof", "reset", "timeout", "progress_timeout", "cancelled")


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes exactly as the transport delivered them."""

    index: int
    offset: int
    time: float
    data: bytes


@dataclass(frozen=True, slots=True)
class TransportEnd:
    """How the bytes stopped coming (``eof`` also for the end of a file)."""

    reason: str
    time: float | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Transition:
    """One recorded change of state: the stream's or one block's."""

    subject: str  # "stream" or a block id such as "b_1"
    before: str
    after: str
    event: int  # index into Trace.events of the event that caused it, -1 if none
    frame: int  # frame index, -1 when not caused by a frame (end of bytes)


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken contract rule.

    ``source`` is ``"provider"`` when the provider's stream would have broken
    rule ``rule`` and the machine refused (the stream then ends ``failed``),
    or ``"output"`` when the emitted event sequence itself breaks it — a bug
    in this tool, reported by the independent checker.
    """

    rule: int
    message: str
    frame: int
    event: int
    source: str = "provider"


@dataclass(frozen=True, slots=True)
class Ignored:
    """A frame that produced no event, and why."""

    frame: int
    reason: str
    code: str


@dataclass
class Trace:
    """Everything recorded for one stream; see the module docstring."""

    stream_id: str
    provider: str | None = None
    source: str | None = None
    header: dict[str, Any] | None = None
    chunks: list[Chunk] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    frame_event_start: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    event_frame: list[int] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    block_events: dict[int, list[int]] = field(default_factory=dict)
    tail: Tail | None = None
    transport_end: TransportEnd | None = None
    decoder_error: str | None = None
    problems: list[str] = field(default_factory=list)

    # -- reading -----------------------------------------------------------

    @property
    def state(self) -> str:
        """The stream state after everything recorded so far."""
        for t in reversed(self.transitions):
            if t.subject == "stream":
                return t.after
        return "idle"

    @property
    def terminal_event(self) -> Event | None:
        """The ``stream.done`` / ``stream.error`` event, if the stream ended."""
        if self.events and self.events[-1]["type"] in ("stream.done", "stream.error"):
            return self.events[-1]
        return None

    @property
    def bytes_received(self) -> int:
        """Total bytes in all chunks."""
        if not self.chunks:
            return 0
        last = self.chunks[-1]
        return last.offset + len(last.data)

    def events_of_frame(self, frame: int) -> range:
        """Indices into :attr:`events` produced by frame ``frame``."""
        start = self.frame_event_start[frame]
        if frame + 1 < len(self.frame_event_start):
            end = self.frame_event_start[frame + 1]
        else:
            end = len(self.events)
            # Events after the last frame (the end of bytes) are not its own.
            while end > start and self.event_frame[end - 1] != frame:
                end -= 1
        return range(start, end)

    def events_until_frame(self, frame: int) -> int:
        """How many events exist once frame ``frame`` has been processed.

        ``frame = -1`` means before the first frame: only events recorded
        ahead of any frame count (an HTTP error before the body, say).
        """
        if frame < 0:
            return self.frame_event_start[0] if self.frame_event_start else 0
        return self.events_of_frame(frame).stop

    def frame_of_event(self, event: int) -> int:
        """The frame that produced event ``event`` (-1: not caused by a frame)."""
        return self.event_frame[event]

    def chunks_of_frame(self, frame: int) -> range:
        """Indices into :attr:`chunks` that carried frame ``frame``'s bytes."""
        f = self.frames[frame]
        return range(f.first_chunk, f.last_chunk + 1)

    def ignored_frames(self) -> dict[int, Ignored]:
        """Ignored frames by frame index."""
        return {i.frame: i for i in self.ignored}
