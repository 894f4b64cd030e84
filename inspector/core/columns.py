"""Compact columns: what the trace's logs are stored in.

An :class:`IntColumn` is an ``array`` of 64-bit integers that compares equal
to a list of the same ints; :class:`Log` is what the chunk, frame and event
logs share besides reading by index (equality with a list, a short repr);
:func:`counting` hands out runs of consecutive indices as one slice. None of
these hold objects the garbage collector has to track per element.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from .sequences import IndexedSequence

__all__ = ["IntColumn", "Log", "counting"]

T = TypeVar("T")

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


class Log(IndexedSequence[T]):
    """What the logs share besides reading by index: equality and repr."""

    def __eq__(self, other: object) -> bool:
        return _same_items(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self)}>"
