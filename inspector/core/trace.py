"""The append-only record of one stream session.

A :class:`Trace` holds everything a view may want, linked by index:

    chunk ─┐ (bytes as received, with time and stream offset)
           ├─▶ frame (byte span, first/last chunk)
                 └─▶ events (contiguous range per frame)
                       └─▶ transitions, violations (by event and frame)

Events produced by one frame are contiguous, so ``frame_event_start[i]`` is
enough to map a frame to its events and, with a bisect, an event to its
frame. Only the normalizer appends; views read. Nothing is ever removed:
frames after the terminal event stay, marked as ignored. (A feed no view
shows keeps a :class:`~inspector.core.summary.Summary` instead: counts and
the last events, not history; both are recorders, :mod:`inspector.core.recorder`.)

Storage
-------
A trace of a long stream must stay small (a loaded capture costs at most a
few times its own size) and cheap to grow, so the bulky parts are kept
compactly and rebuilt on access; each behaves as a read-only sequence
(``len``, ``[i]`` with negative indices and slices, iteration, ``==`` against a
list) plus ``append``:

- :class:`ChunkLog` (:mod:`.chunk_log`) keeps the received bytes in blocks (small
  chunks joined into 64 KiB, a chunk of 2 KiB or more as it came), with per-chunk
  offsets and times; ``chunks[i]`` builds the :class:`Chunk`, and
  ``chunks.span(start, end)`` gives any stretch of the stream.
- :class:`FrameLog` (:mod:`.frame_log`) keeps each frame's byte span and time, and
  chunk links and id once per group of frames recorded together;
  ``frames[i]`` decodes the span again (:func:`~inspector.core.sse.parse_span`).
- :class:`EventLog` (:mod:`.event_log`) keeps each ``block.delta`` as its
  text and block index and builds the contract dict on access; other events
  are kept as given.
- :class:`IntColumn` (:mod:`.columns`; ``frame_event_start``, ``event_frame``, the lists in
  ``block_events``) is an ``array`` of 64-bit integers.

None of these hold objects the garbage collector has to track per element,
which is also what keeps appending fast. Objects handed out are built fresh
(except a non-delta event, which is the stored dict): treat them as
read-only. Readers that only need a frame's time, span or chunks should ask
``frames.time_of(i)``, ``frames.span_of(i)``, ``frames.chunks_of(i)``, which
decode nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .chunk_log import Chunk, ChunkLog
from .columns import IntColumn, counting
from .event_log import Event, EventLog, Skeleton, skeleton_of
from .frame_log import FrameLog
from .sse import Tail
from .transport import TRANSPORT_END_REASONS, TransportEnd

# The logs are written in modules of their own; their names are handed on here.
__all__ = [
    "TRANSPORT_END_REASONS",
    "Chunk",
    "ChunkLog",
    "Event",
    "EventLog",
    "FrameLog",
    "Ignored",
    "IntColumn",
    "Skeleton",
    "Trace",
    "Transition",
    "TransportEnd",
    "Violation",
    "counting",
    "skeleton_of",
]

TERMINAL_TYPES: Final = ("stream.done", "stream.error")


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
    """A frame, or part of one, that was skipped or deserves a warning, and why."""

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
    chunks: ChunkLog = field(init=False)
    frames: FrameLog = field(init=False)
    frame_event_start: IntColumn = field(init=False, default_factory=IntColumn)
    events: EventLog = field(init=False)
    event_frame: IntColumn = field(init=False, default_factory=IntColumn)
    transitions: list[Transition] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    block_events: dict[int, IntColumn] = field(default_factory=dict)
    tail: Tail | None = None
    transport_end: TransportEnd | None = None
    decoder_error: str | None = None
    problems: list[str] = field(default_factory=list)
    # What type_counts() has counted so far (it reads each event once).
    _counted: int = field(default=0, init=False, repr=False, compare=False)
    _counts: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.chunks = ChunkLog()
        self.frames = FrameLog(self.chunks)
        self.events = EventLog(self.stream_id)

    # -- recording (the Recorder protocol: only the normalizer and the machine write) --

    @property
    def keeps_history(self) -> bool:
        """A trace keeps everything (a :class:`~inspector.core.summary.Summary` does not)."""
        return True

    @property
    def span_log(self) -> FrameLog:
        """The frame log: decoded frames are recorded into it."""
        return self.frames

    def add_chunk(self, offset: int, time: float, data: bytes) -> None:
        """One chunk as received."""
        self.chunks.add(offset, time, data)

    def add_chunks(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        """Chunks in order (one pass a column)."""
        self.chunks.add_many(offsets, times, datas)

    def set_frame_end(self, index: int, end: int) -> None:
        """The decoder extended a frame's span."""
        self.frames.set_end(index, end)

    def frame_started(self) -> None:
        """The next frame's events begin at the next event."""
        self.frame_event_start.append(len(self.event_frame))

    def frames_started(self, events: Sequence[int]) -> None:
        """Frames of one event each: theirs."""
        self.frame_event_start.extend(events)

    @property
    def event_count(self) -> int:
        """Events recorded (one entry each in the int column :attr:`event_frame`)."""
        return len(self.event_frame)

    def emit(self, event: Event, frame: int) -> None:
        """Record one complete event, caused by frame ``frame``."""
        self.events.append(event)
        self.event_frame.append(frame)

    def emit_delta(
        self, block: dict[str, Any], kind: str, text: str, frame: int, links: IntColumn
    ) -> None:
        """Record a plain ``block.delta`` compactly, linked to its frame and block."""
        links.append(self.events.append_delta(block, kind, text))
        self.event_frame.append(frame)

    def emit_deltas(
        self, block: dict[str, Any], kind: str, texts: list[str], frame: int, links: IntColumn
    ) -> Sequence[int]:
        """Record a run of plain deltas in bulk (an array extends another with one copy)."""
        count = len(texts)
        events = counting(self.events.extend_deltas(block, kind, texts), count)
        links.extend(events)
        self.event_frame.extend(counting(frame, count))
        return events

    def block_opened(self, index: int, links: IntColumn) -> None:
        """Block ``index``'s events are those in ``links``."""
        self.block_events[index] = links

    def add_transition(self, transition: Transition) -> None:
        """Record a state change."""
        self.transitions.append(transition)

    def add_violation(self, violation: Violation) -> None:
        """Record a refused action's rule."""
        self.violations.append(violation)

    def add_ignored(self, ignored: Ignored) -> None:
        """Record a skipped frame or a warning."""
        self.ignored.append(ignored)

    def error_body(self) -> bytes:
        """Every byte received."""
        return self.chunks.span(0, self.chunks.bytes_received)

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
        if self.events and self.events.type_of(-1) in TERMINAL_TYPES:
            event: Event = self.events[-1]
            return event
        return None

    @property
    def ending(self) -> str | None:
        """Why the stream ended: the finish reason, or the error's category (None while open)."""
        terminal = self.terminal_event
        if terminal is None:
            return None
        if terminal["type"] == "stream.done":
            return str(terminal["finish_reason"])
        return str(terminal["error"]["category"])

    @property
    def outcome(self) -> str:
        """``completed (stop)``, ``failed (rate_limited)``; the state alone while open."""
        ending = self.ending
        return self.state if ending is None else f"{self.state} ({ending})"

    @property
    def bytes_received(self) -> int:
        """Total bytes in all chunks."""
        return self.chunks.bytes_received

    @property
    def frame_count(self) -> int:
        """Frames decoded."""
        return len(self.frames)

    def type_counts(self) -> Mapping[str, int]:
        """Events by type; each event is looked at once, however often this is asked."""
        counts = self._counts
        type_of = self.events.type_of
        for index in range(self._counted, len(self.events)):
            kind = type_of(index)
            counts[kind] = counts.get(kind, 0) + 1
        self._counted = len(self.events)
        return counts

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
        return self.frames.chunks_of(frame)

    def ignored_frames(self) -> dict[int, Ignored]:
        """Ignored frames by frame index."""
        return {i.frame: i for i in self.ignored}
