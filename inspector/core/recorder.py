r"""What the normalizer and the machine write a stream's record to, and what it tells back.

Two classes are :class:`Recorder`\\ s: :class:`~inspector.core.trace.Trace`,
the full history every view reads, and
:class:`~inspector.core.summary.Summary`, counts and the last events for a
recorder no view follows (headless ``record``, the proxy), whose memory is
bounded whatever the stream's length. The machine is given one when it is
built and writes only through these methods; neither class is the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .sse import SpanLog, Tail
from .trace import Event, Ignored, IntColumn, Transition, TransportEnd, Violation

__all__ = ["Recorder"]


class Recorder(Protocol):
    """One stream's record: written by the normalizer and the machine, read by reports."""

    stream_id: str
    provider: str | None
    source: str | None
    header: dict[str, Any] | None
    tail: Tail | None
    transport_end: TransportEnd | None
    decoder_error: str | None

    @property
    def keeps_history(self) -> bool:
        """Whether every chunk, frame and event is kept (a view can be built on it)."""

    # -- written by the normalizer ---------------------------------------------------

    @property
    def span_log(self) -> SpanLog:
        """Where decoded frames are recorded (``FrameColumns.record`` writes to it)."""

    def add_chunk(self, offset: int, time: float, data: bytes) -> None:
        """One chunk as received, at stream offset ``offset``."""

    def add_chunks(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        """Chunks in order, as :meth:`add_chunk` for each would."""

    def set_frame_end(self, index: int, end: int) -> None:
        """The decoder extended frame ``index``'s span (the LF of a CRLF in the next chunk)."""

    def frame_started(self) -> None:
        """The next frame's events begin here (the frame → events link)."""

    def frames_started(self, events: Sequence[int]) -> None:
        """Frames of one event each begin at these events."""

    # -- written by the machine --------------------------------------------------------

    @property
    def event_count(self) -> int:
        """Events recorded so far."""

    def emit(self, event: Event, frame: int) -> None:
        """One contract event, caused by frame ``frame`` (-1: none)."""

    def emit_delta(
        self, block: dict[str, Any], kind: str, text: str, frame: int, links: IntColumn
    ) -> None:
        """A plain ``block.delta``; its index goes to ``links`` (the block's events) if kept."""

    def emit_deltas(
        self, block: dict[str, Any], kind: str, texts: list[str], frame: int, links: IntColumn
    ) -> Sequence[int]:
        """One plain ``block.delta`` per text, from frames ``frame``, ``frame + 1``…;
        the new events' indices."""

    def block_opened(self, index: int, links: IntColumn) -> None:
        """Block ``index`` opened; ``links`` will hold its events' indices if kept."""

    def add_transition(self, transition: Transition) -> None:
        """A state change of the stream or of a block."""

    def add_violation(self, violation: Violation) -> None:
        """A contract rule the provider's stream would have broken."""

    def add_ignored(self, ignored: Ignored) -> None:
        """A frame, or part of one, skipped or warned about."""

    # -- read by reports -------------------------------------------------------------

    @property
    def state(self) -> str:
        """The stream state after everything recorded so far."""

    @property
    def outcome(self) -> str:
        """``completed (stop)``, ``failed (rate_limited)``; the state alone while open."""

    @property
    def terminal_event(self) -> Event | None:
        """The ``stream.done`` / ``stream.error`` event, if the stream ended."""

    @property
    def bytes_received(self) -> int:
        """Total bytes in all chunks."""

    @property
    def frame_count(self) -> int:
        """Frames decoded so far."""

    def type_counts(self) -> Mapping[str, int]:
        """Events recorded so far, by type."""

    def error_body(self) -> bytes:
        """The bytes received, for an HTTP error response's classification (b"" if not kept)."""
