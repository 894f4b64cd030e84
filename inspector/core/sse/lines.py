"""The lines of an SSE body where they sit: each line's field, value and byte spans.

The decoder turns bytes into frames of decoded text; a reader that edits a
body in place (the exporter) needs instead *where* each line's field and value
are. :func:`body_lines` gives that, by the decoder's rules (the HTML standard,
"Interpreting an event stream"): lines end in CRLF, LF or a lone CR; one
leading U+FEFF is skipped at the start of the body; a line starting with a
colon is a comment; otherwise the field is what comes before the first colon
(the whole line when there is none) and the value what follows it, less one
leading space (:func:`field_span`, which the decoder reads fields with too).
``tests/test_sse_lines.py`` checks that grouping the lines at their blank
lines gives exactly the decoder's frames, spans included, for any body.

A body whose every line ends the same way (nearly all: LF, or Gemini's CRLF)
is read with two C searches a line; only a body with lone CRs or a mix takes
the regex.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

__all__ = ["BOM", "DATA", "LINE_END", "Line", "body_lines", "field_span", "uniform_line_end"]

BOM: Final = b"\xef\xbb\xbf"
#: The three line ends, longest first (a CR followed by an LF is one line end); a
#: group, so that ``split`` keeps them.
LINE_END: Final = re.compile(rb"(\r\n|\r|\n)")

#: ``(field, start, value, end, next)``: the field's name (``b""`` for a blank
#: line, None for a comment); where the line starts; where its value starts
#: (``end`` when it has none); where the line's bytes end, before its line end;
#: where the next line starts (``end`` for a last line without a line end).
Line = tuple[bytes | None, int, int, int, int]

#: The ``data`` field's name, shared by every data line.
DATA: Final = b"data"


def field_span(line: bytes, start: int, end: int) -> tuple[int, int]:
    """Where the field name of line ``line[start:end]`` ends, and where its value starts.

    The name runs to the first colon (or the line's end), the value from after
    it, one leading space dropped. (For a comment the name is empty.)
    """
    colon = line.find(b":", start, end)
    if colon < 0:
        return end, end
    value = colon + 1
    if value < end and line[value] == 0x20:
        value += 1
    return colon, value


def body_lines(
    body: bytes,
    start: int = 0,
    resume: list[int] | None = None,
    *,
    line_end: bytes | None = b"",
) -> Iterator[Line]:
    """Every line of ``body`` from offset ``start`` (a line start), as a :data:`Line`.

    A BOM at offset 0 is skipped. A caller that has read ahead on its own
    puts the offset of the next line to read in ``resume`` (checked after
    each line), so one pass can skip what the caller took at once. A caller
    that has :func:`uniform_line_end` of the body already passes it as
    ``line_end`` (it costs three passes over a body with CRs); the default,
    ``b""`` (no line end is empty), has it found here.
    """
    pos = len(BOM) if start == 0 and body.startswith(BOM) else start
    eol = uniform_line_end(body) if line_end == b"" else line_end
    if eol is None:
        yield from _any_ends(body, pos, resume)
        return
    n = len(body)
    step = len(eol)
    find = body.find
    startswith = body.startswith
    while pos < n:
        end = find(eol, pos)
        following = end + step
        if end < 0:
            end = following = n
        if startswith(b"data:", pos):  # nearly every line but the blank ones
            value = pos + 5
            if value < end and body[value] == 0x20:
                value += 1
            yield DATA, pos, value, end, following
        elif end == pos:
            yield b"", pos, pos, pos, following
        else:
            yield _line(body, pos, end, following)
        pos = resume.pop() if resume else following


def _any_ends(body: bytes, pos: int, resume: list[int] | None) -> Iterator[Line]:
    """:func:`body_lines` for a body with lone CRs or mixed line ends."""
    n = len(body)
    while pos < n:
        for match in LINE_END.finditer(body, pos):
            end, following = match.span()
            yield _line(body, pos, end, following)
            pos = following
            if resume:
                pos = resume.pop()
                break  # read on from there
        else:
            if pos < n:
                yield _line(body, pos, n, n)
            return


def _line(body: bytes, pos: int, end: int, following: int) -> Line:
    if end == pos:
        return b"", pos, pos, pos, following
    if body[pos] == 0x3A:
        return None, pos, pos, end, following
    name, value = field_span(body, pos, end)
    return body[pos:name], pos, value, end, following


def uniform_line_end(body: bytes) -> bytes | None:
    """The one line end of every line of ``body`` (LF, or CRLF); None for a mix or lone CRs.

    (Three C-level counts over the body when it holds a CR.)
    """
    if 0x0D not in body:  # (an int: memchr, see decoder._feed)
        return b"\n"
    if body.count(b"\r") == body.count(b"\r\n") == body.count(b"\n"):
        return b"\r\n"
    return None
