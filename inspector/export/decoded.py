"""Secrets hidden by an encoding: JSON escapes and percent-encoding undone, then mapped back.

The same key can be written many ways: ``sk-proj-…``, ``sk\\u002dproj-…``,
every character ``\\u``-escaped, ``sk%2Dproj…`` in a URL, or escaped twice
because it sits in a JSON string inside a JSON string (tool arguments,
Anthropic's ``partial_json``). :func:`find_encoded_secrets` runs the secret
patterns (:mod:`.secrets`) on a text *and* on every decoded view of it — up
to :data:`MAX_DEPTH` decodings deep, in any order — and returns each secret
as a span of the **original** text, so the caller replaces every byte that
spelled it, escapes included.

A view is only built when the text contains a ``\\`` or a ``%``, so plain
text costs one pattern search, as before.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..redact.shapes import ALL_RULES, SecretRule, find_secrets

__all__ = ["MAX_DEPTH", "EncodedSecret", "decoded_views", "find_encoded_secrets"]

#: How many decodings deep secrets are looked for (JSON inside JSON inside a URL…).
MAX_DEPTH: Final = 4

_JSON_ESCAPE = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # a surrogate pair
    r"|\\u([0-9a-fA-F]{4})"
    r"|\\([\"\\/bfnrt])"
)
# Kept as written (fmt: skip): an escape table, its entries on one line.
_SHORT: Final = {
    '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
}  # fmt: skip
# Only ASCII is decoded from %XX: every secret shape is ASCII, and a
# multi-byte sequence decoded byte by byte would not be text anyway.
_PERCENT = re.compile(r"%([0-7][0-9A-Fa-f])")


def _json_char(m: re.Match[str]) -> str:
    high, low, single, short = m.groups()
    if high is not None:
        code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        return chr(code)
    if single is not None:
        return chr(int(single, 16))
    return _SHORT[short]


def _percent_char(m: re.Match[str]) -> str:
    return chr(int(m.group(1), 16))


class _Step:
    """One decoding: where each decoded escape sits in the view and in its source.

    ``view_at``: the view index of each escape's one character, ascending;
    ``source_at``: where that escape starts in the source; ``source_len``:
    how many source characters it took.
    """

    # Plain classes here: a NamedTuple compiles each field's annotation at import.
    __slots__ = ("source_at", "source_len", "view_at")

    def __init__(self, view_at: list[int], source_at: list[int], source_len: list[int]) -> None:
        self.view_at = view_at
        self.source_at = source_at
        self.source_len = source_len

    def to_source(self, v: int) -> tuple[int, int]:
        """The source span of view character ``v``."""
        i = bisect.bisect_right(self.view_at, v) - 1
        if i < 0:
            return v, v + 1
        if self.view_at[i] == v:
            return self.source_at[i], self.source_at[i] + self.source_len[i]
        at = self.source_at[i] + self.source_len[i] + (v - self.view_at[i] - 1)
        return at, at + 1


def _decode(
    text: str, pattern: re.Pattern[str], char: Callable[[re.Match[str]], str]
) -> tuple[str, _Step]:
    source_at: list[int] = []
    source_len: list[int] = []

    def one(m: re.Match[str]) -> str:
        start, end = m.span()
        source_at.append(start)
        source_len.append(end - start)
        return char(m)

    # re.sub joins the pieces in C; each escape's one character sits where
    # it starts, less what the escapes before it shrank by.
    decoded = pattern.sub(one, text)
    shrunk = itertools.accumulate((n - 1 for n in source_len), initial=0)
    view_at = [at - less for at, less in zip(source_at, shrunk, strict=False)]
    return decoded, _Step(view_at, source_at, source_len)


# (trigger substring, pattern, decoder) for each encoding undone.
_DECODERS: Final = (
    ("\\", _JSON_ESCAPE, _json_char),
    ("%", _PERCENT, _percent_char),
)


class _View:
    """A decoding of a text, and the steps from the original to it, in order."""

    __slots__ = ("steps", "text")

    def __init__(self, text: str, steps: tuple[_Step, ...]) -> None:
        self.text = text
        self.steps = steps

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        for step in reversed(self.steps):
            start = step.to_source(start)[0]
            end = step.to_source(end - 1)[1]
        return start, end


def _views(text: str) -> list[_View]:
    views = [_View(text, ())]
    i = 0
    while i < len(views):
        view = views[i]
        i += 1
        if len(view.steps) >= MAX_DEPTH:
            continue
        for trigger, pattern, char in _DECODERS:
            if trigger not in view.text:
                continue
            decoded, step = _decode(view.text, pattern, char)
            # Compared, not hashed: a view of another length (nearly all of
            # them) differs at no cost, where a hash reads all of a long text.
            if not any(decoded == seen.text for seen in views):
                views.append(_View(decoded, (*view.steps, step)))
    return views


def decoded_views(text: str) -> list[str]:
    """``text`` and every distinct decoding of it (JSON escapes, percent-encoding)."""
    return [view.text for view in _views(text)]


@dataclass(frozen=True, slots=True)
class EncodedSecret:
    """A secret spelled by ``text[start:end]``, found by ``rule``.

    ``values`` are the secret as each view spelled it (decoded and not): the
    leak scan searches the output for all of them.
    """

    start: int
    end: int
    rule: str
    values: tuple[str, ...]


def find_encoded_secrets(
    text: str, rules: tuple[SecretRule, ...] = ALL_RULES
) -> list[EncodedSecret]:
    """Every secret in ``text`` or in a decoding of it, as spans of ``text``, in order.

    Overlapping finds (the same key seen plain and decoded) are merged into
    one span covering both, named by the first rule.
    """
    if "\\" not in text and "%" not in text:
        return [
            EncodedSecret(m.start, m.end, m.rule, (text[m.start : m.end],))
            for m in find_secrets(text, rules)
        ]
    found: list[tuple[int, int, str, str]] = []
    for view in _views(text):
        for m in find_secrets(view.text, rules):
            start, end = view.to_original(m.start, m.end)
            found.append((start, end, m.rule, view.text[m.start : m.end]))
    found.sort(key=lambda f: (f[0], -f[1]))
    merged: list[EncodedSecret] = []
    for start, end, rule, value in found:
        if merged and start < merged[-1].end:
            last = merged[-1]
            values = last.values if value in last.values else (*last.values, value)
            merged[-1] = EncodedSecret(last.start, max(last.end, end), last.rule, values)
        else:
            merged.append(EncodedSecret(start, end, rule, (value,)))
    return [
        m
        if text[m.start : m.end] in m.values
        else EncodedSecret(m.start, m.end, m.rule, (*m.values, text[m.start : m.end]))
        for m in merged
    ]
