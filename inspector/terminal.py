"""Untrusted text made safe to print: the one place control characters are escaped.

Provider bytes, capture files, file names, HTTP headers and server error
messages all come from outside. Before any of it reaches a terminal — the
CLI's stdout/stderr, the replay server's log, the TUI — every character a
terminal would *act on* instead of print is replaced by a visible escape:
C0 controls (ESC starts an ANSI sequence, CR moves the cursor), DEL, C1
controls (``\\x9b`` is a one-byte CSI on some terminals), and the invisible
formatting characters that reorder or hide text (bidi overrides and
isolates, zero-width characters, line/paragraph separators, BOM).

The escapes (``\\x1b``, ``\\r``, ``\\u202e``) are themselves printable, so
escaped text can be printed, logged or shown in a widget as it is. A
backslash already in the text is left alone: the goal is that nothing acts
on the terminal, not that the escaping can be reversed.
"""

from __future__ import annotations

import os
import re
from typing import Final

__all__ = ["UNSAFE_MULTI_LINE", "UNSAFE_ONE_LINE", "escape_char", "escape_controls", "safe_path"]

# C0 controls, DEL, C1 controls, zero-width and bidi formatting characters,
# line/paragraph separators, BOM and interlinear annotation characters.
_INVISIBLE = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb"
#: Every character that is escaped when text must stay on one line.
UNSAFE_ONE_LINE: Final = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_INVISIBLE}]")
#: The same, but line breaks and tabs are kept (multi-line views).
UNSAFE_MULTI_LINE: Final = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_INVISIBLE}]")

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b", "\x00": "\\0"}


def escape_char(char: str) -> str:
    """The visible escape of one unsafe character (``\\x1b``, ``\\r``, ``\\u202e``)."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


def escape_controls(value: object, multiline: bool = False) -> str:
    """``str(value)`` with every character a terminal would act on made visible.

    ``multiline`` keeps ``\\n`` and ``\\t`` (for views that show several
    lines); everything else that is unsafe is escaped either way. Lone
    surrogates (from file names the OS could not decode) become ``\\udcXX``.
    """
    text = value if isinstance(value, str) else str(value)
    pattern = UNSAFE_MULTI_LINE if multiline else UNSAFE_ONE_LINE
    if text.isascii() and pattern.search(text) is None:
        return text
    text = pattern.sub(_escape_match, text)
    # Undecodable bytes in a file name arrive as lone surrogates (PEP 383);
    # printing one would raise UnicodeEncodeError, so show it as an escape.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_path(path: str | os.PathLike[str]) -> str:
    """A file name as it may be printed: controls escaped, undecodable bytes shown."""
    return escape_controls(os.fspath(path))
