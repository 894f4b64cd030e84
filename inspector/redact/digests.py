"""Finding again, by their keyed hashes, the values an earlier step removed.

Import redacts a cassette's credentials and writes into the capture header
what it removed — kind, length and an HMAC of each value under a random key
stored with them (:meth:`~.secretset.SecretSet.digests`), never the value.
An export of that capture reads the record back (:meth:`DigestMatcher.from_header`)
and its leak scan asks :meth:`DigestMatcher.find` of every text it checks:
a value seen again, in any text the scan decodes, refuses the export just as
a value the export removed itself would.

A text is cut into candidate tokens at the characters that delimit values in
headers, URLs, JSON and prose — once at whitespace, quotes and brackets, once
also at ``:``, ``=``, ``@``, ``/``, ``&``, ``?`` and ``#`` (a password inside
``user:password@``) — and each token of a recorded length is hashed; so is
each token's head and tail of a recorded length (a key glued to a word).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from .secretset import DIGEST_SCHEME, digest

__all__ = ["DigestMatcher"]

_COARSE: Final = re.compile(r"[^\s\"'`<>()\[\]{}\\,;|]+")
_FINE: Final = re.compile(r"[^\s\"'`<>()\[\]{}\\,;|:=@/&?#]+")


class DigestMatcher:
    """The removed values of one capture, known by kind, length and keyed hash."""

    def __init__(self, key: bytes, entries: list[tuple[str, int, str]]) -> None:
        self._key = key
        self._by_length: dict[int, dict[str, str]] = {}
        for kind, length, hashed in entries:
            self._by_length.setdefault(length, {})[hashed] = kind
        self._shortest = min(self._by_length, default=0)

    @classmethod
    def from_header(cls, header: Mapping[str, Any] | None) -> DigestMatcher | None:
        """The matcher for a capture header's ``redacted`` record; None when it has none."""
        record = header.get("redacted") if isinstance(header, Mapping) else None
        if not isinstance(record, Mapping) or record.get("scheme") != DIGEST_SCHEME:
            return None
        try:
            key = bytes.fromhex(str(record.get("key", "")))
        except ValueError:
            return None
        entries = []
        for item in record.get("secrets") or ():
            if not isinstance(item, Mapping):
                continue
            kind, length, hashed = item.get("kind"), item.get("length"), item.get("digest")
            if isinstance(length, int) and length > 0 and isinstance(hashed, str):
                entries.append((str(kind), length, hashed))
        return cls(key, entries) if entries and key else None

    def __len__(self) -> int:
        return sum(len(d) for d in self._by_length.values())

    def find(self, text: str) -> tuple[str, int] | None:
        """The kind and length of a removed value found in ``text``, or None."""
        if not self._by_length:
            return None
        for pattern in (_COARSE, _FINE):
            for m in pattern.finditer(text):
                token = m.group()
                if len(token) < self._shortest:
                    continue
                for length, known in self._by_length.items():
                    if len(token) < length:
                        continue
                    for piece in {token[:length], token[-length:]}:
                        kind = known.get(digest(self._key, piece))
                        if kind is not None:
                            return kind, length
        return None
