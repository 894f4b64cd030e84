"""Payload templates: what a stream's plain events share, learned from one of them.

The plain text deltas of a stream are, in most streams, byte for byte the same
but for the text: the same id, model and fields, in the same order. A
:class:`Template` is one parsed plain event with its text cut out of its bytes:
the *head* before the text's JSON string and the *tail* after it. A later
payload that starts with the head, ends with the tail and holds exactly one
JSON string between them parses to the template's JSON with that string as
the text — so an adapter reads the string and skips parsing and checking the
rest, which is most of what a plain event costs.

Why that holds: the head ends where a value begins and the tail begins where
one ends, so a JSON lexer reads them the same way whatever string sits
between them — a string is closed by its own quote. The string between them
is checked on its own to be exactly one JSON string (``orjson`` reads it
alone, with the same strictness it reads the document with: escapes,
surrogates, control characters and UTF-8).

Where the text is, is not guessed: :func:`learn` finds the text's JSON in the
payload where a value may begin (after a ``:``), puts a sentinel string there
and parses the result; the template is kept only if that parses to the
event's JSON with the sentinel in the text's place and nowhere else. A text
written with other escapes than ``orjson`` writes, or found as more than one
value, gives no template, and the adapter parses every event as before.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from operator import itemgetter
from typing import Any, Final

import orjson

__all__ = ["Cut", "Learner", "Path", "Template", "learn"]

#: A sentinel put in the text's place to find it (a JSON escape: ASCII in bytes
#: and in str), and the value it parses to.
_SENTINEL: Final = b'"\\u0001"'
_SENTINEL_VALUE: Final = "\x01"
#: Places the text may be looked for in one payload before giving up.
_MAX_LOOKS: Final = 64
_WHITE: Final = frozenset(b" \t\r\n")
_COLON: Final = ord(":")
#: Learning stops backing off at this many plain events between two attempts.
_MAX_GAP: Final = 1024
#: From this many payloads on, a stretch is first read as columns (see Cut.read).
_COLUMNS: Final = 4
_STR: Final = {str}

Path = tuple[str | int, ...]


class Cut:
    """A template's head and tail in one payload type (bytes, or str)."""

    __slots__ = ("data", "head", "heads", "middles", "skip_head", "skip_tail", "tail", "tails")

    def __init__(self, data: Any, head: str | bytes, tail: str | bytes) -> None:
        self.data = data  # the template's event's JSON (shared, never changed)
        self.head = head
        self.tail = tail
        self.skip_head = len(head)
        self.skip_tail = len(tail)  # (at least the closing brace)
        # C-level slicers for a whole stretch of payloads (see read)
        self.heads = itemgetter(slice(0, len(head)))
        self.tails = itemgetter(slice(-len(tail), None))
        self.middles = itemgetter(slice(len(head), -len(tail)))

    def read(
        self,
        payloads: Sequence[Any],
        start: int,
        events: Sequence[str],
        names: Container[str] | None,
        texts: list[str],
    ) -> int:
        """How many payloads from ``start`` on are this cut around one non-empty string.

        Their texts are added to ``texts``; the payload after them is not
        one (or there is none). With ``names``, an event's SSE type must be
        one of them too. (One call reads a whole stretch: a call per payload
        would cost a quarter of what reading one costs.)
        """
        count = len(payloads) - start
        if count >= _COLUMNS:
            # Usually the whole stretch is the cut: a few C-level passes over its
            # columns say so; else the loop below finds where it stops.
            read = self._whole_stretch(
                payloads[start:] if start else payloads, start, events, names
            )
            if read is not None:
                texts += read
                return count
        head, tail, skip_head, skip_tail = self.head, self.tail, self.skip_head, self.skip_tail
        loads = orjson.loads
        append = texts.append
        for i in range(start, len(payloads)):
            payload = payloads[i]
            if not (payload.startswith(head) and payload.endswith(tail)):
                return i - start
            if names is not None and events[i] not in names:
                return i - start
            try:
                text = loads(payload[skip_head : len(payload) - skip_tail])
            except orjson.JSONDecodeError:
                return i - start
            if type(text) is not str or not text:
                return i - start
            append(text)
        return count

    def _whole_stretch(
        self,
        stretch: Sequence[Any],
        start: int,
        events: Sequence[str],
        names: Container[str] | None,
    ) -> list[str] | None:
        """The texts of ``stretch`` if every payload of it is this cut's; else None."""
        count = len(stretch)
        if (
            list(map(self.heads, stretch)).count(self.head) != count
            or list(map(self.tails, stretch)).count(self.tail) != count
            or (names is not None and not all(map(names.__contains__, events[start:])))
        ):
            return None
        try:
            read = list(map(orjson.loads, map(self.middles, stretch)))
        except orjson.JSONDecodeError:
            return None
        return read if set(map(type, read)) == _STR and all(read) else None


class Template:
    """One plain event's JSON and its payload cut around the text, in bytes and in str."""

    __slots__ = ("by_type", "data")

    def __init__(self, data: Any, cuts: dict[type, Cut]) -> None:
        self.data = data  # the event's JSON (never changed: adapters only read it)
        self.by_type = cuts

    def text(self, payload: str | bytes) -> str | None:
        """The text of ``payload`` if it is the template's bytes around one non-empty string.

        None: parse the payload as usual.
        """
        cut = self.by_type.get(type(payload))
        texts: list[str] = []
        if cut is None or not cut.read([payload], 0, (), None, texts):
            return None
        return texts[0]


def learn(payload: str | bytes, data: Any, path: Path) -> Template | None:
    """A template of ``payload`` (parsed: ``data``) cut around the string at ``path``."""
    try:
        text = _at(data, path)
    except (KeyError, IndexError, TypeError):
        return None
    if type(text) is not str or not text or text == _SENTINEL_VALUE:
        return None
    raw = payload if isinstance(payload, bytes) else payload.encode()
    span = _span(raw, orjson.dumps(text))
    if span is None:
        return None
    head, tail = raw[: span[0]], raw[span[1] :]
    try:
        # With the text put back, a sentinel anywhere but at the path (or a path
        # the probe does not have) leaves the two unequal.
        probe = orjson.loads(head + _SENTINEL + tail)
        _at(probe, path[:-1])[path[-1]] = text
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return None
    if probe != data:
        return None
    # (the cuts are at a quote: ASCII, so both pieces are whole UTF-8)
    cuts: dict[type, Cut] = {
        bytes: Cut(data, head, tail),
        str: Cut(data, head.decode(), tail.decode()),
    }
    return Template(data, cuts)


class Learner:
    """An adapter's current template, and when it may try to learn another.

    Learning costs a few parses; a stream whose events differ in more than
    the text (a usage count that grows, a sequence number) would pay it on
    every event. So after each attempt the next waits for more plain events
    to have missed the template — 1, 2, 4, … up to :data:`_MAX_GAP` — until a
    template is used again.
    """

    __slots__ = ("current", "gap", "path", "wait")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current: Template | None = None
        self.wait = 0
        self.gap = 1

    def cut_for(self, payload: str | bytes) -> Cut | None:
        """The current template's cut for payloads of ``payload``'s type; None without one."""
        return self.current.by_type[type(payload)] if self.current is not None else None

    def missed(self, payload: str | bytes, data: Any) -> bool:
        """A plain event the current template did not match: learn from it, in time.

        Whether a new template was learned (:meth:`cut_for` gives it).
        """
        if self.wait:
            self.wait -= 1
            return False
        template = learn(payload, data, self.path)
        if template is not None:
            self.current = template
        self.wait = self.gap
        self.gap = min(self.gap * 2, _MAX_GAP)
        return template is not None

    def used(self) -> None:
        """The current template matched an event: learn at once after the next miss."""
        self.wait = 0
        self.gap = 1


def _at(data: Any, path: Sequence[str | int]) -> Any:
    for step in path:
        data = data[step]
    return data


def _span(raw: bytes, token: bytes) -> tuple[int, int] | None:
    """Where ``token`` is the one value (after ``:`` and white space); None if unsure."""
    found = None
    at = raw.find(token)
    for _ in range(_MAX_LOOKS):
        if at < 0:
            return found
        # (each run of white space is read back over by the token after it only)
        before = at - 1
        while before >= 0 and raw[before] in _WHITE:
            before -= 1
        if before >= 0 and raw[before] == _COLON:
            if found is not None:
                return None  # twice as a value: which one is the text is not clear
            found = (at, at + len(token))
        at = raw.find(token, at + 1)
    return None  # too many places to look: no template, rather than slow learning
