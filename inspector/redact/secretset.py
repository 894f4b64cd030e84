"""``SecretSet``: every credential in play, from every source, and what follows from it.

One set per exchange (a live request, one exchange through the proxy, one
imported interaction). It is built from :mod:`.sources` and then used for
everything written or shown about that exchange:

* :meth:`SecretSet.scrubber` — a :class:`~.spellings.SecretScrubber` that
  replaces every spelling of every value in a byte stream;
* :meth:`SecretSet.clean` / :meth:`SecretSet.clean_value` — text and JSON-like
  values (a capture header, a ``model``, an error message) with the known
  values replaced *and* anything shaped like a secret (:mod:`.shapes`) too;
* :meth:`SecretSet.digests` — what travels with a capture so that a later
  export finds the same values: each value's kind, length and keyed hashes
  (HMAC-SHA256 under a random key kept next to them) of the value and of the
  value lower-cased (an echo in another letter case), never the value.

Nothing is shared between sets: the proxy builds a fresh one per exchange.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from typing import Any, Final

from .shapes import is_placeholder, replace_shapes
from .sources import (
    body_secrets,
    environ_secrets,
    header_secrets,
    typed_header_secrets,
    url_secrets,
)
from .spellings import MIN_SECRET, SecretScrubber, scrub_strings

__all__ = ["DIGEST_SCHEME", "REDACTED", "SecretSet", "digest", "mask_shapes", "warm_up"]

REDACTED: Final = "[redacted]"
#: How :meth:`SecretSet.digests` hashes (named in the capture header).
DIGEST_SCHEME: Final = "hmac-sha256/128"


@functools.lru_cache(maxsize=64)
def _prototype(values: tuple[str, ...]) -> SecretScrubber:
    # Compiling costs a millisecond or more; an app sends the same key with
    # every request, so each exchange copies a cached scrubber (fresh state).
    return SecretScrubber(values)


def digest(key: bytes, value: str) -> str:
    """The keyed hash of ``value`` as the capture header stores it (hex, 128 bits)."""
    # (imported here: hmac loads OpenSSL, ~5 ms of the start-up of every command
    # that can redact, and only recording a secret needs it)
    import hashlib
    import hmac

    mac = hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return mac.hexdigest()[:32]


class SecretSet:
    """The credentials of one exchange: ``value -> kind`` (first kind seen wins)."""

    __slots__ = ("_kinds",)

    def __init__(self, found: Iterable[tuple[str, str]] = ()) -> None:
        self._kinds: dict[str, str] = {}
        self.add_all(found)

    # -- building ------------------------------------------------------------

    def add(self, kind: str, value: str | None) -> None:
        """One credential; blanks and placeholders (``[redacted]``) are not secrets."""
        if not value:
            return
        value = value.strip()
        if value and not is_placeholder(value):
            self._kinds.setdefault(value, kind)

    def add_all(self, found: Iterable[tuple[str, str]]) -> SecretSet:
        """Every ``(kind, value)`` of ``found`` (a :mod:`.sources` function's output)."""
        for kind, value in found:
            self.add(kind, value)
        return self

    @classmethod
    def for_request(
        cls,
        *,
        url: str = "",
        headers: Iterable[tuple[str, str]] | Mapping[str, str] = (),
        body: Any = None,
        api_key: str | None = None,
        environ: Mapping[str, str] | None = None,
        typed: bool = False,
    ) -> SecretSet:
        """The credentials a request carries: the key, its headers, URL and body,
        and (for live mode) the keys in the environment. ``typed``: the headers are
        the user's own (``--header``), so every value is one
        (:func:`~.sources.typed_header_secrets`)."""
        found = cls()
        found.add("api-key", api_key)
        found.add_all(typed_header_secrets(headers) if typed else header_secrets(headers))
        found.add_all(url_secrets(url))
        if body is not None:
            found.add_all(body_secrets(body))
        if environ is not None:
            found.add_all(environ_secrets(environ))
        return found

    def add_response_headers(
        self, headers: Iterable[tuple[str, str]] | Mapping[str, str]
    ) -> SecretSet:
        """What the upstream sets: ``Set-Cookie`` values, credential headers it sends."""
        return self.add_all(header_secrets(headers))

    # -- reading -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._kinds)

    def __contains__(self, value: object) -> bool:
        return value in self._kinds

    @property
    def values(self) -> tuple[str, ...]:
        """The values, longest first (one that contains another is replaced whole)."""
        return tuple(sorted(self._kinds, key=len, reverse=True))

    def kind(self, value: str) -> str:
        """Where ``value`` came from (``header:authorization``, ``cookie``…)."""
        return self._kinds.get(value, "secret")

    def items(self) -> list[tuple[str, str]]:
        """``(kind, value)`` pairs, longest value first."""
        return [(self._kinds[v], v) for v in self.values]

    @property
    def too_short(self) -> tuple[str, ...]:
        """Values under :data:`~.spellings.MIN_SECRET` characters: removed where they
        stand by name, but not scrubbed from free text (they would match ordinary words)."""
        return tuple(v for v in self.values if len(v) < MIN_SECRET)

    # -- using ---------------------------------------------------------------

    def scrubber(self) -> SecretScrubber:
        """A scrubber for these values with nothing held back (a fresh copy)."""
        return _prototype(self.values).fresh()

    def clean(self, text: str) -> str:
        """``text`` with every known value (every spelling) and every secret shape replaced."""
        scrubbed = self.scrubber().scrub_text(text) if self._kinds else text
        return mask_shapes(scrubbed)

    def clean_value(self, value: Any) -> Any:
        """A JSON-like value with :meth:`clean` applied to every string, keys too."""
        return scrub_strings(value, self.clean)

    def digests(self, key: bytes | None = None) -> dict[str, Any]:
        """What the capture header keeps so a later export finds the same values
        (see the module docstring); values under ``MIN_SECRET`` are left out."""
        key = key if key is not None else os.urandom(16)  # (what secrets.token_bytes does)
        kept = [(k, v) for k, v in self.items() if len(v) >= MIN_SECRET]
        return {
            "scheme": DIGEST_SCHEME,
            "key": key.hex(),
            "secrets": [
                {
                    "kind": k,
                    "length": len(v),
                    "digest": digest(key, v),
                    "folded": digest(key, v.lower()),
                }
                for k, v in kept
            ],
        }


def mask_shapes(text: str) -> str:
    """``text`` with everything shaped like a secret replaced by ``[redacted]``."""
    return replace_shapes(text, lambda _value, _rule: REDACTED)


def warm_up() -> None:
    """Build now what the first scrub would build (patterns and tables are made on first
    use, for the commands' start-up): a server calls this before it listens, so its first
    exchange does not wait for them."""
    sample = SecretSet((("secret", "warm-up-value-0123456789"),))
    scrubber = sample.scrubber()
    scrubber.feed(b'data: {"warm-up-value-0123456789": "AKIA0123456789ABCDEF"}\n\n')
    scrubber.flush()
    sample.clean("warm-up-value-0123456789 sk-0123456789abcdef0123456789abcdef")
