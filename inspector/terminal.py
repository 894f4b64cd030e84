"""Untrusted text made safe to print: the one place control characters are escaped.

Provider bytes, capture files, file names, HTTP headers and server error
messages all come from outside. Before any of it reaches a terminal — the
CLI's stdout/stderr, the replay server's log, the TUI — every character a
terminal would *act on* instead of print is replaced by a visible escape:
C0 controls (ESC starts an ANSI sequence, CR moves the cursor), DEL, C1
controls (``\\x9b`` is a one-byte CSI on some terminals), and the invisible
formatting characters that reorder or hide text (bidi overrides and
isolates, zero-width characters, line/paragraph separators, BOM, tag
characters): every character of the Unicode categories Cc, Cf, Zl and Zp.
JSON text gets the same treatment as ``\\u`` escapes (:func:`escape_json`).

The escapes (``\\x1b``, ``\\r``, ``\\u202e``) are themselves printable, so
escaped text can be printed, logged or shown in a widget as it is. A
backslash already in the text is left alone: the goal is that nothing acts
on the terminal, not that the escaping can be reversed.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Final

__all__ = [
    "escape_char",
    "escape_controls",
    "escape_json",
    "safe_path",
    "unsafe_pattern",
]

#: Every character a terminal may act on instead of printing, as inclusive
#: code point ranges: the Unicode categories Cc (C0, DEL, C1), Cf (bidi
#: overrides and isolates, zero-width characters, soft hyphen, BOM, tag
#: characters, interlinear annotations, ...), Zl and Zp. A test checks the
#: table against :mod:`unicodedata`.
UNSAFE_RANGES: Final = (
    (0x00, 0x1F),
    (0x7F, 0x9F),
    (0xAD, 0xAD),
    (0x600, 0x605),
    (0x61C, 0x61C),
    (0x6DD, 0x6DD),
    (0x70F, 0x70F),
    (0x890, 0x891),
    (0x8E2, 0x8E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = (f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)
    return "[" + "".join(parts) + "]"


#: The same, but line feeds and tabs (0x09, 0x0A) are kept (multi-line views).
_MULTI_LINE_RANGES: Final = ((0x00, 0x08), (0x0B, 0x1F), *UNSAFE_RANGES[1:])


@functools.cache
def unsafe_pattern(multiline: bool = False) -> re.Pattern[str]:
    """What :func:`escape_controls` escapes: any unsafe character (``multiline``: but LF, tab).

    Compiled on first use (~1 ms each, a pattern of many ranges): most
    commands print only ASCII, which is judged without it.
    """
    return re.compile(_char_class(_MULTI_LINE_RANGES if multiline else UNSAFE_RANGES))


@functools.cache
def _unsafe_in_json() -> re.Pattern[str]:
    # What orjson leaves raw in JSON text: it escapes C0 controls only.
    return re.compile(_char_class(UNSAFE_RANGES[1:]))


_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b", "\x00": "\\0"}


def escape_char(char: str) -> str:
    """The visible escape of one unsafe character (``\\x1b``, ``\\r``, ``\\u202e``)."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


def escape_controls(value: object, multiline: bool = False) -> str:
    """``str(value)`` with every character a terminal would act on made visible.

    ``multiline`` keeps ``\\n`` and ``\\t`` (for views that show several
    lines); everything else that is unsafe is escaped either way. Lone
    surrogates (from file names the OS could not decode) become ``\\udcXX``.
    """
    text = value if isinstance(value, str) else str(value)
    if text.isascii() and not multiline and text.isprintable():
        return text  # in ASCII only C0 controls and DEL are unprintable: exactly the unsafe ones
    pattern = unsafe_pattern(multiline)
    if text.isascii() and pattern.search(text) is None:
        return text
    text = pattern.sub(_escape_match, text)
    # Undecodable bytes in a file name arrive as lone surrogates (PEP 383);
    # printing one would raise UnicodeEncodeError, so show it as an escape.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_path(path: str | os.PathLike[str]) -> str:
    """A file name as it may be printed: controls escaped, undecodable bytes shown."""
    return escape_controls(os.fspath(path))


def _json_escape_match(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells an astral character as a UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_json(data: bytes) -> bytes:
    """JSON text (UTF-8, as orjson writes it) with every unsafe character ``\\u``-escaped.

    orjson escapes C0 controls but writes DEL, C1 controls and the invisible
    formatting characters raw, and ``jq -r`` would print them raw too. Outside
    strings JSON text is plain ASCII, so the escapes land only inside strings:
    the result is valid JSON that parses to the same value.
    """
    if data.isascii() and b"\x7f" not in data:
        return data
    text = data.decode("utf-8")
    unsafe = _unsafe_in_json()
    if unsafe.search(text) is None:
        return data
    return unsafe.sub(_json_escape_match, text).encode("utf-8")
