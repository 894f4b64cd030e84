"""Step 4 of the rewrite: secrets in the bytes no string handled.

Kept strings (keys, types, models), JSON syntax, comments, event names and
data that is not JSON are searched for secrets too. The search reads the
edited body as one text with every covered byte (a string step 2 already
decided) made NUL, so a match is never counted twice; a match that touches a
covered byte is left to its string.
"""

from __future__ import annotations

from typing import Final

from ...redact.shapes import placeholder
from ..decoded import find_encoded_secrets
from ..ledger import Context
from .apply import Covered

__all__ = ["scan_outside_strings"]

#: Covered ranges up to this wide are blanked from a NUL string of their own width.
_OWN_ZEROS: Final = 1024
_BLOCK: Final = 1 << 16  # bytes per step of a body-sized copy (small: no big temporaries)
# NUL bytes in a body up to which the final scan lists the covered ones rather than keep a mask.
_MAX_NULS: Final = 4096


def _runs(count: int, known: list[tuple[int, int, bytes]]) -> list[tuple[int, int, bytes | None]]:
    """Ranges ``0`` to ``count - 1`` as runs in order: ``(first, end, value)``, ``value``
    None for the ranges whose bytes must be kept (:attr:`Covered.known` the others)."""
    runs: list[tuple[int, int, bytes | None]] = []
    at = 0
    for first, end, value in sorted(known):
        if at < first:
            runs.append((at, first, None))
        runs.append((first, end, value))
        at = end
    if at < count:
        runs.append((at, count, None))
    return runs


def scan_outside_strings(out: bytearray, covered: Covered, ctx: Context) -> None:
    """Step 4: replace, in ``out``, every secret outside the ``covered`` bytes.

    ``out`` is edited in place; while the search runs its memory is given
    back, the search's text standing in for it (one body-sized buffer, not
    two). Removed secrets go to ``ctx.ledger``.
    """
    _OutsideScan(out, covered, ctx).scan()


class _OutsideScan:
    def __init__(self, out: bytearray, covered: Covered, ctx: Context) -> None:
        self.out = out
        self.starts = covered.starts
        self.widths = covered.widths
        self.runs = _runs(len(covered.starts), covered.known)
        self.ctx = ctx
        self.covered = bytearray()  # a mask (0xFF: covered), only for a body with many NULs

    def _blanked_text(self) -> tuple[str, bytearray]:
        """The body with every covered byte made NUL, and the covered bytes: the final scan's text.

        The covered strings (already scanned, often full of escapes) cost
        nothing more here. NUL, like any byte no pattern names, matches only
        where any character does (and such a match over a covered byte is
        skipped); it also lower-cases to no rule's literal, so most rules are
        not even run.

        The covered bytes are taken out of the edited body (kept aside: a
        small part of it), and the body is given up once read as this text:
        the text and the kept bytes are all of it (:meth:`_put_back`), so
        the scan holds one body-sized buffer besides the text's lower-cased
        copy, not two. The bytes of a known run (an id written again, most
        of the covered bytes of a chat stream) are not kept: they are known.
        """
        out = self.out
        kept = bytearray()
        # Through a view of the body (its slices copy nothing) and one NUL string
        # per width: half the time of slicing the bytearray (a 30 MB chat stream
        # has ~265,000 ranges). Only short widths get their own string: crafted
        # strings of every length up to n would otherwise make n²/2 bytes of them.
        widths = self.widths
        longest = memoryview(bytes(max(widths, default=0)))
        zeros = {width: bytes(width) for width in set(widths) if width <= _OWN_ZEROS}
        with memoryview(out) as view:
            for first, end, value in self.runs:
                keep = value is None  # (a known run's bytes are put back from its value)
                for start, width in zip(self.starts[first:end], widths[first:end], strict=True):
                    stop = start + width
                    if keep:
                        kept += view[start:stop]
                    view[start:stop] = zeros[width] if width <= _OWN_ZEROS else longest[:width]
        text = out.decode("latin-1")  # one char per byte: byte offsets
        out.clear()  # its memory given back: the text and ``kept`` stand in for it
        return text, kept

    def _put_back(self, text: str, kept: bytearray) -> set[int]:
        """The edited body again, from :meth:`_blanked_text`'s text and kept bytes.

        Returns the covered NULs of the body: a byte is covered if it is NUL
        in the text and not in the body, or one of these.
        """
        out = self.out  # emptied by _blanked_text: filled again, a block at a time
        for at in range(0, len(text), _BLOCK):
            out += text[at : at + _BLOCK].encode("latin-1")
        starts, widths = self.starts, self.widths
        # Put back in reverse order: were two ranges to overlap, the first
        # one's bytes (taken before either was blanked) are written last.
        at = len(kept)
        with memoryview(kept) as pieces, memoryview(out) as view:
            for first, end, value in reversed(self.runs):
                ranges = zip(reversed(starts[first:end]), reversed(widths[first:end]), strict=True)
                if value is not None:
                    for start, width in ranges:
                        view[start : start + width] = value
                    continue
                for start, width in ranges:
                    at -= width
                    view[start : start + width] = pieces[at : at + width]
        covered_nuls: set[int] = set()
        if 0 in kept or any(0 in value for *_, value in self.runs if value is not None):
            # rare: a covered string with a NUL byte
            for start, width in zip(starts, widths, strict=True):
                nul = out.find(0, start, start + width)
                while nul >= 0:
                    covered_nuls.add(nul)
                    nul = out.find(0, nul + 1, start + width)
        return covered_nuls

    def _masked_text(self) -> str:
        """:meth:`_blanked_text`'s text for a body with many NULs (a hostile stream).

        The covered NULs would be too many to list: a mask of the covered
        bytes (0xFF) is kept in ``covered`` instead, beside the body.
        """
        out = self.out
        covered = self.covered = bytearray(len(out))
        for start, width in zip(self.starts, self.widths, strict=True):
            covered[start : start + width] = b"\xff" * width
        merged = bytearray(len(out))
        for at in range(0, len(out), _BLOCK):
            block = out[at : at + _BLOCK]
            mask = int.from_bytes(covered[at : at + _BLOCK], "little")
            value = (int.from_bytes(block, "little") | mask) ^ mask
            merged[at : at + len(block)] = value.to_bytes(len(block), "little")
        return merged.decode("latin-1")

    def _touches_covered(self, text: str, start: int, end: int, nuls: set[int] | None) -> bool:
        """Whether ``text[start:end]`` holds a covered byte (see :meth:`_put_back`)."""
        if nuls is None:
            return any(self.covered[start:end])
        out = self.out
        at = text.find("\0", start, end)
        while at >= 0:
            if out[at] or at in nuls:
                return True
            at = text.find("\0", at + 1, end)
        return False

    def scan(self) -> None:
        """Secrets in what no string handled: kept strings, syntax, comments, event names."""
        nuls: set[int] | None
        if self.out.count(0) > _MAX_NULS:
            text, nuls = self._masked_text(), None
            matches = find_encoded_secrets(text)
        else:
            text, kept = self._blanked_text()
            matches = find_encoded_secrets(text)
            nuls = self._put_back(text, kept)
            del kept
        # Every match is judged before any is written over: the test reads the body.
        found = [
            match
            for match in matches
            if not self._touches_covered(text, match.start, match.end, nuls)
        ]
        del text, matches
        for match in found:
            self.ctx.ledger.remove_all(match.rule, match.values)
            width = match.end - match.start
            self.out[match.start : match.end] = placeholder(match.rule, width).encode("ascii")
