"""The received bytes of one stream, compactly: :class:`ChunkLog` and its :class:`Chunk`."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Final

from .columns import IntColumn, Log

__all__ = ["Chunk", "ChunkLog"]

_BLOCK_SIZE: Final = 64 * 1024
#: A chunk of at least this many bytes is a block of its own (its object costs
#: under 3 % of it): joining it into a larger one would only copy it.
_OWN_BLOCK: Final = 2048


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes exactly as the transport delivered them."""

    index: int
    offset: int
    time: float
    data: bytes


class ChunkLog(Log[Chunk]):
    """Received chunks: their bytes in large blocks, offsets and times in columns.

    New chunks are kept as they came until 64 KiB have gathered, then joined
    into one block that is never copied again; a chunk of 2 KiB or more is a
    block as it came (copying the stream once more costs a pipeline of 4 KiB
    chunks about 6 %). (A single growing ``bytearray``
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
            self._keep(data)

    def add_many(self, offsets: list[int], times: list[float], datas: list[bytes]) -> None:
        """Record chunks in order, as :meth:`add` for each would (one pass a column)."""
        starts = list(accumulate(map(len, datas), initial=self._size))
        self._at.fromlist(starts[:-1])
        self._offset.fromlist(offsets)
        self._time.fromlist(times)
        added = starts[-1] - self._size
        if not added:
            return
        if max(map(len, datas)) >= _OWN_BLOCK:
            for data in datas:
                if data:
                    self._keep(data)
            return
        self._tail.extend(filter(None, datas))  # (small chunks only: all to the tail)
        self._tail_size += added
        self._size += added
        if self._tail_size >= _BLOCK_SIZE:
            self._seal()

    def _keep(self, data: bytes) -> None:
        """Store one chunk's bytes: as a block of its own when large enough, else in the tail."""
        if len(data) >= _OWN_BLOCK and type(data) is bytes:
            # Kept, not copied into a join (bytes are immutable, so this is safe).
            if self._tail:
                self._seal()
            self._size += len(data)
            self._blocks.append(data)
            self._block_end.append(self._size)
            return
        self._tail.append(data)
        self._tail_size += len(data)
        self._size += len(data)
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
