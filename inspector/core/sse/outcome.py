"""What the SSE decoder reports besides frames: its size limits, its errors, what was left."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_FRAME", "DEFAULT_MAX_LINE", "DecoderError", "FrameTooLarge", "Tail"]

DEFAULT_MAX_LINE = 16 * 1024 * 1024
DEFAULT_MAX_FRAME = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Tail:
    """What was left undispatched when the bytes ended.

    ``pending_bytes`` counts bytes after the last complete event; ``event``
    names the event that would have been dispatched had its blank line
    arrived (None when no field line was pending); ``has_data`` says whether
    that event had any ``data`` line.
    """

    pending_bytes: int
    start: int
    event: str | None
    has_data: bool

    @property
    def unterminated(self) -> bool:
        """True when bytes of an unfinished event were dropped at the end."""
        return self.pending_bytes > 0


class DecoderError(Exception):
    """The byte stream cannot be decoded any further."""


class FrameTooLarge(DecoderError):
    """A line or an event grew past the configured bound."""

    def __init__(self, what: str, size: int, limit: int, offset: int) -> None:
        super().__init__(
            f"SSE {what} starting at byte {offset} is larger than the limit of "
            f"{limit} bytes (at least {size} bytes received); decoding stopped there"
        )
        self.what = what
        self.size = size
        self.limit = limit
        self.offset = offset
