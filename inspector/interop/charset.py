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

import codecs
from typing import Final

__all__ = ["browser_decodes_as_windows_1252", "undo_windows_1252"]

# Bytes cp1252 leaves undefined; WHATWG's windows-1252 decodes each to U+0080 + n.
_UNDEFINED: Final = frozenset((0x81, 0x8D, 0x8F, 0x90, 0x9D))
_ERRORS: Final = "inspector-whatwg-windows-1252"


def _undefined_bytes_back(exc: UnicodeError) -> tuple[bytes, int]:
    """Codec error handler: encode U+0081, U+008D, … back to their byte; fail on anything else."""
    if isinstance(exc, UnicodeEncodeError):
        chunk = exc.object[exc.start : exc.end]
        if all(ord(char) in _UNDEFINED for char in chunk):
            return bytes(ord(char) for char in chunk), exc.end
    raise exc


# Python's cp1252 codec does the rest, in C (a loop over characters was 15 times slower).
codecs.register_error(_ERRORS, _undefined_bytes_back)


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
        data = text.encode("cp1252", _ERRORS)
        data.decode("utf-8")
    except UnicodeError:
        return None
    return data
