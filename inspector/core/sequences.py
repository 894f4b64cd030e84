"""A read-only sequence built from one element getter.

The trace's logs and the decoder's runs store columns and build an element
only when it is read; slices, negative indices, bounds and iteration are the
same for all of them and written once here.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

__all__ = ["IndexedSequence"]

T = TypeVar("T")


class IndexedSequence(Sequence[T]):
    """A :class:`Sequence` whose subclass says how long it is and builds element ``i``."""

    __slots__ = ()

    @abstractmethod
    def _get(self, index: int) -> T:
        """Element ``index`` (0 ≤ index < len), built from the stored columns."""

    @abstractmethod
    def __len__(self) -> int:
        """How many elements are stored."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._get(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._get(index)

    def __iter__(self) -> Iterator[T]:
        get = self._get
        for i in range(len(self)):
            yield get(i)
