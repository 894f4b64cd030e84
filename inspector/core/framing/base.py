"""What every framing's decoder shares: its interface, its errors, its frames.

A framing turns the bytes of a response body into :class:`~inspector.core.sse.Frame`
objects, incrementally, as the SSE decoder does: bytes go in through
:meth:`FramingDecoder.feed` in whatever pieces the transport delivered and a
frame comes out as soon as its last byte has arrived, with its byte span in the
stream, the chunks it came in and the time its last byte arrived. Frames
are what the adapters, the machine, the trace and the views already take, so
nothing downstream knows the framing; a trace rebuilds a frame from its
bytes with the framing's ``rebuild`` function (see :mod:`inspector.core.framing`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ..sse import DEFAULT_MAX_FRAME, DEFAULT_MAX_LINE, Decoded, DecoderError, Frame, Tail

__all__ = ["ChunkedDecoder", "FramingDecoder", "FramingError", "HeaderFrame"]


class FramingError(DecoderError):
    """The bytes break the framing at ``offset``: decoding stopped there."""

    def __init__(self, framing: str, offset: int, what: str) -> None:
        super().__init__(f"{framing}: {what} at byte {offset}; decoding stopped there")
        self.framing = framing
        self.offset = offset
        self.what = what


@dataclass(slots=True)
class HeaderFrame(Frame):
    """A frame that carries headers of its own (an AWS event-stream message).

    ``event`` is the message's ``:event-type`` (``:exception-type`` for an
    exception, ``:error-code`` for an error), ``data`` its payload as text and
    ``headers`` every header in wire order, values typed as on the wire
    (str, bool, int, bytes; a timestamp as epoch milliseconds, a uuid as text).
    """

    headers: tuple[tuple[str, Any], ...] = ()

    def header(self, name: str) -> Any:
        """The value of header ``name`` (the first one), or None."""
        for key, value in self.headers:
            if key == name:
                return value
        return None


class FramingDecoder(Protocol):
    """The decoder interface the normalizer drives (the SSE decoder has it too)."""

    error: DecoderError | None

    @property
    def bytes_fed(self) -> int:
        """Bytes given to :meth:`feed` so far."""
        ...

    def feed(self, chunk: bytes, time: float = 0.0) -> list[Frame]:
        """The frames completed by ``chunk``."""
        ...

    def feed_runs(self, chunk: bytes, time: float = 0.0) -> list[Decoded]:
        """:meth:`feed`, possibly with runs of plain frames as columns."""
        ...

    def feed_run_parts(self, chunk: bytes, time: float, size: int) -> Iterator[list[Decoded]]:
        """:meth:`feed_runs` of ``chunk`` in parts of ``size`` bytes (one chunk on record)."""
        ...

    def close(self) -> Tail:
        """The end of the bytes: what was left over."""
        ...


class ChunkedDecoder(ABC):
    """The chunk bookkeeping every framing's decoder shares.

    A subclass says how one piece of one chunk is decoded (:meth:`_feed`);
    this class numbers the chunks, counts the bytes and cuts large chunks
    into parts that all count as the one chunk, as the SSE decoder does.
    """

    #: The framing's name, as ``stream.start`` carries it.
    framing: ClassVar[str]

    def __init__(
        self, max_line: int = DEFAULT_MAX_LINE, max_frame: int = DEFAULT_MAX_FRAME
    ) -> None:
        self.max_line = max_line
        self.max_frame = max_frame
        self.error: DecoderError | None = None
        self._pos = 0  # bytes fed
        self._chunks = 0  # chunks fed
        self._index = 0  # the next frame's index

    @property
    def bytes_fed(self) -> int:
        """Total bytes given to :meth:`feed` so far."""
        return self._pos

    def feed(self, chunk: bytes, time: float = 0.0) -> list[Frame]:
        """Decode one more piece of the stream; return the frames it completed."""
        ci = self._chunks
        self._chunks += 1
        return self._take(chunk, time, ci)

    def feed_runs(self, chunk: bytes, time: float = 0.0) -> list[Decoded]:
        """:meth:`feed` (these framings have no runs of columns: every item is a Frame)."""
        return list(self.feed(chunk, time))

    def feed_run_parts(self, chunk: bytes, time: float, size: int) -> Iterator[list[Decoded]]:
        """:meth:`feed` of a large chunk in parts of ``size`` bytes, all counted as one chunk."""
        ci = self._chunks
        self._chunks += 1
        for at in range(0, max(len(chunk), 1), size):
            yield list(self._take(chunk[at : at + size], time, ci))

    def _take(self, chunk: bytes, time: float, ci: int) -> list[Frame]:
        base = self._pos
        self._pos += len(chunk)
        if self.error is not None or not chunk:
            return []  # counted, never decoded: the error stands where it was met
        return self._feed(chunk, base, time, ci)

    @abstractmethod
    def _feed(self, chunk: bytes, base: int, time: float, ci: int) -> list[Frame]:
        """The frames completed by ``chunk``, which starts at stream offset ``base``."""

    @abstractmethod
    def close(self) -> Tail:
        """The end of the bytes: what was left over after the last frame."""

    @abstractmethod
    def tail_note(self, tail: Tail) -> str:
        """What to tell the user about an unterminated tail, in words."""

    def _frame(
        self, event: str, data: str, start: int, end: int, first: int, last: int, time: float
    ) -> Frame:
        index = self._index
        self._index += 1
        return Frame(index, event, data, "", None, None, start, end, first, last, time)
