"""Bounds on what an imported file can make us hold, and bounded body decoding.

Cassettes and HAR files come from outside: a body may claim to be gzip or
base64 and expand to anything. Every decoder here stops at a fixed size and
says so, instead of trying and running out of memory.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from ..encodings import BodyTooLarge, DamagedBody, EncodingError, StreamDecoder

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
    "decode_all",
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
#: Compressed bytes handed to the decoder at a time (what decoded stays on damage).
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


_Item = TypeVar("_Item")
_Read = TypeVar("_Read")


def decode_all(
    items: Sequence[_Item],
    read: Callable[[int, _Item, DecodeBudget], _Read],
    too_much: Callable[[int], Exception],
) -> list[_Read]:
    """``read(number, item, budget)`` for every item (numbered from 1) on one shared
    :class:`DecodeBudget`; ``too_much(MiB)`` is raised when their bodies decode past it."""
    budget = DecodeBudget()
    done = [read(i, item, budget) for i, item in enumerate(items, start=1)]
    if budget.used > budget.total:
        raise too_much(budget.total // (1024 * 1024))
    return done


def decode_content(
    data: bytes,
    encodings: list[str],
    limit: int = MAX_BODY,
    *,
    damage: list[str] | None = None,
    budget: DecodeBudget | None = None,
) -> bytes:
    """Undo ``Content-Encoding`` (applied in order, so undone in reverse), within ``limit``.

    Every coding :mod:`inspector.encodings` knows (gzip, x-gzip, deflate, br,
    zstd, stacked); any other is refused: its bytes may hide a secret. With
    ``damage``, compressed data that breaks off or is damaged part way keeps
    what decoded before it, and a line saying where is appended to ``damage``;
    without, it raises :class:`BodyError`. ``budget`` counts the decoded bytes
    against the whole file's.
    """
    name = ", ".join(e.strip().lower() for e in encodings if e.strip())
    try:
        decoder = StreamDecoder(", ".join(encodings), limit)
    except EncodingError as exc:
        raise BodyError(f"{exc}; not imported") from None
    out = bytearray()
    try:
        for at in range(0, len(data), _STEP):
            out += decoder.decode(data[at : at + _STEP])
        out += decoder.flush()
    except BodyTooLarge:
        raise BodyError(
            f"the {name} body expands past {limit // (1024 * 1024)} MiB; not imported"
        ) from None
    except DamagedBody as exc:
        out += exc.partial
        if damage is None or not out:
            raise BodyError(f"{exc}; not imported") from None
        damage.append(f"{exc}; the rest is lost")
    if budget is not None:
        budget.take(len(out))
    return bytes(out)
