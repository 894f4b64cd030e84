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
    "RATIO_GRACE",
    "BodyTooLarge",
    "DamagedBody",
    "EncodingError",
    "StreamDecoder",
    "UndecodableEncoding",
    "decode_body",
    "parse_encodings",
]


class EncodingError(ValueError):
    """A body that cannot be decoded; the message says why (safe to print).

    ``partial``: what the failing call decoded before it stopped (kept, never lost).
    """

    partial: bytes = b""


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


def _over(budget: int, out: bytes = b"") -> BodyTooLarge:
    """The budget (one byte more than may come) is passed; ``out`` up to it is kept."""
    error = BodyTooLarge(f"the body expands past {budget - 1} bytes")
    error.partial = out[: budget - 1]
    return error


class _Zlib:
    """gzip / deflate; deflate's first byte tells zlib-wrapped from raw deflate."""

    def __init__(self, gzip: bool) -> None:
        self.produced = 0
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
        saved = self._decoder.copy()
        try:
            out = self._decoder.decompress(data, budget)
            if self._decoder.unconsumed_tail:
                raise _over(budget, out)  # more output than the budget: a bomb stops here
            # gzip may hold several members one after another (RFC 1952 §2.2).
            while self._gzip and self._decoder.eof and self._decoder.unused_data:
                rest = self._decoder.unused_data
                saved = self._decoder = zlib.decompressobj(31)
                data = rest
                out += self._decoder.decompress(rest, max(1, budget - len(out)))
                if self._decoder.unconsumed_tail:
                    raise _over(budget, out)
            self.produced += len(out)
            return out
        except zlib.error as exc:
            # Keep every byte that decoded before the damage: the piece it is in is fed
            # again from the copy of the decoder made before it, a byte at a time.
            kept = bytearray()
            for index in range(len(data)):
                try:
                    kept += saved.decompress(data[index : index + 1])
                except zlib.error:
                    break
                if len(kept) >= budget:
                    break
            self.produced += len(kept)
            error = DamagedBody(
                f"the {self._name} body is damaged after {self.produced} decoded bytes ({exc})"
            )
            error.partial = bytes(kept)
            raise error from None

    def flush(self) -> bytes:
        if self._decoder is None:
            return b""
        try:
            out = self._decoder.flush()
        except zlib.error as exc:  # pragma: no cover - flush rarely raises
            raise DamagedBody(f"the body ends inside its compressed data ({exc})") from None
        if not self._decoder.eof:
            error = DamagedBody(
                f"the {self._name} body was cut short after {self.produced + len(out)} "
                "decoded bytes (it ends inside its compressed data)"
            )
            error.partial = out
            raise error
        return out


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
            raise _over(budget, out)
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
                    raise _over(budget, bytes(out))
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


#: Decoded bytes a body may reach before :class:`StreamDecoder`'s ratio is checked
#: (a small body may compress very well).
RATIO_GRACE: Final = 1 << 20


class StreamDecoder:
    """Decodes one body chunk by chunk (``gzip, br``: undone in reverse order).

    ``limit`` bounds the decoded bytes of the whole body, ``max_ratio`` how many
    times the compressed bytes so far it may decode to (past the first
    :data:`RATIO_GRACE` bytes): a bomb raises :class:`BodyTooLarge` as soon as
    it passes either. Every error carries in ``partial`` what decoded before it.
    """

    def __init__(
        self, header: str | None, limit: int | None = None, max_ratio: int | None = None
    ) -> None:
        self.codings = parse_encodings(header)
        self._steps = [DECODERS[c]() for c in reversed(self.codings)]
        self._limit = DEFAULT_LIMIT if limit is None else limit
        self._max_ratio = max_ratio
        self._name = ", ".join(self.codings) or "identity"
        self.consumed = 0
        self.decoded = 0

    @property
    def active(self) -> bool:
        """Whether there is anything to undo."""
        return bool(self._steps)

    def decode(self, data: bytes) -> bytes:
        """The decoded bytes this chunk completes (may be empty)."""
        self.consumed += len(data)
        return self._through(0, data, flush=False)

    def flush(self) -> bytes:
        """What the decoders still hold at the end of the body."""
        return self._through(0, b"", flush=True)

    def _through(self, first: int, data: bytes, *, flush: bool) -> bytes:
        """``data`` through the steps from ``first`` on (each one flushed at the end)."""
        for index in range(first, len(self._steps)):
            step = self._steps[index]
            try:
                data = (step.decompress(data, self._budget()) if data else b"") + (
                    step.flush() if flush else b""
                )
            except EncodingError as exc:
                # What decoded before the damage still goes through the later steps.
                try:
                    partial = self._through(index + 1, exc.partial, flush=False)
                except EncodingError as later:
                    partial = later.partial
                if isinstance(exc, BodyTooLarge):
                    exc = self._too_large()
                exc.partial = partial
                raise exc from None
        return self._counted(data)

    def _ratio_bound(self) -> int | None:
        """The most decoded bytes the compressed bytes so far allow (None: no ratio)."""
        if self._max_ratio is None:
            return None
        return max(RATIO_GRACE, self.consumed * self._max_ratio)

    def _budget(self) -> int:
        # One byte more than may still come: getting it means a bound is passed.
        bound = self._limit
        ratio = self._ratio_bound()
        if ratio is not None:
            bound = min(bound, ratio)
        return max(1, bound - self.decoded + 1)

    def _too_large(self) -> BodyTooLarge:
        """The error for the bound that was passed: the ratio's, or the size's."""
        ratio = self._ratio_bound()
        if ratio is not None and ratio < self._limit:
            return BodyTooLarge(
                f"the {self._name} body expands more than {self._max_ratio} times "
                f"({self.consumed} compressed bytes, more than {ratio} decoded)"
            )
        return BodyTooLarge(f"the {self._name} body decodes to more than {self._limit} bytes")

    def _counted(self, data: bytes) -> bytes:
        before = self.decoded
        self.decoded += len(data)
        ratio = self._ratio_bound()
        bound = self._limit if ratio is None else min(self._limit, ratio)
        if self.decoded > bound:
            error = self._too_large()
            error.partial = data[: max(0, bound - before)]
            raise error
        return data


def decode_body(data: bytes, header: str | None, limit: int | None = None) -> bytes:
    """A whole body with its ``Content-Encoding`` undone (raises :class:`EncodingError`)."""
    decoder = StreamDecoder(header, limit)
    return decoder.decode(data) + decoder.flush()
