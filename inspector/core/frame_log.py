"""The decoded frames of one stream, kept as spans into its bytes: :class:`FrameLog`."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from operator import sub

from .chunk_log import ChunkLog
from .columns import IntColumn, Log
from .sse import Frame, parse_span

__all__ = ["FrameLog"]


class FrameLog(Log[Frame]):
    """Decoded frames, kept as spans into the chunk bytes and decoded on access.

    A frame's ``event``/``data``/``retry``/``comment`` are all in its wire
    bytes, so only the span, chunk links, time and last-event-ID are stored
    (about 24 bytes a frame rather than the frame object and its data string):
    span and time in a column each, the chunk links and the id once per
    *group* — the frames recorded together (a decoder's run, which share them
    but for the first frame's first chunk, or one frame). A run then costs a
    few appends, not a column's worth of repeated values per field (a
    pipeline of 4 KiB chunks spent about 5 % there).
    A frame whose bytes are not in :attr:`chunks` (built by hand, say) is kept
    whole.
    """

    def __init__(self, chunks: ChunkLog) -> None:
        self.chunks = chunks
        # One column per field: filling four from four flat list comprehensions is
        # cheaper than one interleaved column from a nested one.
        self._start = IntColumn()
        self._end = IntColumn()
        self._time = array("d")
        self._one_time = array("d", (0.0,))  # scratch for extend_spans
        # By group: its first frame, that frame's first chunk, every other chunk link
        # of the group (the last chunk of each frame), and the frames' last-event-ID.
        self._group_at = IntColumn()
        self._group_first = IntColumn()
        self._group_chunk = IntColumn()
        self._group_id: list[str] = []  # the same str object repeats until the id changes
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
        first_chunk, last_chunk, id = self._links(index)
        if self.rebuild is not None:
            raw, time = self.chunks.span(start, end), self._time[index]
            return self.rebuild(raw, index, id, start, end, first_chunk, last_chunk, time)
        event, data, retry, comment = parse_span(self.chunks.span(start, end))
        # Kept as written (fmt: skip): Frame's eleven fields in two lines, in field order.
        return Frame(
            index, event, data, id, retry, comment,
            start, end, first_chunk, last_chunk, self._time[index],
        )  # fmt: skip

    def _links(self, index: int) -> tuple[int, int, str]:
        """Frame ``index``'s (0 ≤ index < len) first chunk, last chunk and id, from its group."""
        group = bisect_right(self._group_at, index) - 1
        chunk = self._group_chunk[group]
        first = self._group_first[group] if self._group_at[group] == index else chunk
        return first, chunk, self._group_id[group]

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
        # about twice as slowly. Each frame is a group of its own.
        start: list[int] = []
        end: list[int] = []
        first_chunk: list[int] = []
        last_chunk: list[int] = []
        time: list[float] = []
        ids = self._group_id
        for f in frames:
            start.append(f.start)
            end.append(f.end)
            first_chunk.append(f.first_chunk)
            last_chunk.append(f.last_chunk)
            time.append(f.time)
            ids.append(f.id)  # the decoder shares one str per id value
        self._group_at.fromlist(list(range(len(self._time), len(self._time) + len(start))))
        self._start.fromlist(start)
        self._end.fromlist(end)
        self._group_first.fromlist(first_chunk)
        self._group_chunk.fromlist(last_chunk)
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
        self._group_at.append(len(self._time))
        self._group_first.append(first_chunk)
        self._group_chunk.append(chunk)
        self._group_id.append(id)
        spans = array("q")
        spans.fromlist(bounds)  # converted once; the slices are copies
        self._start.extend(spans[:-1])
        self._end.extend(spans[1:])
        # The time repeated: a one-item array set and multiplied (array((value,))
        # would build through an iterator, and parse its type code, every time).
        one_time = self._one_time
        one_time[0] = time
        self._time.extend(one_time * count)

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
        if at >= len(self):
            raise IndexError("frame index out of range")
        first, last, _ = self._links(at)
        return range(first, last + 1)

    def time_of(self, index: int) -> float:
        """Arrival time of frame ``index``, without decoding it."""
        return self._time[index]

    def span_columns(self) -> tuple[array[int], array[int], array[int], array[int]]:
        """Copies of every frame's start, end, first chunk and last chunk, in frame order.

        ``span_of(i) == (start[i], end[i])`` and ``chunks_of(i) ==
        range(first[i], last[i] + 1)``: what a caller comparing the frames
        of two streams needs, in four arrays instead of a loop over frames.
        """
        groups = self._group_at
        sizes = list(map(sub, chain(groups[1:], (len(self),)), groups))
        last: array[int] = array("q")
        last.fromlist(list(chain.from_iterable(map(repeat, self._group_chunk, sizes))))
        first = last[:]
        for at, chunk in zip(groups, self._group_first, strict=True):
            first[at] = chunk
        return self._start[:], self._end[:], first, last
