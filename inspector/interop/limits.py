"""Bounds on what an imported file can make us hold, and bounded body decoding.

Cassettes and HAR files come from outside: a body may claim to be gzip or
base64 and expand to anything. Every decoder here stops at a fixed size and
says so, instead of trying and running out of memory.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final

from ..encodings import BodyTooLarge, EncodingError, decode_body

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


def decode_content(data: bytes, encodings: list[str], limit: int = MAX_BODY) -> bytes:
    """Undo ``Content-Encoding`` (applied in order, so undone in reverse), within ``limit``.

    Every coding :mod:`inspector.encodings` knows (gzip, x-gzip, deflate, br,
    zstd, stacked); any other is refused: its bytes may hide a secret.
    """
    try:
        decoded = decode_body(data, ", ".join(encodings), limit)
    except BodyTooLarge:
        name = ", ".join(e.strip().lower() for e in encodings if e.strip())
        raise BodyError(
            f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported"
        ) from None
    except EncodingError as exc:
        raise BodyError(f"{exc}; not imported") from None
    return decoded
