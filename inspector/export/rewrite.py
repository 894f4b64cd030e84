"""The byte-level rewrite of a recorded stream body.

Theory of operation
-------------------
The body is rewritten as one byte string (all chunks joined) and cut back
into chunks at the original boundaries. That is only correct if every
change keeps its length, so **every edit here replaces bytes by the same
number of bytes** — :func:`rewrite_body` checks it — and the offset map
from the original body to the new one is the identity. A chunk that ended
in the middle of a frame, of a JSON escape or of a UTF-8 character ends at
the same byte of the rewritten one.

1. Find every ``data:`` value (WHATWG line rules; a value spread over several
   ``data:`` lines is joined with ``\\n`` and mapped back), or take the whole
   body when it is one JSON document (an HTTP error body).
2. Lex each value (:mod:`.jsonlex`): every string with its key path, decoded
   into units. A value that stops being JSON is free text from there on.
3. Classify each string (:mod:`.rules`) and group the strings of one text —
   the deltas of one block — by stream key.
4. Decide per text: secrets (:mod:`.secrets`, searched on the decoded, joined
   text) become placeholders; ids get pseudonyms, signatures placeholders;
   with ``--text mask`` model text and tool-argument values are masked
   (:mod:`.mask`). Each changed unit is re-encoded in its own form and width.
5. Search the bytes outside all JSON strings (comments, event names,
   non-JSON data) for secrets too.

JSON syntax is never touched: only the content of strings (and, with
``--text mask``, the numbers of logprob ``bytes``) changes.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from .decoded import find_encoded_secrets
from .jsonlex import ESC, Units, decode_raw, decode_units, lex, render_unit
from .ledger import Context
from .mask import mask_char, mask_json_text, mask_number
from .pseudonyms import signature_placeholder
from .rules import NUMBER_MASK_KEYS, Treatment, classify, stream_key
from .secrets import placeholder

__all__ = ["RewriteError", "data_values", "rewrite_body"]

_BOM: Final = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")
# data values that are protocol sentinels, not JSON
_SENTINELS: Final = frozenset({b"[DONE]"})
# What a masked string counts as in the report, by treatment.
_MASK_LABEL: Final = {
    Treatment.TEXT: "model-text",
    Treatment.JSON_TEXT: "tool-arguments",
    Treatment.PROMPT: "request-echo",
}


class RewriteError(Exception):
    """An edit would have changed the body's length (a bug, never bad input)."""


@dataclass(slots=True)
class _Segments:
    """Where a joined ``data`` value's bytes sit in the body."""

    joined_starts: list[int]
    body_starts: list[int]
    lengths: list[int]

    def to_body(self, offset: int) -> int:
        """The body offset of joined offset ``offset`` (-1: a ``\\n`` joining two lines)."""
        if len(self.joined_starts) == 1:
            return self.body_starts[0] + offset
        i = bisect.bisect_right(self.joined_starts, offset) - 1
        if i < 0 or offset >= self.joined_starts[i] + self.lengths[i]:
            return -1
        return self.body_starts[i] + offset - self.joined_starts[i]


def data_values(body: bytes) -> Iterator[list[tuple[int, int]]]:
    """The byte spans of each event's ``data`` lines, event by event.

    Follows the WHATWG line rules; an event left without its blank line at
    the end is yielded too (its bytes are recorded and must be scrubbed even
    though no decoder dispatches them).
    """
    pos = len(_BOM) if body.startswith(_BOM) else 0
    spans: list[tuple[int, int]] = []
    n = len(body)

    def line(start: int, end: int) -> None:
        if body[start : start + 1] == b":":
            return  # a comment
        colon = body.find(b":", start, end)
        name_end = end if colon < 0 else colon
        if body[start:name_end] != b"data":
            return
        value = end if colon < 0 else colon + 1
        if value < end and body[value] == 0x20:
            value += 1
        spans.append((value, end))

    for m in _LINE_END.finditer(body, pos):
        if m.start() == pos:
            if spans:
                yield spans
                spans = []
        else:
            line(pos, m.start())
        pos = m.end()
    if pos < n:
        line(pos, n)
    if spans:
        yield spans


@dataclass(slots=True)
class _String:
    """One JSON string of the body, decoded into units, with their body offsets."""

    units: Units
    offsets: list[int]
    treatment: Treatment
    # unit index -> the bytes that replace it (same width)
    edits: dict[int, bytes] = field(default_factory=dict)


class _BodyRewriter:
    def __init__(self, body: bytes, ctx: Context) -> None:
        self.body = body
        self.ctx = ctx
        self.out = bytearray(body)
        self.covered = bytearray(len(body))  # 1: inside a JSON string already handled
        self.streams: dict[tuple[Any, ...], list[_String]] = {}
        self.singles: list[_String] = []

    # -- 1-3: find, lex and classify -----------------------------------------

    def collect(self, whole_json: bool) -> None:
        if whole_json:
            self._value([(0, len(self.body))])
            return
        for spans in data_values(self.body):
            self._value(spans)

    def _value(self, spans: list[tuple[int, int]]) -> None:
        body = self.body
        parts = [body[s:e] for s, e in spans]
        joined = b"\n".join(parts)
        if joined.strip() in _SENTINELS or not joined.strip():
            return
        starts = []
        at = 0
        for s, e in spans:
            starts.append(at)
            at += e - s + 1
        segments = _Segments(starts, [s for s, _ in spans], [e - s for s, e in spans])
        try:
            root: Any = orjson.loads(joined)
        except orjson.JSONDecodeError:
            root = None
        result = lex(joined)
        for token in result.tokens:
            if token.kind == "number":
                self._number(token.start, token.end, token.path, joined, segments)
                continue
            units = decode_units(joined[token.start : token.end])
            if token.kind == "key":
                treatment = Treatment.KEEP
            else:
                treatment = classify(token.path, _lookup(root, token.path[:-1]), root)
            string = self._string(units, token.start, segments, treatment)
            if treatment in (Treatment.TEXT, Treatment.JSON_TEXT, Treatment.PROMPT):
                key = (treatment, *stream_key(token.path, root))
                self.streams.setdefault(key, []).append(string)
            else:
                self.singles.append(string)
        if result.error is not None:
            # Past a syntax error nothing is known to be syntax: free text.
            units = decode_raw(joined[result.error :])
            string = self._string(units, result.error, segments, Treatment.TEXT)
            self.singles.append(string)

    def _string(
        self, units: Units, start: int, segments: _Segments, treatment: Treatment
    ) -> _String:
        covered = self.covered
        if len(segments.joined_starts) == 1:
            # One data line (nearly always): offsets are a running sum.
            base = segments.body_starts[0] + start
            offsets = list(itertools.accumulate(units.widths[:-1], initial=base))
            end = base + sum(units.widths)
            covered[base:end] = b"\x01" * (end - base)
            return _String(units, offsets if units.widths else [], treatment)
        offsets = []
        at = start
        for width in units.widths:
            offset = segments.to_body(at)
            offsets.append(offset)
            if offset >= 0:
                covered[offset : offset + width] = b"\x01" * width
            at += width
        return _String(units, offsets, treatment)

    def _number(
        self, start: int, end: int, path: tuple[str | int, ...], joined: bytes, seg: _Segments
    ) -> None:
        if not self.ctx.mask_text or not path or not isinstance(path[-1], int):
            return
        if len(path) < 2 or path[-2] not in NUMBER_MASK_KEYS:
            return
        offset = seg.to_body(start)
        if offset < 0 or seg.to_body(end - 1) != offset + end - start - 1:
            return
        self.out[offset : offset + end - start] = mask_number(joined[start:end])
        self.ctx.ledger.masked["logprob-bytes"] += 1

    # -- 4: decide ------------------------------------------------------------

    def decide(self) -> None:
        for strings in self.streams.values():
            self._secrets(strings)
            treatment = strings[0].treatment
            if treatment is Treatment.JSON_TEXT and self.ctx.mask_text:
                self._mask_json(strings)
            elif (treatment is Treatment.TEXT and self.ctx.mask_text) or (
                treatment is Treatment.PROMPT and not self.ctx.keep_request
            ):
                for string in strings:
                    self._mask_text(string)
        for string in self.singles:
            treatment = string.treatment
            if treatment is Treatment.ID:
                # A key pasted where an id goes is removed, not given a look-alike.
                if not self._secrets([string]):
                    self._replace_whole(string, self.ctx.pseudonym("id", string.units.chars))
            elif treatment is Treatment.OPAQUE:
                if string.units.chars:
                    self.ctx.ledger.placeholders["signature"] += 1
                self._replace_whole(string, signature_placeholder(string.units.chars))
            else:
                self._secrets([string])
                if treatment is Treatment.TEXT and self.ctx.mask_text:
                    self._mask_text(string)

    def _secrets(self, strings: list[_String]) -> bool:
        """Replace every secret in these strings (one text, joined); whether there was one."""
        text = "".join(s.units.chars for s in strings)
        matches = find_encoded_secrets(text)
        if not matches:
            return False
        where = _unit_index(strings)
        for match in matches:
            self.ctx.ledger.remove_all(match.rule, match.values)
            hits = [where(g) for g in range(match.start, match.end)]
            width = sum(s.units.widths[k] for s, k in hits if s.offsets[k] >= 0)
            fill = placeholder(match.rule, width).encode("ascii")
            used = 0
            for string, k in hits:
                if string.offsets[k] < 0:
                    continue
                w = string.units.widths[k]
                string.edits[k] = fill[used : used + w]
                used += w
        return True

    def _mask_text(self, string: _String) -> None:
        units = string.units
        changed = False
        for k, ch in enumerate(units.chars):
            if k in string.edits or units.forms[k] == ESC:
                continue
            masked = mask_char(ch)
            if masked != ch:
                string.edits[k] = render_unit(masked, units.forms[k], units.upper[k])
                changed = True
        if changed:
            self.ctx.ledger.masked[_MASK_LABEL[string.treatment]] += 1

    def _mask_json(self, strings: list[_String]) -> None:
        text = "".join(s.units.chars for s in strings)
        changes = mask_json_text(text)
        if not changes:
            return
        where = _unit_index(strings)
        touched: set[int] = set()
        for g, ch in changes.items():
            string, k = where(g)
            if k in string.edits or string.units.forms[k] == ESC:
                continue
            string.edits[k] = render_unit(ch, string.units.forms[k], string.units.upper[k])
            touched.add(id(string))
        if touched:
            self.ctx.ledger.masked["tool-arguments"] += len(touched)

    def _replace_whole(self, string: _String, new: str) -> None:
        units = string.units
        for k, (old, ch) in enumerate(zip(units.chars, new, strict=True)):
            if old != ch:
                form = units.forms[k]
                if form == ESC:
                    continue  # "\/" in an id: punctuation, kept
                string.edits[k] = render_unit(ch, form, units.upper[k])

    # -- apply, then 5: the bytes outside strings -----------------------------

    def apply(self) -> None:
        out = self.out
        for strings in (*self.streams.values(), self.singles):
            for string in strings:
                for k, new in string.edits.items():
                    offset = string.offsets[k]
                    width = string.units.widths[k]
                    if offset < 0:
                        continue
                    if len(new) != width:
                        raise RewriteError(
                            f"an edit at byte {offset} would turn {width} bytes into {len(new)}"
                        )
                    out[offset : offset + width] = new

    def scan_outside_strings(self) -> None:
        text = self.out.decode("latin-1")  # one char per byte: offsets stay byte offsets
        covered = self.covered
        for match in find_encoded_secrets(text):
            if any(covered[match.start : match.end]):
                continue
            self.ctx.ledger.remove_all(match.rule, match.values)
            width = match.end - match.start
            self.out[match.start : match.end] = placeholder(match.rule, width).encode("ascii")


def _lookup(root: Any, path: tuple[str | int, ...]) -> Any:
    node = root
    for step in path:
        if isinstance(step, str) and isinstance(node, dict):
            node = node.get(step)
        elif isinstance(step, int) and isinstance(node, list) and step < len(node):
            node = node[step]
        else:
            return None
    return node


def _unit_index(strings: list[_String]) -> Callable[[int], tuple[_String, int]]:
    """A function from an index into the joined text to ``(string, unit index)``."""
    starts = []
    at = 0
    for s in strings:
        starts.append(at)
        at += len(s.units.chars)

    def where(g: int) -> tuple[_String, int]:
        i = bisect.bisect_right(starts, g) - 1
        return strings[i], g - starts[i]

    return where


def rewrite_body(body: bytes, ctx: Context, *, whole_json: bool = False) -> bytes:
    """The anonymized body: the same length, the same syntax, the same offsets.

    ``whole_json`` reads the body as JSON documents rather than SSE (an HTTP
    error body). Counts and removed secrets go to ``ctx.ledger``.
    """
    rewriter = _BodyRewriter(body, ctx)
    rewriter.collect(whole_json)
    rewriter.decide()
    rewriter.apply()
    rewriter.scan_outside_strings()
    out = bytes(rewriter.out)
    if len(out) != len(body):
        raise RewriteError(f"the body changed length ({len(body)} -> {len(out)} bytes)")
    return out
