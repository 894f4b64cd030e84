"""The run scanner's side of the decoder: plain events kept as columns, and what reads them.

A stream is mostly one event shape over and over (``data: …``, or ``event:
…`` + ``data: …``, then a blank line). :meth:`FrameDecoder.feed_runs
<inspector.core.sse.decoder.FrameDecoder.feed_runs>` finds such runs with
C-level passes over columns of lines (``_plain_prefix``, ``_data_prefix``
below) and hands each over as one :class:`FrameRun` — the events' names,
their data as undecoded bytes and their span bounds — so no :class:`Frame`
is built for an event nobody looks at.

What the normalizer reads
-------------------------
:class:`FrameColumns` is the one interface between the decoder and the
normalizer: consecutive frames as columns (``events``, ``payloads``) that an
adapter's plain-run engine reads, each frame on demand (``columns[i]``), and
:meth:`FrameColumns.record`, which writes their spans to a :class:`SpanLog`
(the trace's frame log) in bulk. A :class:`FrameRun` is one; frames the
decoder built one by one are gathered into a :class:`FrameBatch` by
:func:`columns`. So neither the trace nor the normalizer knows what a run is.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Final, Protocol

from ..sequences import IndexedSequence
from .frame import Frame

__all__ = [
    "Decoded",
    "FrameBatch",
    "FrameColumns",
    "FrameRun",
    "SpanLog",
    "columns",
    "flatten",
]


class SpanLog(Protocol):
    """Where :meth:`FrameColumns.record` writes frames: the trace's frame log."""

    def extend(self, frames: Sequence[Frame]) -> None:
        """Record frames, in order."""

    def extend_spans(
        self, bounds: list[int], first_chunk: int, chunk: int, time: float, id: str
    ) -> None:
        """Record ``len(bounds) - 1`` frames that share all but their spans.

        Frame ``i`` spans ``bounds[i]`` to ``bounds[i + 1]``; the first came
        from chunk ``first_chunk`` on, every other from ``chunk`` only.
        """


class FrameColumns(Protocol):
    """Consecutive frames, as the normalizer reads them (see the module docstring)."""

    @property
    def first_index(self) -> int:
        """The index of the first frame."""

    @property
    def events(self) -> Sequence[str]:
        """Each frame's event type."""

    @property
    def payloads(self) -> Sequence[str | bytes]:
        """Each frame's data: text, or undecoded UTF-8 (``orjson`` parses both alike)."""

    @property
    def end(self) -> int:
        """Where the last frame ends (the decoder may still extend it by one LF)."""

    def __len__(self) -> int:
        """How many frames."""

    def __getitem__(self, at: int) -> Frame:
        """Frame ``first_index + at``."""

    def record(self, log: SpanLog) -> None:
        """Write every frame's span, chunks, time and id to ``log``."""


# C-level slicers for whole columns of lines (``map`` over a list runs no bytecode).
_VALUE: Final = itemgetter(slice(6, None))  # a data value, or " " + an event name
_VALUE_CR: Final = itemgetter(slice(6, -1))
_HEAD: Final = itemgetter(slice(0, 6))  # where a data line has "data: "
_LAST: Final = itemgetter(-1)  # a line's last byte (an int)
_CRS: Final = {ord("\r")}


class FrameRun(IndexedSequence[Frame]):
    """Consecutive plain events of one chunk, kept as columns; frames built on access.

    What :meth:`FrameDecoder.feed_runs` gives for a run of events that all have
    one plain shape (``data: …``, or ``event: …`` + ``data: …``, then a blank
    line): no :class:`Frame` per event, only what the frames would hold — the
    event names, the data values as undecoded bytes, the span bounds (frame
    ``i`` spans ``bounds[i]`` to ``bounds[i + 1]``) and what every frame of the
    run shares. ``run[i]`` is the frame :meth:`FrameDecoder.feed` returns for
    that event (its data decoded with U+FFFD for invalid UTF-8, as the general
    path decodes it).
    """

    __slots__ = (
        "bounds",
        "chunk",
        "events",
        "first_chunk",
        "first_index",
        "id",
        "payloads",
        "time",
    )

    def __init__(
        self,
        index: int,
        events: list[str],
        payloads: list[bytes],
        bounds: list[int],
        first_chunk: int,
        chunk: int,
        time: float,
        id: str,
    ) -> None:
        self.first_index = index  # the index of the run's first frame
        self.events = events
        self.payloads = payloads
        self.bounds = bounds
        self.first_chunk = first_chunk  # the first frame's (it may have begun in a held line)
        self.chunk = chunk  # every other chunk link
        self.time = time
        self.id = id

    def __len__(self) -> int:
        return len(self.payloads)

    @property
    def end(self) -> int:
        """Where the last frame ends (the decoder may still extend it by one LF)."""
        return self.bounds[-1]

    @end.setter
    def end(self, value: int) -> None:
        self.bounds[-1] = value

    @property
    def last_index(self) -> int:
        """The index of the run's last frame."""
        return self.first_index + len(self.payloads) - 1

    def _get(self, at: int) -> Frame:
        bounds = self.bounds
        return Frame(
            self.first_index + at, self.events[at], self.payloads[at].decode("utf-8", "replace"),
            self.id, None, None, bounds[at], bounds[at + 1],
            self.chunk if at else self.first_chunk, self.chunk, self.time,
        )  # fmt: skip

    def frames(self) -> list[Frame]:
        """Every frame of the run (``list(run)``, built field by field: twice as fast)."""
        out: list[Frame] = []
        append = out.append
        new = object.__new__
        index, last_id, chunk, time = self.first_index, self.id, self.chunk, self.time
        bounds = self.bounds
        columns = zip(self.events, self.payloads, bounds, bounds[1:], strict=False)
        for event, payload, start, end in columns:  # (bounds has one more)
            frame = new(Frame)
            frame.index = index
            frame.event = event
            try:
                frame.data = payload.decode()  # strict is the faster call, and nearly always right
            except UnicodeDecodeError:
                frame.data = payload.decode("utf-8", "replace")
            frame.id = last_id
            frame.retry = frame.comment = None
            frame.start = start
            frame.end = end
            frame.first_chunk = frame.last_chunk = chunk
            frame.time = time
            append(frame)
            index += 1
        if out:
            out[0].first_chunk = self.first_chunk
        return out

    def record(self, log: SpanLog) -> None:
        """The run's columns, without building its frames."""
        log.extend_spans(self.bounds, self.first_chunk, self.chunk, self.time, self.id)


def flatten(items: list[Decoded]) -> list[Frame]:
    """The frames of decoded items, every run built into its frames."""
    out: list[Frame] = []
    for item in items:
        if isinstance(item, Frame):  # (a FrameRun is an ABC: isinstance of it is slow)
            out.append(item)
        else:
            out += item.frames()
    return out


def _plain_prefix(column: list[bytes], plain: bytes) -> int:
    """How many items of ``column`` from the first are ``plain`` (one C-level pass if all)."""
    if column.count(plain) == len(column):
        return len(column)
    return next(i for i, item in enumerate(column) if item != plain)


def _data_prefix(values: list[bytes], cr: bool) -> int:
    """How many lines from the first are ``data: …`` lines (ending in their one CR with ``cr``).

    The usual answer, all of them, takes a few C-level passes; only when one
    fails are the lines looked at one by one.
    """
    count = len(values)
    # (counts of slices and sets of last bytes: a bound method mapped over a column, such
    # as bytes.startswith, parses its arguments per call and costs twice as much)
    if list(map(_HEAD, values)).count(b"data: ") == count and (
        # Every line ends in a CR, and holds no other: as many CRs as lines.
        not cr or (set(map(_LAST, values)) == _CRS and b"".join(values).count(b"\r") == count)
    ):
        return count
    for i, line in enumerate(values):
        if line[:6] != b"data: " or (cr and line.find(b"\r") != len(line) - 1):
            return i
    return count


class FrameBatch:
    """Frames the decoder built one by one, read as :class:`FrameColumns`."""

    __slots__ = ("events", "frames", "payloads")

    def __init__(self, frames: list[Frame]) -> None:
        self.frames = frames
        self.events = [frame.event for frame in frames]
        self.payloads: list[str] = [frame.data for frame in frames]

    @property
    def first_index(self) -> int:
        """The index of the first frame."""
        return self.frames[0].index

    @property
    def end(self) -> int:
        """Where the last frame ends."""
        return self.frames[-1].end

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, at: int) -> Frame:
        return self.frames[at]

    def record(self, log: SpanLog) -> None:
        """The frames as they are."""
        log.extend(self.frames)


#: What the decoder hands a pipeline: frames, and runs of plain events as columns.
Decoded = Frame | FrameRun


def columns(items: Sequence[Decoded]) -> list[FrameColumns]:
    """Decoded items as :class:`FrameColumns`: each run as it is, frames between runs together."""
    out: list[FrameColumns] = []
    frames: list[Frame] = []
    for item in items:
        if isinstance(item, Frame):  # (a FrameRun is an ABC: isinstance of it is slow)
            frames.append(item)
        else:
            if frames:
                out.append(FrameBatch(frames))
                frames = []
            out.append(item)
    if frames:
        out.append(FrameBatch(frames))
    return out
