"""Scrubbing known secrets out of a byte stream, in every spelling a server may echo them in.

A server that echoes the API key — in an error body, a debug header, SSE
data or a comment — may do so in many spellings. :class:`SecretScrubber`
matches the *exact* secrets in use (never a guess such as "looks like a
key") in each of these forms and replaces the whole match by a placeholder:

* **raw**, **case-folded** (each letter in either case: an echo in upper
  or lower case, or a server that normalizes case), **URL-encoded**
  (``%XX`` in either case, ``+`` for a space) and **JSON-escaped**
  (``\\uXXXX`` in either case, surrogate pairs, ``\\/`` and the short
  escapes; JSON text inside a JSON string, whose backslashes are escaped
  again, too) — one matcher per secret accepts *each character* in any
  of these spellings, so a JSON encoder that escapes some characters and not
  others is caught, and so is any mixture;
* **base64**, standard and URL-safe, at each of the three alignments the
  secret can have inside a longer encoded text (``Basic`` credentials, a
  token that embeds the key), of the secret as it is and upper- and
  lower-cased: only the characters that depend on the secret alone are
  matched, and a line break (``\n`` or ``\r\n``, as MIME writes every 76
  characters) may stand between any two of them.

Streaming (:meth:`SecretScrubber.feed`): a secret may be split across two
chunks, so the end of each chunk that could be the beginning of a match is
held back — never more than the longest encoded form minus one byte — and
released with the next chunk or by :meth:`SecretScrubber.flush`. Only bytes
that could still belong to a match are held: a chunk ending in the blank line
of an SSE event (no form of a secret holds two line breaks in a row) is released at
once, whole, so a capture's chunk timing stays what was received.

Secrets shorter than :data:`MIN_SECRET` characters are not scrubbed (they
would match ordinary words); they are listed in
:attr:`SecretScrubber.refused` for the caller to warn about.
"""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

from ahocorasick_rs import BytesAhoCorasick

__all__ = ["MIN_SECRET", "PLACEHOLDER", "SecretScrubber", "encoded_forms", "scrub_strings"]

#: Shorter secrets are refused: scrubbing them would hit ordinary text.
MIN_SECRET: Final = 8
PLACEHOLDER: Final = b"[redacted]"

_HEX: Final = "0123456789abcdef"
#: A JSON escape's backslash, escaped again up to this many levels deep (1, 2, 4, 8 backslashes).
_MAX_BACKSLASHES: Final = 8
_BACKSLASHES: Final = r"(?:\\{8}|\\{4}|\\{2}|\\)"
#: JSON's two-character escapes.
_JSON_SHORT: Final = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f",
                      "\n": "\\n", "\r": "\\r", "\t": "\\t"}  # fmt: skip


def _hex_digit(digit: str) -> tuple[str, set[int]]:
    """A regex for one hex digit in either case, and the bytes it can match."""
    if digit.isdigit():
        return digit, {ord(digit)}
    return f"[{digit}{digit.upper()}]", {ord(digit), ord(digit.upper())}


def _hex_run(value: int, width: int) -> tuple[str, set[int], int]:
    text = f"{value:0{width}x}"
    parts = [_hex_digit(d) for d in text]
    alphabet: set[int] = set()
    for _, chars in parts:
        alphabet |= chars
    return "".join(p for p, _ in parts), alphabet, width


def _char_forms(char: str) -> tuple[str, set[int], set[int], int]:
    """One character of a secret in every spelling.

    Returns the regex, the bytes a match can contain, the bytes a match can
    start with, and the longest spelling's length in bytes.
    """
    raw = char.encode("utf-8", "surrogatepass")
    options = [re.escape(raw.decode("latin-1"))]
    alphabet = set(raw)
    starts = {raw[0]}
    longest = len(raw)
    # Case-folded: an ASCII letter in the other case (other scripts are left as they are).
    if char.isascii() and char.isalpha():
        other = char.swapcase().encode()
        options.append(re.escape(other.decode("latin-1")))
        alphabet |= set(other)
        starts.add(other[0])
    # URL encoding: every UTF-8 byte as %XX; a space may also be '+'.
    url = ""
    for byte in raw:
        pattern, chars, _ = _hex_run(byte, 2)
        url += "%" + pattern
        alphabet |= chars
    options.append(url)
    alphabet.add(ord("%"))
    starts.add(ord("%"))
    longest = max(longest, 3 * len(raw))
    if char == " ":
        options.append(re.escape("+"))
        alphabet.add(ord("+"))
        starts.add(ord("+"))
    # JSON: \uXXXX (a surrogate pair above the BMP), and the short escapes.
    code = ord(char)
    units = [code] if code < 0x10000 else [0xD800 + ((code - 0x10000) >> 10),
                                           0xDC00 + ((code - 0x10000) & 0x3FF)]  # fmt: skip
    # The backslash may itself be escaped (JSON text inside a JSON string).
    json = ""
    for unit in units:
        pattern, chars, _ = _hex_run(unit, 4)
        json += _BACKSLASHES + "u" + pattern
        alphabet |= chars
    options.append(json)
    alphabet |= {ord("\\"), ord("u")}
    starts.add(ord("\\"))
    longest = max(longest, (_MAX_BACKSLASHES + 5) * len(units))
    if char in _JSON_SHORT:
        options.append(_BACKSLASHES + re.escape(_JSON_SHORT[char][1]))
        alphabet |= set(_JSON_SHORT[char].encode())
        longest = max(longest, _MAX_BACKSLASHES + 1)
    return "(?:" + "|".join(options) + ")", alphabet, starts, longest


def _base64_forms(secret: bytes) -> list[bytes]:
    """The base64 text (standard and URL-safe) that only the secret's bytes decide.

    Inside a longer encoded text the secret starts at byte offset 0, 1 or 2
    of a 3-byte group; the characters that mix in neighbouring bytes are left
    out, the rest must match exactly. The secret upper- and lower-cased is
    encoded too (``Basic`` credentials built from a case-folded name).
    """
    forms: list[bytes] = []
    for variant in dict.fromkeys((secret, secret.upper(), secret.lower())):
        for align, skip in ((0, 0), (1, 2), (2, 3)):
            encoded = base64.b64encode(b"\0" * align + variant)
            whole = (align + len(variant)) * 8 // 6  # characters made of known bits only
            fragment = encoded[skip:whole]
            forms.append(fragment)
            forms.append(fragment.translate(bytes.maketrans(b"+/", b"-_")))
    return list(dict.fromkeys(f for f in forms if f))


#: A MIME line break (RFC 2045 wraps base64 every 76 characters): allowed
#: between any two characters of a base64 spelling, as it is or JSON-escaped
#: (``\r\n`` inside a JSON string, escaped once more inside JSON in JSON).
_MIME_BREAK: Final = r"(?:\r?\n|(?:\\{1,2}r)?\\{1,2}n)?"


#: The bytes a line break of :data:`_MIME_BREAK` is made of, and its longest spelling.
_BREAK_BYTES: Final = frozenset(b"\r\n\\rn")
_LONGEST_BREAK: Final = len("\\\\r\\\\n")
#: Two line breaks in a row (an SSE event's end): no spelling holds them.
_BLANK_LINES: Final = (b"\n\n", b"\n\r\n")


def _wrapped(form: bytes) -> str:
    """A regex for base64 text ``form`` with a line break allowed between characters."""
    return _MIME_BREAK.join(re.escape(chr(byte)) for byte in form)


def encoded_forms(secret: str) -> tuple[str, set[int], set[int], int]:
    """The regex matching every spelling of ``secret``, its alphabet, start bytes and
    longest match length (see the module docstring)."""
    parts = [_char_forms(char) for char in secret]
    text_pattern = "".join(p for p, _, _, _ in parts)
    alphabet: set[int] = set()
    for _, chars, _, _ in parts:
        alphabet |= chars
    starts = set(parts[0][2])
    longest = sum(n for _, _, _, n in parts)
    patterns = [text_pattern]
    for form in _base64_forms(secret.encode("utf-8", "surrogatepass")):
        patterns.append(_wrapped(form))
        alphabet |= set(form) | _BREAK_BYTES
        starts.add(form[0])
        # A break may stand between any two characters: at most 6 bytes each.
        longest = max(longest, len(form) + _LONGEST_BREAK * (len(form) - 1))
    return "|".join(patterns), alphabet, starts, longest


def _first_spellings(char: str) -> list[bytes]:
    """How a spelling of ``char`` (:func:`_char_forms`) begins, lower-cased.

    Its raw bytes; ``%`` and ``\\`` (URL and JSON escapes, looked at by
    :func:`_anchors` in full); ``+`` for a space.
    """
    heads = [char.encode("utf-8", "surrogatepass").lower(), b"%", b"\\"]
    if char == " ":
        heads.append(b"+")
    return heads


def _anchors(secret: str) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Literals one of which every match of ``secret``'s spellings starts with.

    ``(folded, escaped, cased)``: ``folded`` are looked for in the lower-cased
    text (the first character as it is, followed by how the second begins;
    the first character URL-escaped); ``escaped`` too, but the match may
    start at the escaped backslashes before them (JSON escapes); ``cased``
    in the text as it is (the base64 forms' first character, then the
    second or a line break).
    """
    raw = secret.encode("utf-8", "surrogatepass")
    first = secret[0].encode("utf-8", "surrogatepass")
    folded = [first.lower() + head for head in _first_spellings(secret[1])]
    folded.append(b"".join(b"%%%02x" % byte for byte in first)[:3])
    if secret[0] == " ":
        folded.append(b"+")
    code = ord(secret[0])
    unit = code if code < 0x10000 else 0xD800 + ((code - 0x10000) >> 10)
    escaped = [b"\\u%04x" % unit]
    if secret[0] in _JSON_SHORT:
        escaped.append(_JSON_SHORT[secret[0]].encode())
    cased = [
        form[:1] + follow
        for form in _base64_forms(raw)
        for follow in (form[1:2], b"\r", b"\n", b"\\")
    ]
    return folded, escaped, cased


class _Starts:
    """Where a match of any secret's spellings may start in a buffer: a superset, sorted.

    The combined pattern has no literal prefix (each character has several
    spellings), so the regex engine tries it at every byte; these literals,
    found in one C pass, give it the only places worth a try.
    """

    __slots__ = ("cased", "escaped", "folded", "n_folded")

    def __init__(self, secrets: list[str]) -> None:
        folded: set[bytes] = set()
        escaped: set[bytes] = set()
        cased: set[bytes] = set()
        for secret in secrets:
            f, e, c = _anchors(secret)
            folded.update(f)
            escaped.update(e)
            cased.update(c)
        folded_list = sorted(folded) + sorted(escaped - folded)
        self.n_folded = len(folded)
        self.folded = BytesAhoCorasick(folded_list)
        self.escaped = frozenset(range(self.n_folded, len(folded_list)))
        self.cased = BytesAhoCorasick(sorted(cased))

    def positions(self, buffer: bytes) -> list[int]:
        """Every place a match may start in ``buffer``, sorted."""
        places: set[int] = set()
        low = buffer.lower()
        for index, start, _ in self.folded.find_matches_as_indexes(low, overlapping=True):
            places.add(start)
            if index in self.escaped:
                # An escape's backslash may itself be escaped, up to 8 in all.
                back = start
                while back > 0 and start - back < _MAX_BACKSLASHES - 1 and low[back - 1] == 92:
                    back -= 1
                    places.add(back)
        for _, start, _ in self.cased.find_matches_as_indexes(buffer, overlapping=True):
            places.add(start)
        return sorted(places)


class SecretScrubber:
    """Replaces every encoded form of the given secrets in a byte stream."""

    def __init__(self, secrets: Iterable[str], placeholder: bytes = PLACEHOLDER) -> None:
        kept: list[str] = []
        refused: list[str] = []
        for secret in dict.fromkeys(s for s in secrets if s):
            (kept if len(secret) >= MIN_SECRET else refused).append(secret)
        self.placeholder = placeholder
        #: Secrets too short to scrub safely (the caller should warn about them).
        self.refused: tuple[str, ...] = tuple(refused)
        self.secrets: tuple[str, ...] = tuple(kept)
        self._tail = b""
        self._hold = 0
        self._pattern: re.Pattern[bytes] | None = None
        self._places: _Starts | None = None
        if not kept:
            return
        # Longest secrets first: one that contains another is replaced whole.
        kept.sort(key=len, reverse=True)
        alphabet: set[int] = set()
        starts: set[int] = set()
        patterns = []
        for secret in kept:
            pattern, chars, first, longest = encoded_forms(secret)
            patterns.append(pattern)
            alphabet |= chars
            starts |= first
            self._hold = max(self._hold, longest - 1)
        # Latin-1 maps each byte to one char, so the str patterns work on bytes.
        self._pattern = re.compile("|".join(patterns).encode("latin-1"), re.DOTALL)
        self._places = _Starts(kept)
        # Bytes that can occur in a match -> b"a", all others -> b"\n": then the
        # last b"\n" is the last byte no match can contain.
        self._inside = bytes(ord("a") if b in alphabet else ord("\n") for b in range(256))
        self._starts = frozenset(starts)

    @property
    def active(self) -> bool:
        """Whether there is anything to scrub."""
        return self._pattern is not None

    @property
    def holding(self) -> int:
        """Bytes held back, waiting for the next chunk."""
        return len(self._tail)

    @property
    def max_hold(self) -> int:
        """The most bytes :meth:`feed` ever holds back."""
        return self._hold

    def scrub(self, data: bytes) -> bytes:
        """``data`` with every form of every secret replaced (a whole buffer; stateless)."""
        if self._pattern is None:
            return data
        if b"\\" in self.placeholder:  # (a template to ``re.sub``: kept as it was read)
            return self._pattern.sub(self.placeholder, data)
        out: list[bytes] = []
        position = 0
        for match in self._matches(data, len(data)):
            out.append(data[position : match.start()])
            out.append(self.placeholder)
            position = match.end()
        if not out:
            return data
        out.append(data[position:])
        return b"".join(out)

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where a form of a secret is in ``data`` (a whole buffer): ``(start, end)``, in order."""
        if self._pattern is None:
            return []
        return [m.span() for m in self._matches(data, len(data))]

    def which(self, spelled: bytes) -> str | None:
        """The secret that ``spelled`` (one of :meth:`spans`) is a form of."""
        for secret in self.secrets:
            if re.fullmatch(encoded_forms(secret)[0].encode("latin-1"), spelled, re.DOTALL):
                return secret
        return None

    def scrub_text(self, text: str) -> str:
        """:meth:`scrub` for text (header values, messages, URLs)."""
        if self._pattern is None:
            return text
        raw = text.encode("utf-8", "surrogatepass")
        return self.scrub(raw).decode("utf-8", "surrogatepass")

    def fresh(self) -> SecretScrubber:
        """A scrubber for the same secrets with nothing held back, sharing the compiled pattern.

        Compiling costs about a millisecond (ten for a secret not seen before);
        a proxy that sees the same key on every request copies one instead.
        """
        twin = copy.copy(self)
        twin._tail = b""
        return twin

    def scrub_value(self, value: Any) -> Any:
        """A JSON-like structure (a request, an exchange) with every string scrubbed, keys too."""
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, dict):
            return {self.scrub_text(str(k)): self.scrub_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub_value(v) for v in value]
        return value

    def feed(self, data: bytes) -> bytes:
        """Scrub the next chunk of a stream; the end may be held back for the next call."""
        if self._pattern is None:
            return data
        buffer = self._tail + data if self._tail else data
        safe = self._safe_end(buffer)
        out: list[bytes] = []
        position = 0
        for match in self._matches(buffer, safe):
            out.append(buffer[position : match.start()])
            out.append(self.placeholder)
            position = match.end()
        end = max(position, safe)
        out.append(buffer[position:end])
        self._tail = buffer[end:]
        return b"".join(out)

    def _matches(self, buffer: bytes, before: int) -> Iterator[re.Match[bytes]]:
        """``self._pattern.finditer(buffer)``'s matches that start before ``before``.

        The pattern is tried only where :class:`_Starts` says a match may
        start: at each, the match the engine's own scan would find there (no
        spelling matches an empty string).
        """
        assert self._pattern is not None and self._places is not None
        cursor = 0
        for at in self._places.positions(buffer):
            if at >= before:
                return
            if at >= cursor:
                match = self._pattern.match(buffer, at)
                if match is not None:
                    yield match
                    cursor = match.end()

    def flush(self) -> bytes:
        """The end of the stream: whatever is still held back, scrubbed."""
        rest, self._tail = self._tail, b""
        return self.scrub(rest)

    def _safe_end(self, buffer: bytes) -> int:
        """Where the bytes that could begin an unfinished match start.

        A match that starts earlier than ``len - hold`` lies wholly inside the
        buffer, so only the last ``hold`` bytes need a look: from the last byte
        no match can contain, the first byte a match can start with.
        """
        if self._hold == 0:
            return len(buffer)
        window_start = max(0, len(buffer) - self._hold)
        raw = buffer[window_start:]
        window = raw.translate(self._inside)
        # A line break may be inside a match (MIME-wrapped base64); two in a row are not.
        outside = window.rfind(b"\n")
        for blank in _BLANK_LINES:
            at = raw.rfind(blank)
            if at >= 0:
                outside = max(outside, at + len(blank) - 1)
        for index in range(outside + 1, len(window)):
            if buffer[window_start + index] in self._starts:
                return window_start + index
        return len(buffer)


def scrub_strings(value: Any, clean: Callable[[str], str]) -> Any:
    """A JSON-like value with ``clean`` applied to every string in it, keys too."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): scrub_strings(v, clean) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_strings(v, clean) for v in value]
    return value
