"""Where the strings are in a JSON document, byte for byte.

The rewriter must change text *inside* JSON strings and never the JSON
syntax around it, so it needs two things a JSON parser does not give:

* :func:`lex` — the byte span and the key path of every string (and number)
  in one ``data:`` value. It is tolerant: a document cut short at the end of
  a stream still yields every string up to the cut (the last one marked
  unterminated), and at a syntax error it stops and says where, so the caller
  can treat the rest as free text.
* :func:`decode_units` — a string's content split into *units*: one decoded
  character each, with its width on the wire and its form (a raw UTF-8
  sequence, a short escape such as ``\\"``, a ``\\uXXXX`` escape, or a
  surrogate pair of them). Replacing a unit by a character of the same form
  and width (:func:`render_unit`) keeps every byte offset after it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final, NamedTuple

__all__ = [
    "ESC",
    "PAIR",
    "RAW",
    "UESC",
    "LexResult",
    "Token",
    "Units",
    "decode_raw",
    "decode_units",
    "lex",
    "render_unit",
    "utf8_width",
]

Path = tuple[str | int, ...]

# Unit forms.
RAW: Final = 0  # the character's own UTF-8 bytes (or one undecodable byte)
ESC: Final = 1  # a two-byte escape: \" \\ \/ \b \f \n \r \t (or a stray \x)
UESC: Final = 2  # \uXXXX
PAIR: Final = 3  # \uD8xx\uDCxx: one astral character as a surrogate pair

_WS = re.compile(rb"[ \t\r\n]*")
# A string's content up to (not including) its closing quote; unrolled so a
# long string costs one regex step per escape, not one per byte.
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_NUMBER = re.compile(rb"-?[0-9][0-9eE+\-.]*|-")
_LITERALS = (b"true", b"false", b"null")
# Kept as written (fmt: skip): an escape table, four entries a line.
_SIMPLE_ESCAPES: Final = {
    ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b",
    ord("f"): "\f", ord("n"): "\n", ord("r"): "\r", ord("t"): "\t",
}  # fmt: skip
_PIECES = re.compile(
    rb"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # surrogate pair
    rb"|\\u([0-9a-fA-F]{4})"  # one \uXXXX
    rb"|\\(.)"  # a short escape
    rb"|([^\\]+)"  # a run of raw bytes
    rb"|\\",  # a lone backslash at the very end (a cut stream)
    re.S,
)


class Token(NamedTuple):
    """A string (``kind`` ``"string"`` or ``"key"``) or a ``"number"``.

    For strings ``start``/``end`` delimit the content, quotes excluded;
    ``terminated`` is False for a string cut short by the end of the bytes.
    ``path`` is where the value sits (a key's path ends with the key itself).
    """

    kind: str
    start: int
    end: int
    path: Path
    terminated: bool = True


class LexResult:
    """The tokens of one document; ``error`` is where the syntax broke, if it did."""

    __slots__ = ("error", "tokens")

    def __init__(self, tokens: list[Token] | None = None, error: int | None = None) -> None:
        self.tokens: list[Token] = [] if tokens is None else tokens
        self.error = error

    def __repr__(self) -> str:
        return f"LexResult(tokens={self.tokens!r}, error={self.error!r})"


# Expectations of the lexer's state machine.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE = range(6)


def _decode_key(content: bytes) -> str:
    if b"\\" not in content:
        return content.decode("utf-8", "replace")
    try:
        key = json.loads(b'"' + content + b'"')
    except ValueError:
        return content.decode("utf-8", "replace")
    return key if isinstance(key, str) else ""


def lex(data: bytes) -> LexResult:
    """Tokenize ``data``: one JSON value, several in a row, or one cut short."""
    out = LexResult()
    tokens = out.tokens
    stack: list[bool] = []  # True: object, False: array
    path: list[str | int] = []
    key = ""
    expect = _VALUE
    pos = 0
    n = len(data)
    while True:
        ws = _WS.match(data, pos)
        pos = ws.end() if ws else pos
        if pos >= n:
            return out
        c = data[pos]
        if expect in (_VALUE, _VALUE_OR_CLOSE):
            if c == 0x7B:  # {
                stack.append(True)
                expect = _KEY_OR_CLOSE
                pos += 1
                continue
            if c == 0x5B:  # [
                stack.append(False)
                path.append(0)
                expect = _VALUE_OR_CLOSE
                pos += 1
                continue
            if c == 0x5D and expect == _VALUE_OR_CLOSE:  # ] of an empty array
                stack.pop()
                path.pop()
                pos += 1
            elif c == 0x22:  # "
                pos = _string(data, pos, "string", tuple(path), tokens)
            elif 0x30 <= c <= 0x39 or c == 0x2D:
                m = _NUMBER.match(data, pos)
                end = m.end() if m else pos + 1
                tokens.append(Token("number", pos, end, tuple(path)))
                pos = end
            else:
                word = next((w for w in _LITERALS if data.startswith(w, pos)), None)
                if word is None:
                    rest = data[pos:]
                    if any(w.startswith(rest) for w in _LITERALS):
                        return out  # a literal cut short by the end of the bytes
                    out.error = pos
                    return out
                pos += len(word)
            expect = _COMMA_OR_CLOSE if stack else _VALUE
            continue
        if expect in (_KEY, _KEY_OR_CLOSE):
            if c == 0x22:
                body = _STRING_BODY.match(data, pos + 1)
                end = body.end() if body else pos + 1
                key = _decode_key(data[pos + 1 : end])
                pos = _string(data, pos, "key", (*path, key), tokens)
                expect = _COLON
                continue
            if c == 0x7D and expect == _KEY_OR_CLOSE:  # } of an empty object
                stack.pop()
                pos += 1
                expect = _COMMA_OR_CLOSE if stack else _VALUE
                continue
        elif expect == _COLON:
            if c == 0x3A:
                path.append(key)
                expect = _VALUE
                pos += 1
                continue
        else:  # _COMMA_OR_CLOSE
            in_object = stack[-1]
            if c == 0x2C:  # ,
                if in_object:
                    path.pop()
                    expect = _KEY
                else:
                    last = path[-1]
                    path[-1] = (last if isinstance(last, int) else 0) + 1
                    expect = _VALUE
                pos += 1
                continue
            if c == (0x7D if in_object else 0x5D):
                path.pop()
                stack.pop()
                pos += 1
                expect = _COMMA_OR_CLOSE if stack else _VALUE
                continue
        # Not what the grammar allows here: the lexer stops, and what follows is not JSON.
        out.error = pos
        return out


def _string(data: bytes, pos: int, kind: str, path: Path, tokens: list[Token]) -> int:
    """Record the string whose opening quote is at ``pos``; return the offset after it."""
    body = _STRING_BODY.match(data, pos + 1)
    end = body.end() if body else pos + 1
    if end < len(data) and data[end] == 0x22:
        tokens.append(Token(kind, pos + 1, end, path))
        return end + 1
    # Cut short: the content runs to the end of the bytes (a trailing lone
    # backslash included — the escape it started never arrived).
    tokens.append(Token(kind, pos + 1, len(data), path, terminated=False))
    return len(data)


def utf8_width(ch: str) -> int:
    """Bytes ``ch`` takes in UTF-8 (an undecodable byte held as a lone surrogate: 1)."""
    o = ord(ch)
    if o < 0x80 or 0xDC80 <= o <= 0xDCFF:
        return 1
    if o < 0x800:
        return 2
    return 3 if o < 0x10000 else 4


@dataclass(slots=True)
class Units:
    """A JSON string's content as units: one decoded character each.

    ``chars[i]`` is the character (an astral one for a surrogate pair, an
    undecodable byte as ``\\udcXX``), ``widths[i]`` its bytes on the wire,
    ``forms[i]`` how it was written (:data:`RAW`, :data:`ESC`, :data:`UESC`,
    :data:`PAIR`) and ``upper[i]`` whether an escape used upper-case hex.
    """

    chars: str
    widths: list[int]
    forms: list[int]
    upper: list[bool]

    def __len__(self) -> int:
        return len(self.chars)


def _raw_units(raw: bytes, chars: list[str], widths: list[int]) -> None:
    text = raw.decode("utf-8", "surrogateescape")
    chars.append(text)
    if raw.isascii():
        widths.extend([1] * len(text))
    else:
        widths.extend(utf8_width(ch) for ch in text)


def decode_raw(raw: bytes) -> Units:
    """Bytes that are not JSON string content (free text): every unit is :data:`RAW`."""
    chars: list[str] = []
    widths: list[int] = []
    _raw_units(raw, chars, widths)
    text = "".join(chars)
    return Units(text, widths, [RAW] * len(text), [False] * len(text))


def decode_units(content: bytes) -> Units:
    """Split a string's content (the bytes between its quotes) into units."""
    if b"\\" not in content:
        return decode_raw(content)
    chars: list[str] = []
    widths: list[int] = []
    forms: list[int] = []
    upper: list[bool] = []
    for m in _PIECES.finditer(content):
        high, low, single, short, run = m.groups()
        if run is not None:
            before = len(widths)
            _raw_units(run, chars, widths)
            forms.extend([RAW] * (len(widths) - before))
            upper.extend([False] * (len(widths) - before))
        elif high is not None:
            hi, lo = int(high, 16), int(low, 16)
            chars.append(chr(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)))
            widths.append(12)
            forms.append(PAIR)
            upper.append(any(0x41 <= b <= 0x46 for b in high + low))
        elif single is not None:
            chars.append(chr(int(single, 16)))
            widths.append(6)
            forms.append(UESC)
            upper.append(any(0x41 <= b <= 0x46 for b in single))
        elif short is not None:
            chars.append(_SIMPLE_ESCAPES.get(short[0], short.decode("latin-1")))
            widths.append(2)
            forms.append(ESC)
            upper.append(False)
        else:  # the lone trailing backslash
            chars.append("\\")
            widths.append(1)
            forms.append(RAW)
            upper.append(False)
    return Units("".join(chars), widths, forms, upper)


def render_unit(ch: str, form: int, upper: bool) -> bytes:
    """``ch`` written in the given form; same width as the unit it replaces.

    Callers only pass a character whose UTF-8 width equals the original's for
    :data:`RAW`, a BMP character for :data:`UESC` and an astral one for
    :data:`PAIR` (the masking and pseudonym tables guarantee it).
    """
    if form == RAW:
        return ch.encode("utf-8", "surrogateescape")
    o = ord(ch)
    if form == UESC:
        text = f"\\u{o:04X}" if upper else f"\\u{o:04x}"
    else:
        o -= 0x10000
        hi, lo = 0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)
        text = f"\\u{hi:04X}\\u{lo:04X}" if upper else f"\\u{hi:04x}\\u{lo:04x}"
    return text.encode("ascii")
