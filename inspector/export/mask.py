"""``--text mask``: model text masked character for character.

Letters become ``x``, digits ``0``; whitespace, punctuation and symbols stay.
*Length* here means bytes on the wire, and everything else follows from it: a
letter is replaced by an ``x`` **of the same UTF-8 width** (``x`` · ``х`` ·
``ｘ`` · ``𝐱`` for 1 · 2 · 3 · 4 bytes), a digit by a zero of the same width
(``0`` · ``٠`` · ``０`` · ``𝟎``). So a masked text has the same number of
characters, the same UTF-8 length and the same UTF-16 length as the
original; every byte offset in the stream is unchanged; and a chunk that
split ``П`` after its first byte splits ``х`` after its first byte. An
undecodable byte is not a character and is kept.

Tool arguments are JSON text arriving in fragments. :func:`mask_json_text`
reads the fragments joined, so a string value split across two deltas is
still known to be a value: only the characters of string *values* are
masked — keys, numbers, ``true``/``false``/``null`` and all syntax stay, so
every document that parsed still parses, to the same keys. A ``\\uXXXX``
escape inside a value is rewritten to the escape of the masked character
(same case of hex digits), so it keeps its six characters.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["DIGIT_BY_WIDTH", "LETTER_BY_WIDTH", "mask_char", "mask_json_text", "mask_number"]

# The replacement for a letter / a digit, by UTF-8 width of the original.
LETTER_BY_WIDTH: Final = {1: "x", 2: "\u0445", 3: "\uff58", 4: "\U0001d431"}
DIGIT_BY_WIDTH: Final = {1: "0", 2: "\u0660", 3: "\uff10", 4: "\U0001d7ce"}

_HEX = frozenset("0123456789abcdefABCDEF")
# A bare token outside strings: a number or true / false / null.
_BARE = re.compile(r"[A-Za-z0-9+\-.]+")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?|-")
_LITERALS: Final = ("true", "false", "null")


def _width(o: int) -> int:
    if o < 0x80:
        return 1
    if o < 0x800:
        return 2
    return 3 if o < 0x10000 else 4


def mask_char(ch: str) -> str:
    """The masked form of one character (itself when it is not a letter or digit)."""
    o = ord(ch)
    if o < 0x80:
        if ch.isalpha():
            return "x"
        return "0" if ch.isdigit() else ch
    if 0xD800 <= o <= 0xDFFF:
        return ch  # a lone surrogate: an undecodable byte or half a pair
    category = unicodedata.category(ch)[0]
    if category in ("L", "M"):  # a combining mark is part of a letter
        return LETTER_BY_WIDTH[_width(o)]
    if category == "N":
        return DIGIT_BY_WIDTH[_width(o)]
    return ch


def mask_number(token: bytes) -> bytes:
    """A JSON number with its digits hidden, still a valid number of the same length.

    The integer part becomes ``1`` followed by zeros (``0`` for one digit)
    so no leading zero appears; other digits become ``0``.
    """
    out = bytearray(token)
    start = 1 if out[:1] == b"-" else 0
    end = start
    while end < len(out) and 0x30 <= out[end] <= 0x39:
        end += 1
    for i in range(start, len(out)):
        if 0x30 <= out[i] <= 0x39:
            out[i] = 0x30
    if end - start > 1:
        out[start] = 0x31
    return bytes(out)


def _hex_of(code: int, upper: bool) -> str:
    return f"{code:04X}" if upper else f"{code:04x}"


class _JsonTextMasker:
    """One pass over joined JSON text; collects the characters to replace."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: dict[int, str] = {}
        self.stack: list[str] = []
        self.expect_key = False
        self.broken_at: int | None = None

    def run(self) -> dict[int, str]:
        text = self.text
        n = len(text)
        i = 0
        while i < n and self.broken_at is None:
            ch = text[i]
            if ch in " \t\r\n":
                i += 1
            elif ch == '"':
                i = self._string(i + 1, is_key=self.expect_key)
                self.expect_key = False
            elif ch in "{[":
                self.stack.append(ch)
                self.expect_key = ch == "{"
                i += 1
            elif ch in "}]":
                if not self.stack or self.stack.pop() != ("{" if ch == "}" else "["):
                    self.broken_at = i
                self.expect_key = False
                i += 1
            elif ch == ",":
                self.expect_key = bool(self.stack) and self.stack[-1] == "{"
                i += 1
            elif ch == ":":
                self.expect_key = False
                i += 1
            else:
                i = self._bare(i)
        if self.broken_at is not None:
            # Past a syntax error nothing is known to be syntax: mask like text.
            for j in range(self.broken_at, n):
                masked = mask_char(text[j])
                if masked != text[j]:
                    self.out[j] = masked
        return self.out

    def _bare(self, i: int) -> int:
        m = _BARE.match(self.text, i)
        if m is None:
            self.broken_at = i
            return i
        word = m.group()
        end = m.end()
        number = _NUMBER.fullmatch(word)
        at_end = end == len(self.text)
        if number or word in _LITERALS or (at_end and any(w.startswith(word) for w in _LITERALS)):
            return end
        self.broken_at = i
        return i

    def _string(self, i: int, is_key: bool) -> int:
        """Scan a string's content from ``i``; return the index after its closing quote."""
        text = self.text
        n = len(text)
        while i < n:
            ch = text[i]
            if ch == '"':
                return i + 1
            if ch != "\\":
                if not is_key:
                    masked = mask_char(ch)
                    if masked != ch:
                        self.out[i] = masked
                i += 1
                continue
            if i + 1 >= n:
                return n
            if text[i + 1] != "u":
                i += 2  # a short escape: \" \\ \n ... is never a letter
                continue
            i = self._unicode_escape(i, is_key)
        return n

    def _unicode_escape(self, i: int, is_key: bool) -> int:
        """``\\uXXXX`` at ``i`` (possibly the first half of a pair); returns the next index."""
        text = self.text
        digits = text[i + 2 : i + 6]
        if len(digits) < 4 or not set(digits) <= _HEX:
            return i + 2  # cut short or malformed: leave it alone
        code = int(digits, 16)
        upper = any(c in "ABCDEF" for c in digits)
        low_digits = text[i + 8 : i + 12] if text[i + 6 : i + 8] == "\\u" else ""
        if 0xD800 <= code <= 0xDBFF and len(low_digits) == 4 and set(low_digits) <= _HEX:
            low = int(low_digits, 16)
            if 0xDC00 <= low <= 0xDFFF:
                if not is_key:
                    ch = chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                    masked = mask_char(ch)
                    if masked != ch:
                        o = ord(masked) - 0x10000
                        self._put(i + 2, _hex_of(0xD800 + (o >> 10), upper))
                        self._put(i + 8, _hex_of(0xDC00 + (o & 0x3FF), upper))
                return i + 12
        if not is_key:
            ch = chr(code)
            masked = mask_char(ch)
            if masked != ch:
                self._put(i + 2, _hex_of(ord(masked), upper))
        return i + 6

    def _put(self, at: int, digits: str) -> None:
        for k, digit in enumerate(digits):
            if self.text[at + k] != digit:
                self.out[at + k] = digit


def mask_json_text(text: str) -> dict[int, str]:
    """Which characters of JSON text (maybe cut short) to replace, and by what.

    Returns ``{index: new character}``; only string values are masked. After
    a syntax error the rest is masked like plain text.
    """
    return _JsonTextMasker(text).run()
