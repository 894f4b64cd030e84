"""Undoing an upstream's ``Content-Encoding`` within a byte budget, keeping what decoded.

The proxy asks for ``identity``; an upstream that compresses anyway is
decoded here, piece by piece as the body arrives, never more than
:data:`STEP` bytes of output at a time. Two budgets bound what a few
compressed bytes can make the proxy produce (a gzip bomb): the output may
not grow past ``max_ratio`` times the input so far (after a first
:data:`RATIO_GRACE` bytes), nor past ``max_output`` in all. Past either,
or when the compressed data is damaged, :class:`DecodeStopped` says so —
and everything decoded before it has already been handed out.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Final

__all__ = ["DECODABLE", "RATIO_GRACE", "STEP", "BodyDecoder", "DecodeStopped", "decoder_for"]

#: Output handed out at a time.
STEP: Final = 64 * 1024
#: Output allowed before the ratio is checked (a small body may compress well).
RATIO_GRACE: Final = 1024 * 1024
#: Content-Encoding -> zlib window bits (``deflate`` is tried as zlib, else raw).
DECODABLE: Final = {"gzip": 31, "x-gzip": 31, "deflate": 15}


class DecodeStopped(Exception):
    """Decoding stopped (a budget, or damaged data); the message says where and why."""


class BodyDecoder:
    """One compressed body, decoded incrementally (one encoding; see :func:`decoder_for`)."""

    def __init__(self, encoding: str, *, max_ratio: int, max_output: int) -> None:
        self.encoding = encoding
        self.max_ratio = max_ratio
        self.max_output = max_output
        self.consumed = 0
        self.produced = 0
        self._wbits = DECODABLE[encoding]
        self._zlib: zlib._Decompress | None = None

    def _decoder(self, first: bytes) -> zlib._Decompress:
        if self._zlib is None:
            wbits = self._wbits
            if self.encoding == "deflate" and first[:1] not in (b"\x78", b"\x58", b"\x08", b"\x68"):
                wbits = -15  # raw deflate, which some servers send for "deflate"
            self._zlib = zlib.decompressobj(wbits)
        return self._zlib

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of ``data``, in pieces; raises :class:`DecodeStopped`."""
        if not data:
            return
        decoder = self._decoder(data)
        self.consumed += len(data)
        for out in _inflate(decoder, data):
            if isinstance(out, zlib.error):
                raise DecodeStopped(
                    f"the {self.encoding} body is damaged after {self.produced} decoded bytes "
                    f"({out}); what decoded before it was kept"
                )
            self._check(len(out))
            yield out

    def finish(self) -> None:
        """The body ended: raise :class:`DecodeStopped` if the compressed data was cut short."""
        if self._zlib is not None and not self._zlib.eof:
            raise DecodeStopped(
                f"the {self.encoding} body ended before its compressed data did, after "
                f"{self.produced} decoded bytes; what decoded was kept"
            )

    def _check(self, count: int) -> None:
        self.produced += count
        if self.produced > self.max_output:
            raise DecodeStopped(
                f"the {self.encoding} body decodes to more than {self.max_output} bytes; "
                f"the proxy stopped after {self.produced - count} decoded bytes"
            )
        if self.produced > RATIO_GRACE and self.produced > self.consumed * self.max_ratio:
            raise DecodeStopped(
                f"the {self.encoding} body expands more than {self.max_ratio} times "
                f"({self.consumed} compressed bytes, {self.produced} decoded); the proxy "
                f"stopped after {self.produced - count} decoded bytes"
            )


def _inflate(decoder: zlib._Decompress, data: bytes) -> Iterator[bytes | zlib.error]:
    """What ``data`` decodes to, :data:`STEP` bytes at a time, then the error if it is
    damaged — after *every* byte that decoded before the damage: the piece the error
    is in is fed again from a copy of the decoder, a byte at a time."""
    pending = data
    while pending and not decoder.eof:
        saved = decoder.copy()
        try:
            out = decoder.decompress(pending, STEP)
        except zlib.error:
            decoder = saved
            for index in range(len(pending)):
                try:
                    piece = decoder.decompress(pending[index : index + 1])
                except zlib.error as exc:
                    yield exc
                    return
                if piece:
                    yield piece
            return
        pending = decoder.unconsumed_tail
        if out:
            yield out


def decoder_for(content_encoding: str, *, max_ratio: int, max_output: int) -> BodyDecoder | None:
    """The decoder for a ``Content-Encoding`` value, None for identity; raises ValueError
    for one the proxy does not decode (several, or not gzip/deflate)."""
    encodings = [e.strip().lower() for e in content_encoding.split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    if not encodings:
        return None
    if len(encodings) > 1 or encodings[0] not in DECODABLE:
        raise ValueError(f"content-encoding {content_encoding!r} is not decoded by the proxy")
    return BodyDecoder(encodings[0], max_ratio=max_ratio, max_output=max_output)
