"""Undo a browser's windows-1252 decoding of an SSE body saved in a HAR file.

An event stream is UTF-8 whatever its ``Content-Type`` says (the HTML
standard's EventSource parsing), but Chromium decodes the body it keeps for
DevTools by the resource's charset, and with none declared a ``text/*`` body
(``text/event-stream``, ``text/plain``) is decoded as windows-1252. A HAR
recorded from Chromium (Playwright's ``recordHar``, as
``tests/fixtures/har/PROVENANCE.md`` shows) therefore stores ``👋`` as
``ðŸ‘‹``: one character per byte.

The repair is exact, never a guess at characters: the text is encoded back
to the bytes windows-1252 gave it (the WHATWG mapping, where the five bytes
windows-1252 leaves undefined decode to U+0081, U+008D, …) and kept only if
those bytes are valid UTF-8. Text a browser decoded correctly has characters
outside windows-1252 (then nothing is done), or its non-ASCII characters do
not form UTF-8 sequences (``café`` is the byte E9 alone: left as it is).
"""

from __future__ import annotations

from typing import Final

__all__ = ["browser_decodes_as_windows_1252", "undo_windows_1252"]


def _windows_1252_encoder() -> dict[int, int]:
    """A ``str.translate`` table that makes windows-1252 output encodable as latin-1.

    Each character windows-1252 gives for the bytes 0x80-0x9F becomes the
    code point of its byte; a C1 control it never gives becomes U+FFFF, so
    the latin-1 encoding that follows fails on it.
    """
    table: dict[int, int] = {point: 0xFFFF for point in range(0x80, 0xA0)}
    for byte in range(0x80, 0xA0):
        try:
            char = bytes([byte]).decode("cp1252")
        except UnicodeDecodeError:  # undefined in cp1252: WHATWG maps it to U+0080 + n
            char = chr(byte)
        table[ord(char)] = byte
    return table


_TO_LATIN_1: Final = _windows_1252_encoder()


def browser_decodes_as_windows_1252(content_type: str) -> bool:
    """Whether Chromium keeps a body of this ``Content-Type`` decoded as windows-1252.

    A ``text/*`` type that declares no charset (``text/event-stream``,
    ``text/plain``). JSON without a charset is decoded as UTF-8.
    """
    kind, *params = content_type.split(";")
    declared = any(p.strip().lower().startswith("charset=") for p in params)
    return kind.strip().lower().startswith("text/") and not declared


def undo_windows_1252(text: str) -> bytes | None:
    """The UTF-8 bytes ``text`` was decoded from as windows-1252, or None if it was not.

    None for ASCII text (nothing to undo), for text with a character
    windows-1252 cannot produce, and when the bytes are not valid UTF-8.
    """
    if text.isascii():
        return None
    try:
        data = text.translate(_TO_LATIN_1).encode("latin-1")
        data.decode("utf-8")
    except UnicodeError:
        return None
    return data
