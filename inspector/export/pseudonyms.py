"""Consistent stand-ins for provider ids, and placeholders for signatures.

A pseudonym keeps what makes an id look real and link up — its prefix
(``chatcmpl-``, ``msg_``, ``toolu_``…), its length, its separators and the
kind of each character (hex stays hex; otherwise upper / lower / digit) —
and replaces the rest from a keyed hash. The same id always gets the same
pseudonym within one export, so a ``call_id`` still pairs with its tool
result, and two ids never share one. The key is derived from the whole
original capture: exporting it again gives identical files, and nobody can
confirm a guessed id without having the original.

Every character keeps its UTF-8 width, so byte offsets in the stream survive.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.digest import blake2b  # hashlib's BLAKE2b, without loading OpenSSL
from ..redact.shapes import find_secrets
from .mask import mask_char

__all__ = ["SIGNATURE_FILL", "Pseudonymizer", "signature_placeholder"]

_PREFIX = re.compile(r"[A-Za-z]{1,12}[_\-]")
# (spelled out, not taken from the string module: its import compiles string.Template's
# pattern, most of a millisecond of every export's start-up)
_DIGITS: Final = "0123456789"
_UPPER: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER: Final = "abcdefghijklmnopqrstuvwxyz"
_LOWER_HEX: Final = frozenset("0123456789abcdef")
_UPPER_HEX: Final = frozenset("0123456789ABCDEF")
# What a signature's letters and digits become; its other characters
# (``+/=_-``) stay, so base64 stays well-formed and the length is the same.
SIGNATURE_FILL: Final = "SIGNATUREREMOVED"


def _alphabet(ch: str, mode: str) -> str:
    if mode == "hex":
        return "0123456789abcdef"
    if mode == "HEX":
        return "0123456789ABCDEF"
    if ch.isdigit():
        return _DIGITS
    return _UPPER if ch.isupper() else _LOWER


class Pseudonymizer:
    """Maps ids to pseudonyms, one consistent table per export."""

    def __init__(self, key: bytes) -> None:
        self._key = blake2b(key, digest_size=32).digest()
        self._forward: dict[str, str] = {}
        self._taken: set[str] = set()

    def __call__(self, value: str) -> str:
        """The pseudonym of ``value`` (the same one every time)."""
        known = self._forward.get(value)
        if known is not None:
            return known
        prefix = ""
        m = _PREFIX.match(value)
        if m is not None and sum(c.isalnum() for c in value[m.end() :]) >= 4:
            prefix = m.group()
        body = value[len(prefix) :]
        alnum = {c for c in body if c.isascii() and c.isalnum()}
        mode = "class"
        if alnum and alnum <= _LOWER_HEX and alnum - set(_DIGITS):
            mode = "hex"
        elif alnum and alnum <= _UPPER_HEX and alnum - set(_DIGITS):
            mode = "HEX"
        result = value
        for attempt in range(64):
            result = prefix + self._draw(value, body, mode, attempt)
            # A pseudonym must not look like a secret (``sk-…`` keeps its prefix):
            # the leak check would rightly refuse it.
            if result != value and result not in self._taken and not find_secrets(result):
                break
        self._forward[value] = result
        self._taken.add(result)
        return result

    def _draw(self, value: str, body: str, mode: str, attempt: int) -> str:
        stream = self._keystream(value, attempt, len(body))
        out = []
        for ch, byte in zip(body, stream, strict=False):
            if ch.isascii() and ch.isalnum():
                alphabet = _alphabet(ch, mode)
                out.append(alphabet[byte % len(alphabet)])
            elif ch.isascii():
                out.append(ch)
            else:
                out.append(mask_char(ch))  # ids are ASCII; anything else is hidden
        return "".join(out)

    def _keystream(self, value: str, attempt: int, size: int) -> bytes:
        out = bytearray()
        counter = 0
        while len(out) < size:
            h = blake2b(key=self._key, digest_size=64)
            h.update(f"{attempt}:{counter}:".encode())
            h.update(value.encode("utf-8", "surrogatepass"))
            out += h.digest()
            counter += 1
        return bytes(out)

    @property
    def count(self) -> int:
        """How many distinct ids were pseudonymized."""
        return len(self._forward)


def signature_placeholder(value: str) -> str:
    """A same-length stand-in for a signature or an encrypted blob."""
    out = []
    k = 0
    for ch in value:
        if ch.isascii() and ch.isalnum():
            out.append(SIGNATURE_FILL[k % len(SIGNATURE_FILL)])
            k += 1
        elif ch.isascii():
            out.append(ch)
        else:
            out.append(mask_char(ch))
    return "".join(out)
