"""``Content-Encoding``: undone before anything is scrubbed, recorded or shown.

A secret inside a compressed body is invisible to every matcher, so a body is
decoded first, by every boundary that records one (live, record, the proxy,
import). One table, :data:`DECODERS`, says which codings are understood:
``gzip`` / ``x-gzip`` and ``deflate`` (zlib, also raw deflate as some servers
send it), ``br`` (the ``brotli`` package) and ``zstd`` (the ``zstandard``
package); ``identity`` is nothing to undo. Codings are applied in the order
the header lists them, so they are undone in reverse (``gzip, br``: brotli
first).

A coding not in the table raises :class:`UndecodableEncoding` — never are its
bytes passed on as if they were the body: a caller refuses the body or marks
it as not recorded, and says which coding it was.

Two shapes of the same decoders: :func:`decode_body` for a whole body,
bounded (import), and :class:`StreamDecoder` for a body that arrives in
chunks (live, proxy), which also bounds how much one chunk can expand to.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Final, Protocol

__all__ = [
    "DECODERS",
    "DEFAULT_LIMIT",
    "BodyTooLarge",
    "DamagedBody",
    "EncodingError",
    "StreamDecoder",
    "UndecodableEncoding",
    "decode_body",
    "parse_encodings",
]


class EncodingError(ValueError):
    """A body that cannot be decoded; the message says why (safe to print)."""


class UndecodableEncoding(EncodingError):
    """A ``Content-Encoding`` we have no decoder for."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        known = ", ".join(sorted(DECODERS))
        super().__init__(f"content-encoding {coding!r} cannot be decoded (known: {known})")


class DamagedBody(EncodingError):
    """Bytes that do not decode as the coding the header names."""


class BodyTooLarge(EncodingError):
    """A body that expands past the caller's bound."""


class _Step(Protocol):
    def decompress(self, data: bytes, budget: int) -> bytes: ...
    def flush(self) -> bytes: ...


def _over(budget: int) -> BodyTooLarge:
    return BodyTooLarge(f"the body expands past {budget - 1} bytes")


class _Zlib:
    """gzip / deflate; deflate's first byte tells zlib-wrapped from raw deflate."""

    def __init__(self, gzip: bool) -> None:
        self._name = "gzip" if gzip else "deflate"
        self._gzip = gzip
        self._decoder: zlib._Decompress | None = zlib.decompressobj(31) if gzip else None

    def decompress(self, data: bytes, budget: int) -> bytes:
        if self._decoder is None:
            if not data:
                return b""
            # A zlib header starts with one of these; some servers send raw deflate.
            wrapped = data[0] in (0x08, 0x58, 0x68, 0x78)
            self._decoder = zlib.decompressobj(15 if wrapped else -15)
        try:
            out = self._decoder.decompress(data, budget)
            if self._decoder.unconsumed_tail:
                raise _over(budget)  # more output than the budget: a bomb stops here
            # gzip may hold several members one after another (RFC 1952 §2.2).
            while self._gzip and self._decoder.eof and self._decoder.unused_data:
                rest = self._decoder.unused_data
                self._decoder = zlib.decompressobj(31)
                out += self._decoder.decompress(rest, max(1, budget - len(out)))
                if self._decoder.unconsumed_tail:
                    raise _over(budget)
            return out
        except zlib.error as exc:
            raise DamagedBody(f"the body is not valid {self._name} ({exc})") from None

    def flush(self) -> bytes:
        if self._decoder is None:
            return b""
        try:
            return self._decoder.flush()
        except zlib.error as exc:  # pragma: no cover - flush rarely raises
            raise DamagedBody(f"the body ends inside its compressed data ({exc})") from None


class _Brotli:
    def __init__(self) -> None:
        import brotli

        self._module = brotli
        self._decoder = brotli.Decompressor()

    def decompress(self, data: bytes, budget: int) -> bytes:
        try:
            out = bytes(self._decoder.process(data, output_buffer_limit=budget))
        except self._module.error as exc:
            raise DamagedBody(f"the body is not valid brotli ({exc})") from None
        if len(out) >= budget and not self._decoder.is_finished():
            raise _over(budget)
        return out

    def flush(self) -> bytes:
        return b""


#: zstd gives no output bound: it is fed this much input at a time, and checked after each.
_ZSTD_SLICE: Final = 1024


class _Zstd:
    def __init__(self) -> None:
        import zstandard

        self._error = zstandard.ZstdError
        self._decoder = zstandard.ZstdDecompressor().decompressobj()

    def decompress(self, data: bytes, budget: int) -> bytes:
        out = bytearray()
        try:
            for at in range(0, len(data), _ZSTD_SLICE):
                out += self._decoder.decompress(data[at : at + _ZSTD_SLICE])
                if len(out) >= budget:
                    raise _over(budget)
        except self._error as exc:
            raise DamagedBody(f"the body is not valid zstd ({exc})") from None
        return bytes(out)

    def flush(self) -> bytes:
        return b""


def _brotli_available() -> bool:
    try:
        import brotli  # noqa: F401
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    return True


def _zstd_available() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    return True


#: Coding name (lower case) -> a new decoder for one body.
DECODERS: Final[dict[str, Callable[[], _Step]]] = {
    "gzip": lambda: _Zlib(gzip=True),
    "x-gzip": lambda: _Zlib(gzip=True),
    "deflate": lambda: _Zlib(gzip=False),
    **({"br": _Brotli} if _brotli_available() else {}),
    **({"zstd": _Zstd} if _zstd_available() else {}),
}


def parse_encodings(header: str | None) -> list[str]:
    """The codings a ``Content-Encoding`` value names, in the order applied, ``identity`` left out.

    Raises :class:`UndecodableEncoding` for one we cannot undo.
    """
    codings = [c.strip().lower() for c in (header or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    for coding in codings:
        if coding not in DECODERS:
            raise UndecodableEncoding(coding)
    return codings


#: The most one body may decode to when the caller sets no bound.
DEFAULT_LIMIT: Final = 4 << 30


class StreamDecoder:
    """Decodes one body chunk by chunk (``gzip, br``: undone in reverse order).

    ``limit`` bounds the decoded bytes of the whole body (a bomb raises
    :class:`BodyTooLarge` as soon as it passes the bound).
    """

    def __init__(self, header: str | None, limit: int | None = None) -> None:
        self.codings = parse_encodings(header)
        self._steps = [DECODERS[c]() for c in reversed(self.codings)]
        self._limit = DEFAULT_LIMIT if limit is None else limit
        self.decoded = 0

    @property
    def active(self) -> bool:
        """Whether there is anything to undo."""
        return bool(self._steps)

    def decode(self, data: bytes) -> bytes:
        """The decoded bytes this chunk completes (may be empty)."""
        for step in self._steps:
            data = step.decompress(data, self._budget())
        return self._counted(data)

    def _budget(self) -> int:
        # One byte more than may still come: getting it means the bound is passed.
        return max(1, self._limit - self.decoded + 1)

    def flush(self) -> bytes:
        """What the decoders still hold at the end of the body."""
        carry = b""
        for step in self._steps:
            # What one step still held goes through the next before that one ends.
            carry = (step.decompress(carry, self._budget()) if carry else b"") + step.flush()
        return self._counted(carry)

    def _counted(self, data: bytes) -> bytes:
        self.decoded += len(data)
        if self.decoded > self._limit:
            raise BodyTooLarge(f"the body expands past {self._limit} bytes")
        return data


def decode_body(data: bytes, header: str | None, limit: int | None = None) -> bytes:
    """A whole body with its ``Content-Encoding`` undone (raises :class:`EncodingError`)."""
    decoder = StreamDecoder(header, limit)
    return decoder.decode(data) + decoder.flush()
