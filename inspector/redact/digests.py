"""Finding again, by their keyed hashes, the values an earlier step removed.

Import redacts a cassette's credentials and writes into the capture header
what it removed — kind, length and an HMAC of each value under a random key
stored with them (:meth:`~.secretset.SecretSet.digests`), never the value.
An export of that capture reads the record back (:meth:`DigestMatcher.from_header`)
and *recovers* the values (:meth:`DigestMatcher.recover`): each candidate
whose hash is recorded is the value itself, so the export then removes it in
every spelling (:mod:`.known`) and its leak scan looks for it like any value
it removed itself.

Candidates, with bounded work (linear in the text, times the number of
recorded lengths): the text is read as it is and in every spelling
:mod:`.spellings` claims — JSON escapes undone (twice: JSON in JSON),
percent-encoding undone, MIME line breaks removed, and each base64 run
decoded (both alphabets, from each of its first four characters) — and each
reading is cut into tokens at the characters that delimit values: once only
at white space, quotes and backslashes, once also at ``,;|`` and brackets,
once also at ``:=@/&?#`` (a password inside ``user:password@``). Each token
of a recorded length is hashed, and so are its head and tail of each recorded
length (a value glued to a word on one side). Letter case: the record keeps
a hash of the value lower-cased too, so an upper- or mixed-case echo is
found as well.

Not found (docs/security.md): a value glued to other characters on *both*
sides, a value containing white space or quotes, a value under
:data:`~.spellings.MIN_SECRET` characters (not recorded).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final
from urllib.parse import unquote_plus

from .secretset import DIGEST_SCHEME

__all__ = ["DigestMatcher", "readings"]

#: What a token is made of, for each cut (then ``{n,}`` for the shortest recorded length).
_TOKENS: Final = (
    r"[^\s\"'`\\]",
    r"[^\s\"'`<>()\[\]{}\\,;|]",
    r"[^\s\"'`<>()\[\]{}\\,;|:=@/&?#]",
)
_JSON_ESCAPE: Final = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\(.)",
    re.S,
)
_SHORT: Final = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# A MIME line break (real or JSON-escaped), and base64 lines with such breaks between them.
_BREAK: Final = re.compile(r"\r?\n|(?:\\{1,2}r)?\\{1,2}n")
_WRAPPED: Final = re.compile(
    # (From a run's first character only: tried inside a long run, it would read the rest
    # of the run again from each of its characters.)
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]++(?:(?:\r?\n|(?:\\{1,2}r)?\\{1,2}n)[A-Za-z0-9+/=_-]++)+"
)
_BASE64_RUN: Final = re.compile(r"[A-Za-z0-9+/_-]{11,}={0,2}")
_URLSAFE: Final = bytes.maketrans(b"-_", b"+/")
#: Readings past the text itself (JSON escapes and %XX undone, chained).
_MAX_READINGS: Final = 6
#: Candidates remembered as hashed already (then forgotten, to bound memory).
_CHECKED: Final = 1 << 16


def _json_char(m: re.Match[str]) -> str:
    high, low, single, short = m.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    if single is not None:
        return chr(int(single, 16))
    return _SHORT.get(short, short)


def _decoded_texts(text: str) -> list[str]:
    """``text`` and each distinct decoding of it (JSON escapes, %XX), chained."""
    seen = [text]
    for view in seen:
        if len(seen) > _MAX_READINGS:
            break
        if "\\" in view:
            seen.append(_JSON_ESCAPE.sub(_json_char, view))
        # (%XX only: '+' for a space matters to a value with a space, never a token.)
        if "%" in view:
            seen.append(unquote_plus(view, errors="surrogateescape"))
        seen[:] = list(dict.fromkeys(seen))
    return seen


def _unwrapped(text: str) -> str:
    """Every run of base64 lines in ``text`` (MIME-wrapped), breaks removed: a line each."""
    return "\n".join(_BREAK.sub("", m.group()) for m in _WRAPPED.finditer(text))


def _base64_decoded(text: str, shortest: int) -> str:
    """Each distinct base64 run of ``text`` long enough to hold a value of ``shortest``
    characters, decoded from each of its first four characters: one text, a line each."""
    decoded: list[str] = []
    seen: set[str] = set()
    for m in _BASE64_RUN.finditer(text):
        run = m.group()
        if len(run) * 3 < shortest * 4 or run in seen:
            continue
        if len(seen) < _CHECKED:
            seen.add(run)
        data = run.rstrip("=").encode("ascii").translate(_URLSAFE)
        for skip in range(4):
            part = data[skip:]
            part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
            try:
                raw = base64.b64decode(part + b"=" * (-len(part) % 4))
            except (binascii.Error, ValueError):
                continue
            decoded.append(raw.decode("utf-8", "surrogateescape"))
    return "\n".join(decoded)


def readings(text: str, shortest: int = 1) -> Iterator[str]:
    """``text`` as it is and in every spelling the redact package claims, decoded
    (base64 runs too short to hold ``shortest`` characters are not)."""
    texts = _decoded_texts(text)
    yield from texts
    for view in texts:
        yield _base64_decoded(view, shortest)
        joined = _unwrapped(view)
        if joined:
            yield joined
            yield _base64_decoded(joined, shortest)


class DigestMatcher:
    """The removed values of one capture, known by kind, length and keyed hash."""

    def __init__(
        self,
        key: bytes,
        entries: list[tuple[str, int, str]],
        folded: list[tuple[str, int, str]] | None = None,
    ) -> None:
        # (imported by the one object that hashes: hmac loads OpenSSL, ~5 ms of
        # start-up that an export of a capture without digests never needs)
        import hmac

        self._hmac = hmac.digest
        self._key = key
        self._exact: dict[int, dict[str, str]] = {}
        self._folded: dict[int, dict[str, str]] = {}
        for table, items in ((self._exact, entries), (self._folded, folded or [])):
            for kind, length, hashed in items:
                table.setdefault(length, {})[hashed] = kind
        self._lengths = sorted(set(self._exact) | set(self._folded))
        self._shortest = self._lengths[0] if self._lengths else 1
        # Tokens shorter than every value are skipped by the regex engine itself.
        self._tokens = tuple(re.compile(f"{token}{{{self._shortest},}}") for token in _TOKENS)

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
        entries: list[tuple[str, int, str]] = []
        folded: list[tuple[str, int, str]] = []
        for item in record.get("secrets") or ():
            if not isinstance(item, Mapping):
                continue
            kind, length = str(item.get("kind")), item.get("length")
            if not isinstance(length, int) or length <= 0:
                continue
            # The lower-cased value's hash finds the value in any case; an older
            # record has only the value's own.
            if isinstance(item.get("folded"), str):
                folded.append((kind, length, item["folded"]))
            elif isinstance(item.get("digest"), str):
                entries.append((kind, length, item["digest"]))
        return cls(key, entries, folded) if (entries or folded) and key else None

    def __len__(self) -> int:
        return max(sum(map(len, self._exact.values())), sum(map(len, self._folded.values())))

    def _hash(self, value: str) -> str:
        data = value.encode("utf-8", "surrogatepass")
        return self._hmac(self._key, data, "sha256").hex()[:32]

    def _kind(self, candidate: str) -> str | None:
        length = len(candidate)
        folded = self._folded.get(length)
        if folded:
            kind = folded.get(self._hash(candidate.lower()))
            if kind is not None:
                return kind
        exact = self._exact.get(length)
        return exact.get(self._hash(candidate)) if exact else None

    def _candidates(self, text: str) -> Iterator[str]:
        for pattern in self._tokens:
            for m in pattern.finditer(text):
                token = m.group()
                size = len(token)
                for length in self._lengths:
                    if length > size:
                        break
                    yield token[:length]
                    if length < size:
                        yield token[-length:]

    def recover(self, text: str) -> dict[str, str]:
        """Every removed value found in ``text`` (any reading of it): ``value -> kind``."""
        found: dict[str, str] = {}
        if not self._lengths:
            return found
        checked: set[str] = set()  # a stream repeats its words: each hashed once (bounded)
        for reading in readings(text, self._shortest):
            for candidate in self._candidates(reading):
                if candidate in checked:
                    continue
                if len(checked) >= _CHECKED:
                    checked.clear()
                checked.add(candidate)
                kind = self._kind(candidate)
                if kind is not None:
                    found.setdefault(candidate, kind)
        return found

    def find(self, text: str) -> tuple[str, int] | None:
        """The kind and length of a removed value found in ``text``, or None."""
        for value, kind in self.recover(text).items():
            return kind, len(value)
        return None
