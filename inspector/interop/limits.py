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
    "MAX_FILE",
    "MAX_NODES",
    "BodyError",
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

_STEP: Final = 1024 * 1024


class BodyError(ValueError):
    """A body that cannot be decoded within the bounds; the message says why."""


def b64decode_bounded(text: str | bytes, limit: int = MAX_BODY) -> bytes:
    """Standard base64 (whitespace allowed), refused before decoding if too large."""
    raw = text.encode("ascii", "replace") if isinstance(text, str) else text
    compact = b"".join(raw.split())
    if len(compact) // 4 * 3 > limit:
        raise BodyError(f"a base64 body larger than {limit // (1024 * 1024)} MiB decoded")
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BodyError(f"a body is not valid base64 ({exc})") from exc


def _inflate(data: bytes, wbits: int, name: str, limit: int) -> bytes:
    decoder = zlib.decompressobj(wbits)
    out = bytearray()
    pending = data
    try:
        while pending:
            out += decoder.decompress(pending, _STEP)
            if len(out) > limit:
                raise BodyError(
                    f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported"
                )
            pending = decoder.unconsumed_tail
            if decoder.eof:
                break
        out += decoder.flush()
    except zlib.error as exc:
        raise BodyError(f"the body is not valid {name} ({exc})") from exc
    if len(out) > limit:
        raise BodyError(f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported")
    return bytes(out)


# Content-Encoding -> zlib window bits (gzip header, zlib header or raw deflate).
_ENCODINGS: Final = {"gzip": 31, "x-gzip": 31, "deflate": 15}


def decode_content(data: bytes, encodings: list[str], limit: int = MAX_BODY) -> bytes:
    """Undo ``Content-Encoding`` (applied in order, so undone in reverse)."""
    for encoding in reversed([e.strip().lower() for e in encodings if e.strip()]):
        if encoding == "identity":
            continue
        wbits = _ENCODINGS.get(encoding)
        if wbits is None:
            raise BodyError(f"content-encoding {encoding!r} is not supported (gzip, deflate)")
        if encoding == "deflate" and data[:1] not in (b"\x78", b"\x58", b"\x08", b"\x68"):
            wbits = -15  # raw deflate, which some servers send for "deflate"
        data = _inflate(data, wbits, encoding, limit)
    if len(data) > limit:
        raise BodyError(f"a body larger than {limit // (1024 * 1024)} MiB; not imported")
    return data
