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

- :class:`ChunkLog` keeps the received bytes in 64 KiB blocks, with per-chunk
  offsets and times; ``chunks[i]`` builds the :class:`Chunk`, and
  ``chunks.span(start, end)`` gives any stretch of the stream.
- :class:`FrameLog` keeps each frame's byte span, chunk links, time and id;
  ``frames[i]`` decodes the span again (:func:`~inspector.core.sse.parse_span`).
- :class:`EventLog` keeps each ``block.delta`` as its text and block index and
  builds the contract dict on access; other events are kept as given.
- :class:`IntColumn` (``frame_event_start``, ``event_frame``, the lists in
  ``block_events``) is an ``array`` of 64-bit integers.

None of these hold objects the garbage collector has to track per element,
which is also what keeps appending fast. Objects handed out are built fresh
(except a non-delta event, which is the stored dict): treat them as
read-only. Readers that only need a frame's time, span or chunks should ask
``frames.time_of(i)``, ``frames.span_of(i)``, ``frames.chunks_of(i)``, which
decode nothing.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import orjson

from .choices import key_of
from .sequences import IndexedSequence
from .sse import Frame, Tail, parse_span

__all__ = [
    "Chunk",
    "ChunkLog",
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

Event = dict[str, Any]
T = TypeVar("T")

TRANSPORT_END_REASONS = ("eof", "reset", "timeout", "progress_timeout", "cancelled")

TERMINAL_TYPES: Final = ("stream.done", "stream.error")

_BLOCK_SIZE: Final = 64 * 1024


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
    """A frame, or part of one, that was skipped or deserves a warning, and why."""

    frame: int
    reason: str
    code: str


# -- compact sequences ---------------------------------------------------------

if TYPE_CHECKING:
    _IntArray = array[int]
else:
    _IntArray = array


# The ints 0, 1, 2… as int64, grown by doubling as larger indices are asked for
# (up to _COUNTING_MAX): a run of n consecutive indices is then one slice, where
# converting n ints costs ~50 ns each (a new int object per index past 256).
_COUNTING_MAX: Final = 1 << 20
_counting: array[int] = array("q", range(4096))


def counting(start: int, count: int) -> array[int]:
    """The ints ``start, start + 1, … start + count - 1`` as an int64 array.

    What a run of plain deltas records in three index columns (its events, its
    frames, the events of its frames): one slice of a shared column of counts.
    """
    global _counting
    stop = start + count
    if stop > len(_counting):
        if stop > _COUNTING_MAX:
            column: array[int] = array("q")
            column.fromlist(list(range(start, stop)))
            return column
        size = len(_counting)
        while size < stop:
            size *= 2
        _counting = array("q", range(min(size, _COUNTING_MAX)))
    return _counting[start:stop]


def _same_items(left: Sequence[Any], right: object) -> bool:
    if not isinstance(right, Sequence) or isinstance(right, str | bytes):
        return False
    return len(left) == len(right) and all(a == b for a, b in zip(left, right, strict=True))


class IntColumn(_IntArray):
    """A growable column of integers, 8 bytes each, equal to a list of the same ints."""

    def __new__(cls, values: Iterable[int] = ()) -> IntColumn:
        return cast(IntColumn, super().__new__(cls, "q", values))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, array):
            return array.__eq__(self, other)
        return _same_items(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return f"IntColumn({self.tolist()!r})"


class _Log(IndexedSequence[T]):
    """What the logs share besides reading by index: equality and repr."""

    def __eq__(self, other: object) -> bool:
        return _same_items(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self)}>"


class ChunkLog(_Log[Chunk]):
    """Received chunks: their bytes in large blocks, offsets and times in columns.

    New chunks are kept as they came until 64 KiB have gathered, then joined
    into one block that is never copied again. (A single growing ``bytearray``
    re-copies itself on every resize — about 8x the stream's size over a long
    capture — and over-allocates by up to an eighth.) A chunk's ``index`` is its
    position: chunks are appended in the order received.
    """

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self._blocks: list[bytes] = []
        self._block_end = IntColumn()  # position just past each block
        self._tail: list[bytes] = []  # chunks since the last block
        self._tail_size = 0
        self._size = 0  # bytes stored
        self._at = IntColumn()  # where each chunk's bytes start
        self._offset = IntColumn()  # Chunk.offset: its place in the stream
        self._time = array("d")
        for chunk in chunks:
            self.append(chunk)

    def __len__(self) -> int:
        return len(self._at)

    def _get(self, index: int) -> Chunk:
        at = self._at[index]
        end = self._at[index + 1] if index + 1 < len(self._at) else self._size
        return Chunk(index, self._offset[index], self._time[index], self._read(at, end))

    def append(self, chunk: Chunk) -> None:
        """Record one chunk (its ``index`` is taken to be its position)."""
        self.add(chunk.offset, chunk.time, chunk.data)

    def add(self, offset: int, time: float, data: bytes) -> None:
        """Record one chunk without building a :class:`Chunk` first."""
        self._at.append(self._size)
        self._offset.append(offset)
        self._time.append(time)
        if data:
            self._tail.append(data)
            self._tail_size += len(data)
            self._size += len(data)
            if self._tail_size >= _BLOCK_SIZE:
                self._seal()

    def add_many(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        """Record chunks in order, as :meth:`add` for each would (one pass a column)."""
        starts = list(accumulate(map(len, datas), initial=self._size))
        self._at.fromlist(starts[:-1])
        self._offset.fromlist(offsets)
        self._time.fromlist(times)
        added = starts[-1] - self._size
        if added:
            self._tail.extend(filter(None, datas))
            self._tail_size += added
            self._size += added
            if self._tail_size >= _BLOCK_SIZE:
                self._seal()

    @property
    def bytes_received(self) -> int:
        """Stream offset just past the last chunk (0 when there is none)."""
        if not self._at:
            return 0
        return self._offset[-1] + self._size - self._at[-1]

    @property
    def stored_bytes(self) -> int:
        """Bytes held: the sum of every chunk's length."""
        return self._size

    def time_of(self, index: int) -> float:
        """Arrival time of chunk ``index``, without building the chunk."""
        return self._time[index]

    def span(self, start: int, end: int) -> bytes:
        """The stream's bytes from offset ``start`` to ``end``.

        Stream offsets and positions in the stored bytes agree whenever the
        chunks hold the stream from its first byte, as a normalizer's trace does.
        """
        return self._read(max(start, 0), min(end, self._size))

    def _seal(self) -> None:
        if self._tail:
            self._blocks.append(b"".join(self._tail))  # one chunk: the same object
            self._block_end.append(self._size)
            self._tail = []
            self._tail_size = 0

    def _read(self, start: int, end: int) -> bytes:
        if end <= start:
            return b""
        if end > self._size - self._tail_size:
            self._seal()
        ends = self._block_end
        i = bisect_right(ends, start)
        parts = []
        while start < end:
            block_start = ends[i - 1] if i else 0
            stop = min(end, ends[i])
            parts.append(self._blocks[i][start - block_start : stop - block_start])
            start = stop
            i += 1
        return parts[0] if len(parts) == 1 else b"".join(parts)


class FrameLog(_Log[Frame]):
    """Decoded frames, kept as spans into the chunk bytes and decoded on access.

    A frame's ``event``/``data``/``retry``/``comment`` are all in its wire
    bytes, so only the span, chunk links, time and last-event-ID are stored
    (about 48 bytes a frame rather than the frame object and its data string),
    each field in a column of its own.
    A frame whose bytes are not in :attr:`chunks` (built by hand, say) is kept
    whole.
    """

    def __init__(self, chunks: ChunkLog) -> None:
        self.chunks = chunks
        # One column per field: filling four from four flat list comprehensions is
        # cheaper than one interleaved column from a nested one.
        self._start = IntColumn()
        self._end = IntColumn()
        self._first_chunk = IntColumn()
        self._last_chunk = IntColumn()
        self._time = array("d")
        self._ids: list[str] = []  # the same str object repeats until the id changes
        self._one = array("q", (0,))  # scratch for extend_spans
        self._one_time = array("d", (0.0,))
        self._whole: dict[int, Frame] = {}
        #: Set for a framing other than SSE (see inspector.core.framing.rebuild_for).
        self.rebuild: Callable[[bytes, int, str, int, int, int, int, float], Frame] | None = None

    def __len__(self) -> int:
        return len(self._time)

    def _get(self, index: int) -> Frame:
        whole = self._whole.get(index)
        if whole is not None:
            return whole
        start, end = self._start[index], self._end[index]
        first_chunk, last_chunk = self._first_chunk[index], self._last_chunk[index]
        if self.rebuild is not None:
            raw, at, time = self.chunks.span(start, end), self._ids[index], self._time[index]
            return self.rebuild(raw, index, at, start, end, first_chunk, last_chunk, time)
        event, data, retry, comment = parse_span(self.chunks.span(start, end))
        return Frame(
            index, event, data, self._ids[index], retry, comment,
            start, end, first_chunk, last_chunk, self._time[index],
        )  # fmt: skip

    def append(self, frame: Frame) -> None:
        """Record one frame (its ``index`` is taken to be its position)."""
        self.extend((frame,))

    def extend(self, frames: Sequence[Frame]) -> None:
        """Record frames in order; one column at a time is cheaper than frame by frame."""
        self._extend_frames(frames)

    def _extend_frames(self, frames: Sequence[Frame]) -> None:
        stored = self.chunks._size
        if frames and frames[-1].end > stored:  # frames end in order: the last ends last
            for i, frame in enumerate(frames, start=len(self._time)):
                if frame.end > stored:
                    self._whole[i] = frame
        # One loop filling five lists (cheaper than five comprehensions, or map with
        # attrgetter), then fromlist: array.extend converts a list item by item,
        # about twice as slowly.
        start: list[int] = []
        end: list[int] = []
        first_chunk: list[int] = []
        last_chunk: list[int] = []
        time: list[float] = []
        ids = self._ids
        for f in frames:
            start.append(f.start)
            end.append(f.end)
            first_chunk.append(f.first_chunk)
            last_chunk.append(f.last_chunk)
            time.append(f.time)
            ids.append(f.id)  # the decoder shares one str per id value
        self._start.fromlist(start)
        self._end.fromlist(end)
        self._first_chunk.fromlist(first_chunk)
        self._last_chunk.fromlist(last_chunk)
        self._time.fromlist(time)

    def extend_spans(
        self, bounds: list[int], first_chunk: int, chunk: int, time: float, id: str
    ) -> None:
        """Record frames that share all but their spans (a decoder's run), in bulk.

        Frame ``i`` spans ``bounds[i]`` to ``bounds[i + 1]``; the first came
        from chunk ``first_chunk`` on, every other from ``chunk`` only: one
        conversion, the rest repeated in C. The spans must be in :attr:`chunks`
        already (a normalizer records each chunk before its frames).
        """
        count = len(bounds) - 1
        spans = array("q")
        spans.fromlist(bounds)  # converted once; the slices are copies
        self._start.extend(spans[:-1])
        self._end.extend(spans[1:])
        # Repeated values: a one-item array set and multiplied (array((value,)) would
        # build through an iterator, and parse its type code, every time).
        one, one_time = self._one, self._one_time
        one[0] = chunk
        chunks = one * count
        self._last_chunk.extend(chunks)
        chunks[0] = first_chunk
        self._first_chunk.extend(chunks)
        one_time[0] = time
        self._time.extend(one_time * count)
        self._ids += [id] * count  # the decoder shares one str per id value

    def set_end(self, index: int, end: int) -> None:
        """The decoder extended a frame's span (the LF of a CRLF in the next chunk)."""
        self._end[index] = end

    def span_of(self, index: int) -> tuple[int, int]:
        """``(start, end)`` byte offsets of frame ``index``, without decoding it."""
        at = index % len(self) if index < 0 else index
        return self._start[at], self._end[at]

    def chunks_of(self, index: int) -> range:
        """Indices of the chunks that carried frame ``index``, without decoding it."""
        at = index % len(self) if index < 0 else index
        return range(self._first_chunk[at], self._last_chunk[at] + 1)

    def time_of(self, index: int) -> float:
        """Arrival time of frame ``index``, without decoding it."""
        return self._time[index]

    def span_columns(self) -> tuple[array[int], array[int], array[int], array[int]]:
        """Copies of every frame's start, end, first chunk and last chunk, in frame order.

        ``span_of(i) == (start[i], end[i])`` and ``chunks_of(i) ==
        range(first[i], last[i] + 1)``: what a caller comparing the frames
        of two streams needs, in four arrays instead of a loop over frames.
        """
        return self._start[:], self._end[:], self._first_chunk[:], self._last_chunk[:]


# How EventLog stores an event: a shape per event, ``block index << 2 | code``,
# where code 0 (FULL) keeps the whole dict and 1-3 are block.delta events of
# that delta kind, kept as (block index, text). One int, so one append.
_FULL: Final = 0
_DELTA_KINDS: Final = ("text", "json_text", "signature")
_DELTA_CODE: Final = {kind: code for code, kind in enumerate(_DELTA_KINDS, start=1)}


#: What the invariant checker reads of an event: (type, seq, stream_id, block index).
Skeleton = tuple[Any, Any, Any, Any]


def skeleton_of(event: Mapping[str, Any]) -> Skeleton:
    """An event's :data:`Skeleton` (block index None when it has no ``block`` mapping)."""
    block = event.get("block")
    index = key_of(block) if isinstance(block, Mapping) else None
    return event.get("type"), event.get("seq"), event.get("stream_id"), index


class EventLog(_Log[Event]):
    """Contract events. A plain ``block.delta`` — most of any stream — is stored
    as its kind, block index and text (the text shared with the machine's block
    buffer) and built as a dict on access; every other event is kept as given.
    """

    def __init__(self, stream_id: str) -> None:
        self.stream_id = stream_id
        self._shape = IntColumn()  # block index << 2 | code (see _FULL)
        self._payload: list[Any] = []  # the event dict, or a compact delta's text
        self._refs: dict[int, dict[str, Any]] = {}  # block index -> its shared ``block``
        self._one = array("q", (0,))  # scratch for extend_deltas

    def __len__(self) -> int:
        return len(self._shape)

    def _get(self, index: int) -> Event:
        shape = self._shape[index]
        code = shape & 3
        if code == _FULL:
            event: Event = self._payload[index]
            return event
        return {
            "stream_id": self.stream_id,
            "seq": index + 1,
            "type": "block.delta",
            "block": self._refs[shape >> 2],
            "delta": {"kind": _DELTA_KINDS[code - 1], "text": self._payload[index]},
        }

    def append(self, event: Event) -> None:
        """Record one complete event dict, kept as it is."""
        self._shape.append(_FULL)
        self._payload.append(event)

    def append_delta(self, block: dict[str, Any], kind: str, text: str) -> int:
        """Record a ``block.delta`` of ``kind`` (text, json_text or signature).

        Returns the new event's index.
        """
        index: int = block["index"] if "choice" not in block else key_of(block)
        refs = self._refs
        if index not in refs:
            refs[index] = block
        self._shape.append(index << 2 | _DELTA_CODE[kind])
        self._payload.append(text)
        return len(self._payload) - 1

    def extend_deltas(self, block: dict[str, Any], kind: str, texts: list[str]) -> int:
        """Record one ``block.delta`` of ``kind`` per text, as :meth:`append_delta` would.

        Returns the index of the first new event.
        """
        index: int = block["index"] if "choice" not in block else key_of(block)
        if index not in self._refs:
            self._refs[index] = block
        first = len(self._payload)
        shape = self._one  # (set and multiplied: array((value,)) builds through an iterator)
        shape[0] = index << 2 | _DELTA_CODE[kind]
        self._shape.extend(shape * len(texts))
        self._payload.extend(texts)
        return first

    def compact(self) -> Iterator[tuple[str | None, dict[str, Any], Any]]:
        """Every event in order, a plain ``block.delta`` without building its dict.

        Yields ``(None, event, None)`` for an event kept whole, and ``(kind,
        block, text)`` for a compact ``block.delta``: its delta kind, its block
        (the dict its built event's ``"block"`` is) and its delta's text — for
        a caller that reads every event of a large stream once.
        """
        refs = self._refs
        kinds = (None, *_DELTA_KINDS)
        for shape, payload in zip(self._shape, self._payload, strict=True):
            code = shape & 3
            if code == _FULL:
                yield None, payload, None
            else:
                yield kinds[code], refs[shape >> 2], payload

    def json_lines(self, batch: int = 2048) -> Iterator[bytes]:
        """Every event as ``orjson.dumps(event) + b"\\n"``, ``batch`` events joined per item.

        The same bytes as dumping each event, without building the
        ``block.delta`` dicts: a compact delta is written from a template of
        its block and kind around ``orjson.dumps`` of its text (orjson writes
        an object compactly in key order, so the pieces join to its output).
        """
        dumps = orjson.dumps
        head = b'{"stream_id":' + dumps(self.stream_id) + b',"seq":'
        templates: dict[int, bytes] = {}  # shape -> the bytes between seq and the text
        pieces: list[bytes] = []
        add = pieces.append
        for seq, (shape, payload) in enumerate(zip(self._shape, self._payload, strict=True), 1):
            if not shape & 3:
                add(dumps(payload))
                add(b"\n")
            else:
                middle = templates.get(shape)
                if middle is None:
                    block, kind = self._refs[shape >> 2], _DELTA_KINDS[(shape & 3) - 1]
                    middle = templates[shape] = (
                        b',"type":"block.delta","block":' + dumps(block)
                        + b',"delta":{"kind":' + dumps(kind) + b',"text":'
                    )  # fmt: skip
                add(head)
                add(b"%d" % seq)
                add(middle)
                add(dumps(payload))
                add(b"}}\n")
            if seq % batch == 0:
                yield b"".join(pieces)
                pieces.clear()
        if pieces:
            yield b"".join(pieces)

    def skeleton(self) -> Iterator[Skeleton]:
        """Every event's :data:`Skeleton`, without building the ``block.delta`` dicts."""
        stream_id = self.stream_id
        for seq, (shape, payload) in enumerate(zip(self._shape, self._payload, strict=True), 1):
            if shape & 3:
                yield "block.delta", seq, stream_id, shape >> 2
            else:
                yield skeleton_of(payload)

    def type_of(self, index: int) -> str:
        """The ``type`` of event ``index``, without building the event."""
        if self._shape[index] & 3 == _FULL:
            kind: str = self._payload[index]["type"]
            return kind
        return "block.delta"


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
