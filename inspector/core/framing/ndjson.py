"""NDJSON (one JSON document a line), as Ollama streams ``/api/chat`` and ``/api/generate``.

Each line ending in LF that holds anything but whitespace is one frame:
``event`` is ``"message"`` (the name of an SSE event without an ``event:``
line, so an adapter reads it as it reads unnamed SSE data) and ``data`` the
line without its surrounding whitespace (a CR before the LF included; one
UTF-8 BOM at byte 0 too). Blank
lines are no frame: their bytes join the span of the line after them, so the
spans of the frames tile the stream from byte 0 to the end of the last line.
Whether a line is JSON is the adapter's business, as for SSE data.

A line longer than ``max_line`` stops decoding with
:class:`~inspector.core.framing.base.FramingError` at the line's first byte. A last
line without its LF is never dispatched (its bytes are the tail): a complete
JSON document there could still be a cut one, as an SSE event without its blank
line could.
"""

from __future__ import annotations

from typing import Final

from ..sse import Frame, Tail
from .base import ChunkedDecoder, FramingError

__all__ = ["EVENT", "NdjsonDecoder", "rebuild"]

#: The event name of every NDJSON frame (SSE's default one).
EVENT: Final = "message"
_BOM: Final = b"\xef\xbb\xbf"
_WHITESPACE: Final = b" \t\r\n\f\v"


def _text(line: bytes, at_start: bool) -> str:
    if at_start and line.startswith(_BOM):
        line = line[3:]
    return line.strip(_WHITESPACE).decode("utf-8", "replace")


def _too_long(size: int, limit: int, offset: int) -> FramingError:
    what = f"a line larger than the limit of {limit} bytes (at least {size} received) starts"
    return FramingError("ndjson", offset, what)


class NdjsonDecoder(ChunkedDecoder):
    """Incremental NDJSON decoder; see the module docstring."""

    framing = "ndjson"

    def __init__(self, max_line: int = 16 << 20, max_frame: int = 16 << 20) -> None:
        super().__init__(max_line, max_frame)
        self._held: list[bytes] = []  # the pieces of the line not yet ended
        self._held_size = 0
        self._held_text = False  # whether the held pieces hold more than whitespace
        self._start = 0  # where the next frame's span starts (after the last frame)
        self._start_chunk = 0

    def _feed(self, chunk: bytes, base: int, time: float, ci: int) -> list[Frame]:
        out: list[Frame] = []
        if self._start == base and not self._held:
            self._start_chunk = ci
        if 0x0A not in chunk:  # (an int: memchr, see sse.decoder._feed)
            self._hold(chunk, base)
            return out
        lines = chunk.split(b"\n")
        rest = lines.pop()
        cursor = base - self._held_size  # where lines[0] starts in the stream
        if self._held:
            lines[0] = b"".join(self._held) + lines[0]
            self._held, self._held_size, self._held_text = [], 0, False
        limit = self.max_line
        end_of_chunk = base + len(chunk)
        for line in lines:
            end = cursor + len(line) + 1
            if len(line) > limit:
                self.error = _too_long(len(line), limit, cursor)
                return out
            if line.strip(_WHITESPACE):
                start = self._start
                out.append(
                    self._frame(
                        EVENT, _text(line, cursor == 0), start, end, self._start_chunk, ci, time
                    )
                )
                self._start = end
                self._start_chunk = ci if end < end_of_chunk else ci + 1
            cursor = end
        if rest:
            self._hold(rest, cursor)
        return out

    def _hold(self, piece: bytes, at: int) -> None:
        self._held.append(piece)
        self._held_size += len(piece)
        self._held_text = self._held_text or bool(piece.strip(_WHITESPACE))
        if self._held_size > self.max_line:
            line_start = at + len(piece) - self._held_size
            self.error = _too_long(self._held_size, self.max_line, line_start)

    def close(self) -> Tail:
        """What was left after the last line end (only whitespace is no tail)."""
        if not self._held_text:
            return Tail(pending_bytes=0, start=self._pos, event=None, has_data=False)
        return Tail(
            pending_bytes=self._pos - self._start, start=self._start, event=EVENT, has_data=True
        )

    def tail_note(self, tail: Tail) -> str:
        """Why the last line was not read."""
        return (
            f"{tail.pending_bytes} bytes at the end (a line from byte {tail.start}) had no "
            "line end after them, so they were never read"
        )


def rebuild(
    raw: bytes, index: int, id: str, start: int, end: int, first: int, last: int, time: float
) -> Frame:
    """The frame the decoder gave for these bytes (its span, as the trace keeps it)."""
    return Frame(
        index, EVENT, _text(raw, start == 0), id, None, None, start, end, first, last, time
    )
