"""Known secret values removed from a recorded body without changing its length (export).

Export rewrites a stream body byte for byte: every edit keeps its length, so
the capture is cut back into the same chunks. The values it knows to be
secret — the credentials of the capture header (``Authorization``, cookies,
URL userinfo…) and the values an earlier import removed and recorded by keyed
hash (:mod:`.digests`, recovered from the capture itself) — are removed here
in every spelling :mod:`.spellings` claims, each match replaced by a
placeholder of the same length (:func:`~.shapes.placeholder`: ASCII, no
quote or backslash, safe inside a JSON string), just as a live recording
would have scrubbed them while streaming.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Protocol

import orjson

from .digests import DigestMatcher
from .shapes import placeholder
from .sources import value_secrets
from .spellings import MIN_SECRET, SecretScrubber, scrub_strings

__all__ = ["MAX_KNOWN", "KnownValues", "remove_known_values"]

#: The most values one body is scrubbed of (longest first); a header holding
#: more than this is hostile, and the leak scan still refuses what is left.
MAX_KNOWN: Final = 256
_LINE_ENDS: Final = frozenset(b"\r\n")
_STRUCTURAL: Final = frozenset({"type", "format", "version"})


class KnownValues:
    """``value -> kind`` of the values to remove, and how to remove them."""

    __slots__ = ("_kinds", "_scrubber")

    def __init__(self, kinds: Mapping[str, str]) -> None:
        kept = sorted((v for v in kinds if len(v) >= MIN_SECRET), key=len, reverse=True)
        self._kinds = {v: kinds[v] for v in kept[:MAX_KNOWN]}
        self._scrubber = SecretScrubber(self._kinds)

    @classmethod
    def gather(
        cls,
        known: Mapping[str, str],
        matchers: Iterable[DigestMatcher],
        texts: Iterable[str],
    ) -> tuple[KnownValues, dict[str, str]]:
        """The values in ``known`` and those ``matchers`` recover from ``texts``; and the
        recovered ones alone (``value -> kind``: the caller counts them as removed)."""
        recovered: dict[str, str] = {}
        matchers = list(matchers)
        if matchers:
            for text in texts:
                for matcher in matchers:
                    for value, kind in matcher.recover(text).items():
                        recovered.setdefault(value, kind)
        return cls({**recovered, **known}), recovered

    def __bool__(self) -> bool:
        return self._scrubber.active

    def remove(self, body: bytes) -> tuple[bytes, int]:
        """``body`` with every form of every value replaced, the same length; how many."""
        spans = self._scrubber.spans(body) if self else []
        if not spans:
            return body, 0
        out = bytearray(body)
        for start, end in spans:
            secret = self._scrubber.which(body[start:end])
            kind = self._kinds.get(secret, "secret") if secret is not None else "secret"
            # Line breaks stay (a MIME-wrapped echo in an SSE comment: they end its lines).
            # Its other bytes become '*' then: no ':' that would make a line a field.
            spelled = body[start:end]
            if _LINE_ENDS.isdisjoint(spelled):
                # (No ':' either: a placeholder at a line's start would make it a field.)
                out[start:end] = placeholder(kind.replace(":", "-"), end - start).encode("ascii")
            else:
                out[start:end] = bytes(b if b in _LINE_ENDS else 42 for b in spelled)
        return bytes(out), len(spans)

    def clean(self, text: str) -> str:
        """``text`` (a header string, an error) with every form of every value ``[redacted]``."""
        return self._scrubber.scrub_text(text) if self else text

    def clean_value(self, value: Any) -> Any:
        """A JSON-like value with :meth:`clean` applied to every string, keys too."""
        return scrub_strings(value, self.clean)


def _taken_apart(known: Mapping[str, str]) -> dict[str, str]:
    """``known`` and, for a header's value (kind ``header:NAME``), what :mod:`.sources`
    takes from it: each cookie's value, a Basic password, a token after its scheme."""
    out = dict(known)
    for value, kind in known.items():
        if kind.startswith("header:"):
            for part_kind, part in value_secrets(kind.removeprefix("header:"), value):
                out.setdefault(part.strip(), part_kind)
    return out


class _Ledger(Protocol):
    secrets: dict[str, str]
    digests: list[DigestMatcher]

    def remove(self, rule: str, value: str) -> None: ...


def remove_known_values(
    body: bytes,
    header: dict[str, Any] | None,
    error: str | None,
    ledger: _Ledger,
    known: Mapping[str, str],
) -> tuple[bytes, dict[str, Any] | None, str | None]:
    """Export's last rewrite: ``body`` (same length), ``header`` and the transport
    ``error`` with every known value — ``known``, what the header held, and what
    import recorded by hash, recovered here — removed in every spelling.

    The ledger is told of each recovered value (counted, and looked for by the
    leak scan). The header's ``redacted`` record is dropped: its values are gone
    and a published key would let anyone test guesses against the hashes.
    """
    if header is not None:
        header.pop("redacted", None)
    matchers = ledger.digests
    texts: list[str] = []
    if matchers:
        texts = [body.decode("utf-8", "surrogateescape"), orjson.dumps(header).decode()]
        texts += [error] if error else []
    values, recovered = KnownValues.gather(_taken_apart(known), matchers, texts)
    del texts
    for value, kind in recovered.items():
        ledger.remove(kind, value)
    if not values:
        return body, header, error
    body, _ = values.remove(body)
    if header is not None:
        # What the file is (type, format, version) says nothing of a request: kept as is.
        header = {k: v if k in _STRUCTURAL else values.clean_value(v) for k, v in header.items()}
    return body, header, values.clean(error) if error else error
