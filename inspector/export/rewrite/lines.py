"""Where a stream body's ``data:`` values are: the byte spans the rewriter edits.

The rewrite works on the body's bytes in place, so it needs each event's
``data`` lines as *spans of the body* (the decoder's frames hold the decoded
text, not where it sits). Line ends follow WHATWG (CRLF, LF or a lone CR); a
body whose every line ends the same way (nearly all: LF, or Gemini's CRLF) is
read with one C search per event instead of a loop over its lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Final

__all__ = ["BOM", "Segments", "data_values", "lines_data_values", "uniform_eol", "uniform_events"]

BOM: Final = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")


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


def data_span(body: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The value span of line ``body[start:end]`` when it is a ``data`` field."""
    if body[start : start + 1] == b":":
        return None  # a comment
    colon = body.find(b":", start, end)
    name_end = end if colon < 0 else colon
    if body[start:name_end] != b"data":
        return None
    value = end if colon < 0 else colon + 1
    if value < end and body[value] == 0x20:
        value += 1
    return value, end


def lines_data_values(body: bytes, pos: int, n: int) -> Iterator[list[tuple[int, int]]]:
    """:func:`data_values` of ``body[pos:n]``, line by line (any line ends)."""
    spans: list[tuple[int, int]] = []
    for m in _LINE_END.finditer(body, pos, n):
        if m.start() == pos:
            if spans:
                yield spans
                spans = []
        else:
            span = data_span(body, pos, m.start())
            if span is not None:
                spans.append(span)
        pos = m.end()
    if pos < n:
        span = data_span(body, pos, n)
        if span is not None:
            spans.append(span)
    if spans:
        yield spans


def data_values(body: bytes) -> Iterator[list[tuple[int, int]]]:
    """The byte spans of each event's ``data`` lines, event by event.

    Follows the WHATWG line rules; an event left without its blank line at
    the end is yielded too (its bytes are recorded and must be scrubbed even
    though no decoder dispatches them).
    """
    pos = len(BOM) if body.startswith(BOM) else 0
    eol = uniform_eol(body)
    if eol is not None:
        for _, spans in uniform_events(body, pos, eol):
            yield spans
    else:
        yield from lines_data_values(body, pos, len(body))


def uniform_eol(body: bytes) -> bytes | None:
    """The one line end of every line of ``body`` (LF, or Gemini's CRLF); None for a mix."""
    if b"\r" not in body:
        return b"\n"
    if body.count(b"\r") == body.count(b"\r\n") == body.count(b"\n"):
        return b"\r\n"
    return None


def uniform_events(
    body: bytes, pos: int, eol: bytes, resume: list[int] | None = None
) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """:func:`data_values` of a body whose every line ends with ``eol``, or the body's end.

    Yields ``(where the event starts, its data spans)``. An event runs to
    the next blank line (one C search), and an event that is one ``data:``
    line — nearly all — needs no line loop; the lines of another (``event:``
    and ``data:``, say) are found with one C search each. A position the
    caller puts in ``resume`` after a one-span event is where the next event
    starts (the caller read the events up to there itself).
    """
    n = len(body)
    step = len(eol)
    blank = eol + eol
    while pos < n:
        end = body.find(blank, pos)
        if end < 0:
            end = n
        if body.startswith(b"data:", pos) and body.find(eol, pos, end) < 0:
            value = pos + 5
            if value < end and body[value] == 0x20:
                value += 1
            yield pos, [(value, end)]
            if resume:
                pos = resume.pop()
                continue
        else:
            event = pos
            spans: list[tuple[int, int]] = []
            while pos < end:
                line_end = body.find(eol, pos, end)
                if line_end < 0:
                    line_end = end
                if line_end == pos:  # a blank line (an event of its own, ended early)
                    if spans:
                        yield event, spans
                        spans = []
                    event = pos + step
                else:
                    span = data_span(body, pos, line_end)
                    if span is not None:
                        spans.append(span)
                pos = line_end + step
            if spans:
                yield event, spans
                if len(spans) == 1 and resume:
                    pos = resume.pop()
                    continue
        pos = end + 2 * step


# A JSON string: its content is group 1. Outside strings a JSON text has no
