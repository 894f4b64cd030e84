"""The JSON strings of a body as the rewriter holds them, and edits them.

A :class:`String` is one string of the body with the edits decided for it
(each unit's new bytes, same width); a :class:`Fragments` is one text — the
deltas of one block — while the body is read, most of it kept as bytes and
offsets until the decision needs strings.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Callable

from ..jsonlex import Units, decode_units
from ..rules import Treatment

__all__ = ["Fragments", "Segments", "String", "unit_index"]


class Segments:
    """Where a joined ``data`` value's bytes sit in the body."""

    # Plain classes here: a NamedTuple compiles each field's annotation at import.
    __slots__ = ("body_starts", "joined_starts", "lengths")

    def __init__(
        self, joined_starts: list[int], body_starts: list[int], lengths: list[int]
    ) -> None:
        self.joined_starts = joined_starts
        self.body_starts = body_starts
        self.lengths = lengths

    def to_body(self, offset: int) -> int:
        """The body offset of joined offset ``offset`` (-1: a ``\\n`` joining two lines)."""
        if len(self.joined_starts) == 1:
            return self.body_starts[0] + offset
        i = bisect.bisect_right(self.joined_starts, offset) - 1
        if i < 0 or offset >= self.joined_starts[i] + self.lengths[i]:
            return -1
        return self.body_starts[i] + offset - self.joined_starts[i]


class String:
    """One JSON string of the body; decoded into units only when an edit needs them.

    ``raw`` is its content on the wire; ``base`` the body offset of its first
    byte when it sits on one ``data:`` line (``segments`` otherwise). A
    *simple* string — one line, ASCII, no escape — has one unit per byte, so
    a whole-string change is written as one ``blob``.
    """

    __slots__ = (
        "_edits",
        "_offsets",
        "_units",
        "base",
        "blob",
        "raw",
        "segments",
        "start",
        "treatment",
    )

    def __init__(self, raw: bytes, base: int, treatment: Treatment) -> None:
        self.raw = raw
        self.base = base
        self.treatment = treatment
        # Where a string spread over several data lines sits (the lexer's strings only).
        self.segments: Segments | None = None
        self.start = 0
        # An empty dict is 64 bytes, and a stream has several strings a frame.
        self._edits: dict[int, bytes] | None = None
        self.blob: bytes | None = None  # the whole new content (simple strings only)
        self._units: Units | None = None
        self._offsets: list[int] | None = None

    @property
    def edits(self) -> dict[int, bytes]:
        """Unit index -> its new bytes (same width); made on first use."""
        if self._edits is None:
            self._edits = {}
        return self._edits

    @property
    def edited(self) -> bool:
        """Whether any unit has an edit (without making the dict)."""
        return bool(self._edits)

    @property
    def simple(self) -> bool:
        return self.segments is None and self.raw.isascii() and b"\\" not in self.raw

    @property
    def chars(self) -> str:
        if self._units is None and b"\\" not in self.raw:
            return self.raw.decode("utf-8", "surrogateescape")
        return self.units.chars

    @property
    def units(self) -> Units:
        if self._units is None:
            self._units = decode_units(self.raw)
        return self._units

    @property
    def offsets(self) -> list[int]:
        """The body offset of each unit (-1: a ``\\n`` joining two data lines)."""
        if self._offsets is None:
            widths = self.units.widths
            if self.segments is None:
                self._offsets = list(itertools.accumulate(widths[:-1], initial=self.base))
                if not widths:
                    self._offsets = []
            else:
                offsets = []
                at = self.start
                for width in widths:
                    offsets.append(self.segments.to_body(at))
                    at += width
                self._offsets = offsets
        return self._offsets


class Fragments:
    """The strings of one text while the body is read, most held as bytes and an offset only.

    A fragment that is a simple string at one offset (nearly every delta)
    costs a list slot and an array entry here instead of a :class:`String`
    (~130 bytes less each, and a long stream has hundreds of thousands):
    they become strings (:meth:`strings`) once the body has been let go of,
    so the strings are never all there beside the body and its edited copy.
    Every fragment of one text has the text's treatment.
    """

    __slots__ = ("bases", "items", "treatment")

    def __init__(self, treatment: Treatment) -> None:
        self.items: list[bytes | String] = []
        self.bases = array("q")  # a bytes item's offset (-1 beside a String)
        self.treatment = treatment

    def add(self, raw: bytes, base: int) -> None:
        """A one-line string ``raw`` at body offset ``base``."""
        self.items.append(raw)
        self.bases.append(base)

    def append(self, string: String) -> None:
        """A string made already (spread over data lines, or read by the lexer)."""
        self.items.append(string)
        self.bases.append(-1)

    def plain(self) -> bool:
        """Whether every fragment is still bytes and an offset (:meth:`add`)."""
        return -1 not in self.bases

    def raws(self) -> list[bytes]:
        """The fragments of :meth:`plain` fragments (all bytes)."""
        return self.items  # type: ignore[return-value]

    def text(self) -> str:
        """The text of :meth:`plain` fragments: the ``chars`` of their strings, joined."""
        items = self.raws()
        joined = b"".join(items)
        if joined.isascii() and b"\\" not in joined:
            return joined.decode("ascii")
        del joined
        return "".join(
            raw.decode("utf-8", "surrogateescape") if b"\\" not in raw else decode_units(raw).chars
            for raw in items
        )

    def strings(self) -> list[String]:
        """Every fragment as a :class:`String`, in order."""
        treatment = self.treatment
        return [
            item if isinstance(item, String) else String(item, base, treatment)
            for item, base in zip(self.items, self.bases, strict=True)
        ]


def unit_index(strings: list[String]) -> Callable[[int], tuple[String, int]]:
    """A function from an index into the joined text to ``(string, unit index)``."""
    starts = []
    at = 0
    for s in strings:
        starts.append(at)
        at += len(s.chars)

    def where(g: int) -> tuple[String, int]:
        i = bisect.bisect_right(starts, g) - 1
        return strings[i], g - starts[i]

    return where
