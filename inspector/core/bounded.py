"""A trace that keeps counts, not history: memory bounded whatever the stream's length.

A recorder with no view — headless ``inspector record``, the proxy for a
flow nobody follows — writes every chunk to the capture file as it arrives
and only needs, at the end, what the summary and the exit code say: the
outcome, how many frames, events and bytes, the violations. A normal
:class:`~inspector.core.trace.Trace` keeps everything a view may show, about
2.7 times the bytes received. :class:`BoundedTrace` is the same trace for
every reader of those facts, storing no history:

- chunks and frames are counted (the capture file has the bytes); the
  frames of the latest batch stay, so a feed can read their times;
- events are counted, by type too, and the last :data:`KEPT_EVENTS` kept
  (the terminal event is the last one); each is checked as it is emitted by
  an :class:`~inspector.core.invariants.InvariantChecker`, which gives the
  problems :func:`~inspector.core.invariants.check_invariants` would;
- the per-frame and per-block event columns only count;
- violations, ignored frames, block transitions and problems keep the first
  :data:`KEPT_ENTRIES` each, with exact totals; stream transitions (at most
  three) are all kept, so :attr:`Trace.state` is exact.

The machine's blocks follow the same rule (:func:`bound_machine`): a text,
reasoning or other block keeps no content; a tool call keeps its arguments
until its ``block.stop`` (where the contract parses them) and is released
then. Which block indices were seen is kept as ranges, for the machine's
"opened twice" / "already closed" checks.

Reading what is not kept (an old event, a chunk's bytes) raises
:class:`NotKept`. :class:`~inspector.core.normalizer.Normalizer` builds one
with ``keep_history=False``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar, cast

from .invariants import IndexRanges, InvariantChecker, Problem
from .machine import BlockBuffer, StreamMachine
from .sse import Frame
from .trace import (
    ChunkLog,
    EventLog,
    FrameLog,
    IntColumn,
    Skeleton,
    Trace,
    Transition,
    skeleton_of,
)

__all__ = [
    "KEPT_ENTRIES",
    "KEPT_EVENTS",
    "BoundedTrace",
    "CountColumn",
    "CountedChunks",
    "EventCounter",
    "KeptList",
    "NotKept",
    "RecentEvents",
    "RecentFrames",
    "SeenBlocks",
    "bound_machine",
    "bounded_block",
]

#: The last events a bounded trace keeps (the terminal event is the last one).
KEPT_EVENTS: Final = 8
#: Violations, ignored frames, block transitions and invariant problems kept, each.
KEPT_ENTRIES: Final = 100

T = TypeVar("T")
Event = dict[str, Any]


class NotKept(LookupError):
    """What was asked for is history a bounded trace does not keep."""


# -- columns and lists that count ------------------------------------------------


class CountColumn(IntColumn):
    """An :class:`IntColumn` that counts what is appended and stores none of it."""

    total: int

    def __new__(cls, values: Iterable[int] = ()) -> CountColumn:
        column = cast(CountColumn, super().__new__(cls))
        column.total = 0
        column.extend(values)
        return column

    def append(self, value: int, /) -> None:
        self.total += 1

    def extend(self, values: Iterable[int], /) -> None:
        self.total += len(values) if isinstance(values, Sequence) else sum(1 for _ in values)

    def fromlist(self, values: list[int], /) -> None:
        self.total += len(values)

    def frombytes(self, data: Any, /) -> None:
        self.total += len(memoryview(data).cast("B")) // self.itemsize

    def __iadd__(self, values: Any) -> CountColumn:  # type: ignore[misc]
        self.extend(values)
        return self

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: Any) -> Any:
        raise NotKept("a bounded trace keeps no per-frame or per-block event indices")

    def __repr__(self) -> str:
        return f"CountColumn(total={self.total})"


class KeptList(list[T], Generic[T]):
    """A list that stores the first ``limit`` items appended (and every item
    ``always`` accepts); :attr:`total` counts every item appended."""

    def __init__(
        self, limit: int = KEPT_ENTRIES, always: Callable[[T], bool] | None = None
    ) -> None:
        super().__init__()
        self.limit = limit
        self.always = always
        self.total = 0
        self._others = 0  # items stored under the limit

    def append(self, item: T, /) -> None:
        self.total += 1
        if self.always is not None and self.always(item):
            super().append(item)
        elif self._others < self.limit:
            self._others += 1
            super().append(item)

    def extend(self, items: Iterable[T], /) -> None:
        for item in items:
            self.append(item)

    def __iadd__(self, items: Iterable[T]) -> KeptList[T]:  # type: ignore[override, misc]
        self.extend(items)
        return self


class _Discard(list[Any]):
    """Content not kept: a block's text, signature and citations in a bounded trace."""

    def append(self, item: Any, /) -> None:
        """Drop ``item``: the capture file has the bytes it came from."""

    def extend(self, items: Iterable[Any], /) -> None:
        """Drop ``items``, as :meth:`append` does."""


class _Counted(dict[int, IntColumn]):
    """``Trace.block_events`` of a bounded trace: counts the blocks, keeps no columns."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def __setitem__(self, key: int, value: IntColumn) -> None:
        self.total += 1


# -- the logs ------------------------------------------------------------------------


class CountedChunks(ChunkLog):
    """Chunks counted, with the bytes received; their bytes are not kept."""

    def __init__(self) -> None:
        super().__init__()
        self._count = 0
        self._received = 0

    def __len__(self) -> int:
        return self._count

    def _get(self, index: int) -> Any:
        raise NotKept("a bounded trace keeps no chunk bytes (the capture file has them)")

    def add(self, offset: int, time: float, data: bytes) -> None:
        self._count += 1
        self._received = offset + len(data)

    def add_many(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        if offsets:
            self._count += len(offsets)
            self._received = offsets[-1] + len(datas[-1])

    @property
    def bytes_received(self) -> int:
        return self._received

    @property
    def stored_bytes(self) -> int:
        return 0

    def time_of(self, index: int) -> float:
        raise NotKept("a bounded trace keeps no chunk times")

    def span(self, start: int, end: int) -> bytes:
        if end <= start:
            return b""
        raise NotKept("a bounded trace keeps no chunk bytes (the capture file has them)")


class RecentFrames(FrameLog):
    """Frames counted; the latest batch (one chunk's frames, live) is kept whole."""

    def __init__(self, chunks: ChunkLog) -> None:
        super().__init__(chunks)
        self._count = 0
        self._first = 0  # index of the first frame of the batch kept
        self._batch: Sequence[Frame] = ()

    def __len__(self) -> int:
        return self._count

    def _get(self, index: int) -> Frame:
        at = index - self._first
        if 0 <= at < len(self._batch):
            return self._batch[at]
        raise NotKept(f"frame {index}: a bounded trace keeps only the latest frames")

    def extend(self, frames: Sequence[Frame]) -> None:
        if frames:
            self._first = self._count
            self._batch = frames
            self._count += len(frames)

    def extend_spans(
        self, bounds: list[int], first_chunk: int, chunk: int, time: float, id: str
    ) -> None:
        self._first = self._count
        self._batch = ()
        self._count += len(bounds) - 1

    def set_end(self, index: int, end: int) -> None:
        pass  # the decoder extended the Frame object itself; no span is stored

    def span_of(self, index: int) -> tuple[int, int]:
        frame = self[index]
        return frame.start, frame.end

    def chunks_of(self, index: int) -> range:
        frame = self[index]
        return range(frame.first_chunk, frame.last_chunk + 1)

    def time_of(self, index: int) -> float:
        return self[index].time


@dataclass(frozen=True, slots=True)
class _Delta:
    block: dict[str, Any]
    kind: str
    text: str


class RecentEvents(EventLog):
    """Events counted (and by type), the last :data:`KEPT_EVENTS` kept, each checked
    by :attr:`checker` as it is recorded."""

    def __init__(self, stream_id: str) -> None:
        super().__init__(stream_id)
        self._count = 0
        self._recent: deque[Event | _Delta] = deque(maxlen=KEPT_EVENTS)
        #: Events recorded, by type.
        self.type_counts: dict[str, int] = {}
        #: The contract's invariants, checked event by event.
        self.checker = InvariantChecker(limit=KEPT_ENTRIES)

    def __len__(self) -> int:
        return self._count

    def _get(self, index: int) -> Event:
        at = index - (self._count - len(self._recent))
        if at < 0:
            raise NotKept(f"event {index}: a bounded trace keeps only the last {KEPT_EVENTS}")
        kept = self._recent[at]
        if isinstance(kept, dict):
            return kept
        return {
            "stream_id": self.stream_id,
            "seq": index + 1,
            "type": "block.delta",
            "block": kept.block,
            "delta": {"kind": kept.kind, "text": kept.text},
        }

    def _counted(self, kind: str, count: int) -> None:
        self.type_counts[kind] = self.type_counts.get(kind, 0) + count

    def append(self, event: Event) -> None:
        row: Skeleton = skeleton_of(event)
        self.checker.rows((row,))
        self._counted(str(row[0]), 1)
        self._recent.append(event)
        self._count += 1

    def append_delta(self, block: dict[str, Any], kind: str, text: str) -> int:
        index = self._count
        self.checker.deltas(block["index"], self.stream_id, index + 1, 1)
        self._counted("block.delta", 1)
        self._recent.append(_Delta(block, kind, text))
        self._count += 1
        return index

    def extend_deltas(self, block: dict[str, Any], kind: str, texts: list[str]) -> int:
        first = self._count
        count = len(texts)
        self.checker.deltas(block["index"], self.stream_id, first + 1, count)
        self._counted("block.delta", count)
        self._recent.extend(_Delta(block, kind, text) for text in texts[-KEPT_EVENTS:])
        self._count += count
        return first

    def json_lines(self, batch: int = 2048) -> Iterator[bytes]:
        raise NotKept("a bounded trace keeps no event history (the capture file replays it)")

    def skeleton(self) -> Iterator[Skeleton]:
        raise NotKept("a bounded trace checks its events as they come: see its checker")

    def type_of(self, index: int) -> str:
        event = self[index]
        return str(event["type"])


class EventCounter:
    """How many events of each type an event log holds, read without its history.

    A bounded log counts as it records; a full one is read from where the
    previous call stopped, so each event is looked at once.
    """

    def __init__(self) -> None:
        self._seen = 0
        self._counts: dict[str, int] = {}

    def counts(self, events: EventLog) -> Mapping[str, int]:
        """Events in ``events`` by type (always pass the same log)."""
        if isinstance(events, RecentEvents):
            return events.type_counts
        counts = self._counts
        type_of = events.type_of
        for index in range(self._seen, len(events)):
            kind = type_of(index)
            counts[kind] = counts.get(kind, 0) + 1
        self._seen = len(events)
        return counts


# -- the trace -----------------------------------------------------------------------


def _stream_transition(transition: Transition) -> bool:
    return transition.subject == "stream"


@dataclass
class BoundedTrace(Trace):
    """A :class:`Trace` that keeps counts and the last events, not history (see the module)."""

    checker: InvariantChecker = field(init=False)

    def __post_init__(self) -> None:
        self.chunks = CountedChunks()
        self.frames = RecentFrames(self.chunks)
        events = RecentEvents(self.stream_id)
        self.events = events
        self.checker = events.checker
        self.frame_event_start = CountColumn()
        self.event_frame = CountColumn()
        self.transitions = KeptList(always=_stream_transition)
        self.violations = KeptList()
        self.ignored = KeptList()
        self.block_events = _Counted()
        self.problems = KeptList()

    def indices(self, start: int, count: int) -> Sequence[int]:
        """A range: this trace's index columns only count, and the column of counts
        shared by traces with history would grow with the stream's length."""
        return range(start, start + count)

    def invariant_problems(self, ended: bool = True) -> list[Problem]:
        """What :func:`~inspector.core.invariants.check_invariants` says of the events
        (the first :data:`KEPT_ENTRIES`; ``checker.found`` counts them all)."""
        return self.checker.finish(ended)

    @property
    def type_counts(self) -> dict[str, int]:
        """Events recorded, by type."""
        events = self.events
        assert isinstance(events, RecentEvents)
        return events.type_counts


# -- the machine's blocks --------------------------------------------------------------


class SeenBlocks(dict[int, BlockBuffer]):
    """``StreamMachine.blocks`` of a bounded trace: which indices were seen, as ranges.

    Membership is all the machine asks of it; the buffers themselves are not
    kept (an open one is in ``open_blocks``), so a closed block is released.
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen = IndexRanges()

    def __setitem__(self, index: int, block: BlockBuffer) -> None:
        self.seen.add(index)

    def __contains__(self, index: object) -> bool:
        return index in self.seen

    def __len__(self) -> int:
        return len(self.seen)


def bounded_block(
    index: int, kind: str, provider_type: str, name: str | None = None, call_id: str | None = None
) -> BlockBuffer:
    """A block buffer that counts its events and keeps no content, except a tool
    call's arguments (parsed at its ``block.stop``)."""
    parts: list[str] = [] if kind == "tool_call" else _Discard()
    return BlockBuffer(
        index, kind, provider_type, name, call_id,
        parts=parts, signature=_Discard(), citations=_Discard(), events=CountColumn(),
    )  # fmt: skip


def bound_machine(machine: StreamMachine) -> None:
    """Make ``machine`` keep blocks the bounded way (before anything is applied)."""
    machine.blocks = SeenBlocks()
    machine.new_block = bounded_block
