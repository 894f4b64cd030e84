"""The last check of an export: is any removed secret still in an output file?

Every output file is searched, as bytes and also *decoded*: the text of every
JSON string (escapes undone, twice, for JSON inside JSON such as tool
arguments) and, for a capture, its chunks' bytes joined — so a secret that
sits in a ``b64`` chunk, or is split across two chunks, is found too. Each
secret is looked for as itself, JSON-escaped, URL-encoded and base64-encoded
(standard and URL-safe alphabets, at each of the three alignments a secret
can have inside a longer base64 text).

A hit names the file, the rule that removed the secret and the form it was
found in — never the secret.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote, quote_plus

import orjson

__all__ = ["Leak", "needles", "scan_outputs"]

# A base64 form shorter than this could turn up by chance in any long blob.
_MIN_ENCODED: Final = 8
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


@dataclass(frozen=True, slots=True)
class Leak:
    """A removed secret found again: in ``file``, removed by ``rule``, in ``form``."""

    file: str
    rule: str
    form: str

    def __str__(self) -> str:
        return f"{self.file}: a value removed by rule {self.rule!r} is still there ({self.form})"


def _base64_forms(secret: bytes) -> Iterator[bytes]:
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + secret)
        # Only whole groups made of the secret's own bytes are fixed whatever
        # surrounds it: drop the first group when padded, and the last partial one.
        start = 4 if shift else 0
        end = 4 * ((shift + len(secret)) // 3)
        core = encoded[start:end]
        if len(core) >= _MIN_ENCODED:
            yield core
            yield core.translate(bytes.maketrans(b"+/", b"-_"))


def needles(secret: str) -> list[tuple[str, bytes]]:
    """The forms a secret is searched in: ``(form name, bytes)``."""
    raw = secret.encode("utf-8", "surrogatepass")
    forms: dict[bytes, str] = {raw: "as is"}
    for form, text in (
        ("JSON-escaped", json.dumps(secret)[1:-1]),
        ("JSON-escaped", json.dumps(secret, ensure_ascii=False)[1:-1]),
        ("URL-encoded", quote(secret, safe="")),
        ("URL-encoded", quote_plus(secret, safe="")),
        (
            "URL-encoded",
            re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote(secret, safe="")),
        ),
    ):
        forms.setdefault(text.encode("utf-8", "surrogatepass"), form)
    for encoded in _base64_forms(raw):
        forms.setdefault(encoded, "base64")
    return [(form, needle) for needle, form in forms.items()]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _unescaped(text: str) -> str:
    """The content of every JSON string literal in ``text``, escapes undone."""
    out = []
    for m in _JSON_STRING.finditer(text):
        try:
            out.append(json.loads(m.group()))
        except ValueError:
            continue
    return "\n".join(out)


def _capture_body(data: bytes) -> bytes | None:
    """A capture file's chunks joined (b64 ones decoded); None if not a capture."""
    pieces = []
    for line in data.splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(record, dict) or record.get("type") != "chunk":
            continue
        if isinstance(record.get("text"), str):
            pieces.append(record["text"].encode("utf-8", "surrogatepass"))
        elif isinstance(record.get("b64"), str):
            try:
                pieces.append(base64.b64decode(record["b64"]))
            except ValueError:
                continue
    return b"".join(pieces) if pieces else None


def _haystacks(data: bytes) -> list[bytes]:
    """The file, and what it says once decoded."""
    hay = [data]
    body = _capture_body(data)
    if body is not None:
        hay.append(body)
    for source in list(hay):
        text = source.decode("utf-8", "replace")
        once = _unescaped(text)
        twice = _unescaped(once)
        hay.extend(s.encode("utf-8", "surrogatepass") for s in (once, twice) if s)
    return hay


def scan_outputs(files: Mapping[str, bytes], secrets: Mapping[str, str]) -> list[Leak]:
    """Every (file, secret, form) where a removed secret is still present."""
    if not secrets:
        return []
    forms = {secret: needles(secret) for secret in secrets}
    leaks: list[Leak] = []
    for name, data in files.items():
        hay = _haystacks(data)
        for secret, rule in secrets.items():
            for form, needle in forms[secret]:
                if any(needle in h for h in hay):
                    leaks.append(Leak(name, rule, form))
                    break
    return leaks
