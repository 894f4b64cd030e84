"""Bounds on what an imported file can make us hold, and bounded body decoding.

Cassettes and HAR files come from outside: a body may claim to be gzip or
base64 and expand to anything. Every decoder here stops at a fixed size and
says so, instead of trying and running out of memory.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from typing import Final

__all__ = [
    "MAX_BODY",
    "MAX_DECODED_PER_FILE",
    "MAX_EXPANDED_CHARS",
    "MAX_EXPANDED_NODES",
    "MAX_FILE",
    "MAX_NODES",
    "BodyError",
    "DecodeBudget",
    "b64decode_bounded",
    "decode_content",
]

#: The largest cassette or HAR file read (it is parsed whole).
MAX_FILE: Final = 256 * 1024 * 1024
#: The largest body kept after base64 / gzip / deflate decoding.
MAX_BODY: Final = 64 * 1024 * 1024
#: The most values walked in one structured body (``parsed_body``): YAML aliases
#: can make a small file describe an exponentially large tree.
MAX_NODES: Final = 1_000_000
#: The most values a YAML document may describe with its aliases expanded, and the
#: most characters of text (scalars) it may hold once expanded (:mod:`.yamlsafe`).
MAX_EXPANDED_NODES: Final = 4_000_000
MAX_EXPANDED_CHARS: Final = MAX_FILE
#: The most decoded body bytes (gzip, deflate, base64) one file may produce in all.
MAX_DECODED_PER_FILE: Final = 512 * 1024 * 1024

_STEP: Final = 1024 * 1024


class BodyError(ValueError):
    """A body that cannot be decoded within the bounds; the message says why."""


def b64decode_bounded(
    text: str | bytes, limit: int = MAX_BODY, budget: DecodeBudget | None = None
) -> bytes:
    """Standard base64 (whitespace allowed), refused before decoding if too large."""
    raw = text.encode("ascii", "replace") if isinstance(text, str) else text
    compact = b"".join(raw.split())
    if len(compact) // 4 * 3 > limit:
        raise BodyError(f"a base64 body larger than {limit // (1024 * 1024)} MiB decoded")
    if budget is not None:
        budget.take(len(compact) // 4 * 3)
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BodyError(f"a body is not valid base64 ({exc})") from exc


class DecodeBudget:
    """Decoded body bytes one file may produce in all (aliases can repeat one body)."""

    def __init__(self, total: int = MAX_DECODED_PER_FILE) -> None:
        self.total = total
        self.used = 0

    def take(self, count: int) -> None:
        """Count ``count`` more decoded bytes; :class:`BodyError` past the total."""
        self.used += count
        if self.used > self.total:
            raise BodyError(
                f"the file's bodies decode to more than {self.total // (1024 * 1024)} MiB "
                "in all; not imported"
            )


def _inflate(data: bytes, wbits: int, name: str, limit: int, damage: list[str] | None) -> bytes:
    decoder = zlib.decompressobj(wbits)
    out = bytearray()
    pending = data
    while pending and not decoder.eof:
        saved = decoder.copy()
        try:
            out += decoder.decompress(pending, _STEP)
        except zlib.error as exc:
            if damage is None:
                raise BodyError(f"the body is not valid {name} ({exc})") from exc
            # Keep every byte that decoded before the damage: the piece it is in is
            # fed again from a copy of the decoder, a byte at a time.
            decoder = saved
            for index in range(len(pending)):
                try:
                    out += decoder.decompress(pending[index : index + 1])
                except zlib.error:
                    break
                if len(out) > limit:
                    break
            if not out:
                raise BodyError(f"the body is not valid {name} ({exc})") from exc
            damage.append(
                f"{name} damaged after {len(out)} decoded bytes ({exc}); the rest is lost"
            )
            return bytes(out[: limit + 1])
        if len(out) > limit:
            raise BodyError(
                f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported"
            )
        pending = decoder.unconsumed_tail
    if decoder.eof:
        out += decoder.flush()
    elif damage is not None:
        damage.append(f"{name} data cut short after {len(out)} decoded bytes; the rest is lost")
    if len(out) > limit:
        raise BodyError(f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported")
    return bytes(out)


# Content-Encoding -> zlib window bits (gzip header, zlib header or raw deflate).
_ENCODINGS: Final = {"gzip": 31, "x-gzip": 31, "deflate": 15}


def decode_content(
    data: bytes,
    encodings: list[str],
    limit: int = MAX_BODY,
    *,
    damage: list[str] | None = None,
    budget: DecodeBudget | None = None,
) -> bytes:
    """Undo ``Content-Encoding`` (applied in order, so undone in reverse).

    With ``damage``, compressed data that breaks off or is damaged part way
    keeps what decoded before it, and a line saying where is appended to
    ``damage``; without, it raises :class:`BodyError`. ``budget`` counts the
    decoded bytes against the whole file's.
    """
    for encoding in reversed([e.strip().lower() for e in encodings if e.strip()]):
        if encoding == "identity":
            continue
        wbits = _ENCODINGS.get(encoding)
        if wbits is None:
            raise BodyError(f"content-encoding {encoding!r} is not supported (gzip, deflate)")
        if encoding == "deflate" and data[:1] not in (b"\x78", b"\x58", b"\x08", b"\x68"):
            wbits = -15  # raw deflate, which some servers send for "deflate"
        data = _inflate(data, wbits, encoding, limit, damage)
        if budget is not None:
            budget.take(len(data))
    if len(data) > limit:
        raise BodyError(f"a body larger than {limit // (1024 * 1024)} MiB; not imported")
    return data
