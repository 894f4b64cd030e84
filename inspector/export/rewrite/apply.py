"""Step 3 of the rewrite: write the decided edits into the body's copy.

Every edit replaces bytes by as many bytes (a length that changes is a bug:
:class:`RewriteError`), so the copy keeps the body's offsets, and the chunks
cut from it end where the original's did. :func:`covered_ranges` lists the
bytes the strings handled here cover, which the last step's scan skips.
"""

from __future__ import annotations

from array import array

from .decide import Decided

__all__ = ["Covered", "RewriteError", "apply_edits", "covered_ranges"]


class RewriteError(Exception):
    """An edit would have changed the body's length (a bug, never bad input)."""


class Covered:
    """The bytes of every string handled on its own, as ranges (starts, widths).

    ``known``: runs of those ranges whose bytes are known without reading
    the body — ``(first, end, value)``: ranges ``first`` to ``end - 1`` each
    hold ``value`` (an id written again), so the last step need not keep a
    copy of them while it reads the body as text.
    """

    __slots__ = ("known", "starts", "widths")

    def __init__(
        self,
        starts: array[int],
        widths: array[int],
        known: list[tuple[int, int, bytes]] | None = None,
    ) -> None:
        self.starts = starts
        self.widths = widths
        self.known = [] if known is None else known


def apply_edits(decided: Decided, out: bytearray) -> None:
    """Write every decided edit into ``out``, the body's copy (raises :class:`RewriteError`)."""
    for offset, new in decided.numbers:
        out[offset : offset + len(new)] = new
    for strings in (*decided.streams.values(), decided.singles):
        for string in strings:
            if string.blob is not None:
                if len(string.blob) != len(string.raw):
                    raise RewriteError(f"an edit at byte {string.base} changes its length")
                out[string.base : string.base + len(string.raw)] = string.blob
            if not string.edited:
                continue
            offsets = string.offsets
            widths = string.units.widths
            for k, new in string.edits.items():
                offset = offsets[k]
                width = widths[k]
                if offset < 0:
                    continue
                if len(new) != width:
                    raise RewriteError(
                        f"an edit at byte {offset} would turn {width} bytes into {len(new)}"
                    )
                out[offset : offset + width] = new
    for first, repeats in decided.id_repeats.values():
        blob = first.blob
        if blob is not None and repeats:
            if len(blob) != len(first.raw):
                raise RewriteError(f"an edit at byte {first.base} changes its length")
            width = len(blob)
            for start in repeats:
                out[start : start + width] = blob


def covered_ranges(decided: Decided) -> Covered:
    """Where every string handled on its own is: the covered bytes, as ranges.

    Every such string is in a stream or among the singles, and an id
    written again is at the starts its first string lists: together they
    are exactly the bytes the collection handled. Kept as two arrays
    (starts and widths), not a mask as long as the body. Each id's repeats
    are a known run: :func:`apply_edits` wrote its first string's new bytes
    there (or left its own, the same as the first's).
    """
    starts, widths = array("q"), array("q")
    add_start, add_width = starts.append, widths.append
    for strings in (*decided.streams.values(), decided.singles):
        for string in strings:
            if string.segments is None:
                add_start(string.base)
                add_width(len(string.raw))
                continue
            for offset, width in zip(string.offsets, string.units.widths, strict=True):
                if offset >= 0:
                    add_start(offset)
                    add_width(width)
    known: list[tuple[int, int, bytes]] = []
    for first, repeats in decided.id_repeats.values():
        if not repeats:
            continue
        known.append((len(starts), len(starts) + len(repeats), first.blob or first.raw))
        starts.extend(repeats)
        widths.extend(array("q", [len(first.raw)]) * len(repeats))
    for stream in decided.untouched:  # one-line strings, each at its offset
        starts.extend(stream.bases)
        widths.extend(array("q", map(len, stream.raws())))
    return Covered(starts, widths, known)
