"""What the decoder makes of one SSE event: a :class:`Frame`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Frame"]


@dataclass(slots=True)
class Frame:
    """One decoded SSE event, or one comment line.

    ``event``/``data``/``id``/``retry`` follow WHATWG (``id`` is the
    last-event-ID buffer at dispatch time, ``retry`` the value of a valid
    ``retry`` field inside this event, else None). For a comment frame
    ``comment`` holds its text (one leading space removed) and ``data`` is
    empty. ``start``/``end`` are byte offsets in the whole stream (BOM
    included); ``first_chunk``/``last_chunk`` index the chunks fed to the
    decoder; ``time`` is the arrival time of the chunk that completed it.
    """

    index: int
    event: str
    data: str
    id: str
    retry: int | None
    comment: str | None
    start: int
    end: int
    first_chunk: int
    last_chunk: int
    time: float

    @property
    def is_comment(self) -> bool:
        """True for an SSE comment line (``: ...``), which carries no event."""
        return self.comment is not None

    @property
    def size(self) -> int:
        """Bytes this frame occupies on the wire, terminators included."""
        return self.end - self.start
