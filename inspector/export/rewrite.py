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
import operator
import re
from array import array
from collections.abc import Callable, Iterator
from typing import Any, Final

import orjson

from ..redact.shapes import placeholder
from .decoded import find_encoded_secrets
from .jsonlex import ESC, Units, decode_raw, decode_units, lex, render_unit
from .ledger import Context
from .mask import mask_char, mask_json_text, mask_number
from .pseudonyms import signature_placeholder
from .rules import (
    NUMBER_MASK_KEYS,
    Treatment,
    classify,
    discriminator_plan,
    key_reads_text,
    stream_key,
)

__all__ = ["RewriteError", "data_values", "rewrite_body", "rewrite_owned"]

#: Covered ranges up to this wide are blanked from a NUL string of their own width.
_OWN_ZEROS: Final = 1024
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


class _Segments:
    """Where a joined ``data`` value's bytes sit in the body."""

    # Plain classes here: a NamedTuple compiles each field's annotation at import.
    __slots__ = ("body_starts", "joined_starts", "lengths")

    def __init__(
        self, joined_starts: list[int], body_starts: list[int], lengths: list[int]
    ) -> None:
        self.joined_starts = joined_starts
        self.body_starts = body_starts
        self.lengths = lengths

    def to_body(self, offset: int) -> int:
        """The body offset of joined offset ``offset`` (-1: a ``\\n`` joining two lines)."""
        if len(self.joined_starts) == 1:
            return self.body_starts[0] + offset
        i = bisect.bisect_right(self.joined_starts, offset) - 1
        if i < 0 or offset >= self.joined_starts[i] + self.lengths[i]:
            return -1
        return self.body_starts[i] + offset - self.joined_starts[i]


def _data_span(body: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The value span of line ``body[start:end]`` when it is a ``data`` field."""
    if body[start : start + 1] == b":":
        return None  # a comment
    colon = body.find(b":", start, end)
    name_end = end if colon < 0 else colon
    if body[start:name_end] != b"data":
        return None
    value = end if colon < 0 else colon + 1
    if value < end and body[value] == 0x20:
        value += 1
    return value, end


def _lines_data_values(body: bytes, pos: int, n: int) -> Iterator[list[tuple[int, int]]]:
    """:func:`data_values` of ``body[pos:n]``, line by line (any line ends)."""
    spans: list[tuple[int, int]] = []
    for m in _LINE_END.finditer(body, pos, n):
        if m.start() == pos:
            if spans:
                yield spans
                spans = []
        else:
            span = _data_span(body, pos, m.start())
            if span is not None:
                spans.append(span)
        pos = m.end()
    if pos < n:
        span = _data_span(body, pos, n)
        if span is not None:
            spans.append(span)
    if spans:
        yield spans


def data_values(body: bytes) -> Iterator[list[tuple[int, int]]]:
    """The byte spans of each event's ``data`` lines, event by event.

    Follows the WHATWG line rules; an event left without its blank line at
    the end is yielded too (its bytes are recorded and must be scrubbed even
    though no decoder dispatches them).
    """
    pos = len(_BOM) if body.startswith(_BOM) else 0
    eol = _uniform_eol(body)
    if eol is not None:
        for _, spans in _uniform_events(body, pos, eol):
            yield spans
    else:
        yield from _lines_data_values(body, pos, len(body))


def _uniform_eol(body: bytes) -> bytes | None:
    """The one line end of every line of ``body`` (LF, or Gemini's CRLF); None for a mix."""
    if b"\r" not in body:
        return b"\n"
    if body.count(b"\r") == body.count(b"\r\n") == body.count(b"\n"):
        return b"\r\n"
    return None


def _uniform_events(
    body: bytes, pos: int, eol: bytes, resume: list[int] | None = None
) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """:func:`data_values` of a body whose every line ends with ``eol``, or the body's end.

    Yields ``(where the event starts, its data spans)``. An event runs to
    the next blank line (one C search), and an event that is one ``data:``
    line — nearly all — needs no line loop; the lines of another (``event:``
    and ``data:``, say) are found with one C search each. A position the
    caller puts in ``resume`` after a one-span event is where the next event
    starts (the caller read the events up to there itself).
    """
    n = len(body)
    step = len(eol)
    blank = eol + eol
    while pos < n:
        end = body.find(blank, pos)
        if end < 0:
            end = n
        if body.startswith(b"data:", pos) and body.find(eol, pos, end) < 0:
            value = pos + 5
            if value < end and body[value] == 0x20:
                value += 1
            yield pos, [(value, end)]
            if resume:
                pos = resume.pop()
                continue
        else:
            event = pos
            spans: list[tuple[int, int]] = []
            while pos < end:
                line_end = body.find(eol, pos, end)
                if line_end < 0:
                    line_end = end
                if line_end == pos:  # a blank line (an event of its own, ended early)
                    if spans:
                        yield event, spans
                        spans = []
                    event = pos + step
                else:
                    span = _data_span(body, pos, line_end)
                    if span is not None:
                        spans.append(span)
                pos = line_end + step
            if spans:
                yield event, spans
                if len(spans) == 1 and resume:
                    pos = resume.pop()
                    continue
        pos = end + 2 * step


# A JSON string: its content is group 1. Outside strings a JSON text has no
# quotes, so scanning from the start finds exactly its strings, in order.
_STRING = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)  # unrolled: one step per escape
# Outside strings a JSON document's numbers are made of these (and its
# literals of letters other than e): deleted, only the syntax is left.
_NUMBER_BYTES: Final = b"0123456789.eE+-"
# Shapes remembered per body (a stream has a handful; a hostile one, many).
_MAX_TEMPLATES: Final = 4096
_BLOCK: Final = 1 << 16  # bytes per step of a body-sized copy (small: no big temporaries)
# NUL bytes in a body up to which the final scan lists the covered ones rather than keep a mask.
_MAX_NULS: Final = 4096
_STREAMED: Final = frozenset({Treatment.TEXT, Treatment.JSON_TEXT, Treatment.PROMPT})
# How a template's value is filed: an id (decided once per distinct value),
# a fragment of a text (grouped by stream key), or anything else (on its own).
_ROLE_ID: Final = "id"
_ROLE_STREAMED: Final = "streamed"
# A fragment whose stream key reads only numbers of its document (Chat's
# ``choices[].index``): the key is remembered per template and numbers.
_ROLE_STREAMED_BY_NUMBERS: Final = "streamed-by-numbers"
_MAX_KEYS: Final = 4096  # remembered keys per template
_STREAMED_ROLES: Final = frozenset({_ROLE_STREAMED, _ROLE_STREAMED_BY_NUMBERS})
# A run of documents read by _by_run this many times in a row is read a block at a time
# (_run_block): its regexes are compiled once, so a stream whose runs are short never is.
_RUN_HITS: Final = 16
_RUN_BLOCK: Final = 512  # documents a regex match at most (its stack grows with them)
_MAX_RUN_LITERAL: Final = 4096  # longest lead, prefix and suffix a run's regex holds
# What JSON string content may not hold raw.
_CONTROL: Final = re.compile(rb"[\x00-\x1f]")
# --text mask for an ASCII string without escapes: one C call.
_ASCII_MASK: Final = bytes(
    0x78 if chr(b).isalpha() else 0x30 if chr(b).isdigit() else b for b in range(128)
) + bytes(range(128, 256))


class _String:
    """One JSON string of the body; decoded into units only when an edit needs them.

    ``raw`` is its content on the wire; ``base`` the body offset of its first
    byte when it sits on one ``data:`` line (``segments`` otherwise). A
    *simple* string — one line, ASCII, no escape — has one unit per byte, so
    a whole-string change is written as one ``blob``.
    """

    __slots__ = ("_edits", "_offsets", "_units", "base", "blob", "raw", "segments", "start",
                 "treatment")  # fmt: skip

    def __init__(
        self, raw: bytes, base: int, treatment: Treatment,
        segments: _Segments | None = None, start: int = 0,
    ) -> None:  # fmt: skip
        self.raw = raw
        self.base = base
        self.treatment = treatment
        self.segments = segments
        self.start = start
        # An empty dict is 64 bytes, and a stream has several strings a frame.
        self._edits: dict[int, bytes] | None = None
        self.blob: bytes | None = None  # the whole new content (simple strings only)
        self._units: Units | None = None
        self._offsets: list[int] | None = None

    @property
    def edits(self) -> dict[int, bytes]:
        """Unit index -> its new bytes (same width); made on first use."""
        if self._edits is None:
            self._edits = {}
        return self._edits

    @property
    def edited(self) -> bool:
        """Whether any unit has an edit (without making the dict)."""
        return bool(self._edits)

    @property
    def simple(self) -> bool:
        return self.segments is None and self.raw.isascii() and b"\\" not in self.raw

    @property
    def chars(self) -> str:
        if self._units is None and b"\\" not in self.raw:
            return self.raw.decode("utf-8", "surrogateescape")
        return self.units.chars

    @property
    def units(self) -> Units:
        if self._units is None:
            self._units = decode_units(self.raw)
        return self._units

    @property
    def offsets(self) -> list[int]:
        """The body offset of each unit (-1: a ``\\n`` joining two data lines)."""
        if self._offsets is None:
            widths = self.units.widths
            if self.segments is None:
                self._offsets = list(itertools.accumulate(widths[:-1], initial=self.base))
                if not widths:
                    self._offsets = []
            else:
                offsets = []
                at = self.start
                for width in widths:
                    offsets.append(self.segments.to_body(at))
                    at += width
                self._offsets = offsets
        return self._offsets


class _Fragments:
    """The strings of one text while the body is read, most held as bytes and an offset only.

    A fragment that is a simple string at one offset (nearly every delta)
    costs a list slot and an array entry here instead of a :class:`_String`
    (~130 bytes less each, and a long stream has hundreds of thousands):
    they become strings (:meth:`strings`) once the body has been let go of,
    so the strings are never all there beside the body and its edited copy.
    Every fragment of one text has the text's treatment.
    """

    __slots__ = ("bases", "items", "treatment")

    def __init__(self, treatment: Treatment) -> None:
        self.items: list[bytes | _String] = []
        self.bases = array("q")  # a bytes item's offset (-1 beside a _String)
        self.treatment = treatment

    def add(self, raw: bytes, base: int) -> None:
        """A one-line string ``raw`` at body offset ``base``."""
        self.items.append(raw)
        self.bases.append(base)

    def append(self, string: _String) -> None:
        """A string made already (spread over data lines, or read by the lexer)."""
        self.items.append(string)
        self.bases.append(-1)

    def plain(self) -> bool:
        """Whether every fragment is still bytes and an offset (:meth:`add`)."""
        return -1 not in self.bases

    def raws(self) -> list[bytes]:
        """The fragments of :meth:`plain` fragments (all bytes)."""
        return self.items  # type: ignore[return-value]

    def text(self) -> str:
        """The text of :meth:`plain` fragments: the ``chars`` of their strings, joined."""
        items = self.raws()
        joined = b"".join(items)
        if joined.isascii() and b"\\" not in joined:
            return joined.decode("ascii")
        del joined
        return "".join(
            raw.decode("utf-8", "surrogateescape") if b"\\" not in raw else decode_units(raw).chars
            for raw in items
        )

    def strings(self) -> list[_String]:
        """Every fragment as a :class:`_String`, in order."""
        treatment = self.treatment
        return [
            item if isinstance(item, _String) else _String(item, base, treatment)
            for item, base in zip(self.items, self.bases, strict=True)
        ]


class _Template:
    """Where the strings of one document shape are, and what each is.

    ``strings`` (keys and values, counted) in document order; ``values``:
    ``(part, path, treatment, plan, role)`` of every value not kept as is:
    ``part`` is where its content is in the document split at its strings
    (string n: part 2n+1), ``plan`` the discriminators of its stream key (for
    texts), ``role`` how the rewriter files it (:data:`_ROLE_ID`,
    :data:`_ROLE_STREAMED`, :data:`_ROLE_STREAMED_BY_NUMBERS`, or None: a
    string decided on its own).
    """

    __slots__ = ("keys", "strings", "values")

    def __init__(
        self,
        strings: int,
        values: tuple[tuple[int, tuple[str | int, ...], Treatment, Any, str | None], ...],
        keys: dict[tuple[int, bytes], tuple[Any, ...]],
    ) -> None:
        self.strings = strings
        self.values = values
        # (part, the document's syntax with its numbers) -> stream key, for
        # values filed by _ROLE_STREAMED_BY_NUMBERS
        self.keys = keys


def _template(joined: bytes, root: Any) -> _Template | None:
    """The template of one parsed document (None if the lexer and the regex disagree)."""
    result = lex(joined)
    if result.error is not None:
        return None
    strings = [t for t in result.tokens if t.kind != "number"]
    spans = [m.span(1) for m in _STRING.finditer(joined)]
    if spans != [(t.start, t.end) for t in strings] or not all(t.terminated for t in strings):
        return None
    values = []
    for ordinal, token in enumerate(strings):
        if token.kind == "key":
            continue
        treatment = classify(token.path, _lookup(root, token.path[:-1]), root)
        if treatment is not Treatment.KEEP:
            streamed = treatment in _STREAMED
            plan = discriminator_plan(token.path, root) if streamed else None
            role = _ROLE_STREAMED if streamed else _ROLE_ID if treatment is Treatment.ID else None
            if plan is not None and not key_reads_text(token.path, root, plan):
                role = _ROLE_STREAMED_BY_NUMBERS
            values.append((2 * ordinal + 1, token.path, treatment, plan, role))
    return _Template(len(strings), tuple(values), {})


def _key_getter(parts: list[bytes]) -> Callable[[list[bytes]], Any]:
    """A function from the parts of a document of this syntax to its key strings.

    A string is a key when the syntax after it starts with ``:``; documents
    whose syntax (numbers aside) is the same have their keys at the same parts.
    """
    indexes = [i for i in range(1, len(parts) - 1, 2) if parts[i + 1].lstrip()[:1] == b":"]
    if not indexes:
        return lambda parts: ()
    return operator.itemgetter(*indexes)


class _Run:
    """A remembered one-text document (:meth:`_BodyRewriter._remember_run`).

    ``entries``: ``(at, raw, treatment, role, after)`` of each value in order,
    ``raw`` None for the text; ``at`` where it starts, for a value ``after``
    the text as if the text were empty. ``stream``: the text's stream.
    """

    __slots__ = ("entries", "prefix", "stream", "suffix")

    def __init__(
        self,
        prefix: bytes,
        suffix: bytes,
        entries: tuple[tuple[int, bytes | None, Treatment, str | None, bool], ...],
        stream: _Fragments,
    ) -> None:
        self.prefix = prefix
        self.suffix = suffix
        self.entries = entries
        self.stream = stream


class _BodyRewriter:
    def __init__(self, body: bytes, ctx: Context) -> None:
        self.body = body
        self.ctx = ctx
        self.mask_text = ctx.mask_text
        self.out = bytearray(body)
        # Where the strings handled on its own are (the final scan skips them):
        # noted once every string is read (:meth:`note_covered`). Kept strings
        # — keys, types, models — are left to that scan. A mask (0xFF: covered)
        # only for a body with many NULs (:meth:`_masked_text`).
        self.covered_starts: array[int] = array("q")
        self.covered_widths: array[int] = array("q")
        self.covered = bytearray()
        # Each text's fragments by stream key while the body is read; made
        # into strings (``streams``) once it is let go of (:meth:`decide`).
        self.fragments: dict[tuple[Any, ...], _Fragments] = {}
        self.streams: dict[tuple[Any, ...], list[_String]] = {}
        self.untouched: list[_Fragments] = []  # texts left as they are (decide)
        self.singles: list[_String] = []
        self.templates: dict[tuple[bytes, Any, Any], _Template] = {}
        # syntax between strings -> the key strings of a document with it
        self.key_getters: dict[bytes, Callable[[list[bytes]], Any]] = {}
        # A simple id string (ASCII, no escape) seen in a template document:
        # its first string, and where the same bytes recur (written like it).
        # (The starts in an array: a list would hold an int object for each.)
        self.id_repeats: dict[bytes, tuple[_String, array[int]]] = {}
        self.run: _Run | None = None  # the last one-text document filed by template
        self.run_hits = 0  # documents _by_run filed since ``run`` was remembered
        # (run, lead, its patterns) of the last run _run_block read
        self.run_block: tuple[_Run, bytes, Any] | None = None
        self.clean_ids: dict[str, bool] = {}  # id -> holds no secret

    # -- 1-3: find, lex and classify -----------------------------------------

    def collect(self, whole_json: bool) -> None:
        if whole_json:
            self._value([(0, len(self.body))])
            return
        body = self.body
        pos = len(_BOM) if body.startswith(_BOM) else 0
        eol = _uniform_eol(body)
        if eol is None:
            for spans in _lines_data_values(body, pos, len(body)):
                self._event(spans)
            return
        by_run = self._by_run
        by_template = self._by_template
        blank = eol + eol
        resume: list[int] = []
        for event, spans in _uniform_events(body, pos, eol, resume):
            if len(spans) == 1:  # nearly every event: its one data line read here
                start, end = spans[0]
                joined = body[start:end]
                stripped = joined.strip()
                if stripped in _SENTINELS or not stripped:
                    continue
                if by_run(joined, start):
                    if self.run_hits >= _RUN_HITS and body.startswith(blank, end):
                        # A run of such documents: the ones that follow, at once.
                        after = self._run_block(body[event:start], end + len(blank), eol)
                        if after is not None:
                            resume.append(after)
                    continue
                if by_template(joined, start):
                    continue
            self._lexed(spans)

    def _event(self, spans: list[tuple[int, int]]) -> None:
        """One event's data spans, read like :meth:`collect` reads them."""
        if len(spans) == 1:
            start, end = spans[0]
            joined = self.body[start:end]
            stripped = joined.strip()
            if (
                stripped in _SENTINELS
                or not stripped
                or self._by_run(joined, start)
                or self._by_template(joined, start)
            ):
                return
        self._lexed(spans)

    def _run_block(self, lead: bytes, pos: int, eol: bytes) -> int | None:
        """The events from ``pos`` on that :meth:`_by_run` would file, filed at once; their end.

        Each is ``lead`` (its lines before the data value, as the event just
        filed had them), the remembered run's prefix, a text, its suffix and
        a blank line: found with one regex match a block of them, their texts
        with one ``findall``, and every offset by arithmetic over their
        lengths — exactly what filing them one by one does. None when not
        even one event follows that way (or the run is not one this can do:
        a value other than the text and ids already seen, say).
        """
        run = self.run
        assert run is not None
        if self.run_block is None or self.run_block[0] is not run or self.run_block[1] != lead:
            if self.run_block is not None and self.run_block[0] is run:
                return None  # one pattern a run: a lead that changes is read one by one
            self.run_block = (run, lead, self._block_patterns(run, lead, eol))
        patterns = self.run_block[2]
        if patterns is None:
            return None
        block, texts_of = patterns
        body = self.body
        found = block.match(body, pos)
        if found is None:
            return None
        texts = texts_of.findall(body, pos, found.end())
        if not all(map(bytes.isascii, texts)):
            for i, text in enumerate(texts):
                try:
                    text.decode("utf-8")
                except UnicodeDecodeError:
                    del texts[i:]  # by_run refuses it: read from there on one by one
                    break
            if not texts:
                return None
        lengths = list(map(len, texts))
        fixed = len(lead) + len(run.prefix) + len(run.suffix) + 2 * len(eol)
        # Where each event starts, and where the next one does.
        starts = array("q", itertools.accumulate(map(fixed.__add__, lengths), initial=pos))
        end = starts.pop()
        value = len(lead)
        for at, raw, _treatment, _role, after in run.entries:
            if raw is None:
                run.stream.items.extend(texts)
                run.stream.bases.extend(map((value + at).__add__, starts))
            elif after:
                ends = map(operator.add, starts, lengths)
                self.id_repeats[raw][1].extend(map((value + at).__add__, ends))
            else:
                self.id_repeats[raw][1].extend(map((value + at).__add__, starts))
        return end

    def _block_patterns(
        self, run: _Run, lead: bytes, eol: bytes
    ) -> tuple[re.Pattern[bytes], re.Pattern[bytes]] | None:
        """The regexes of :meth:`_run_block` for ``run``; None if it cannot file this run."""
        if len(lead) + len(run.prefix) + len(run.suffix) > _MAX_RUN_LITERAL:
            return None
        for _at, raw, _treatment, role, _after in run.entries:
            if raw is not None and (role is not _ROLE_ID or raw not in self.id_repeats):
                return None  # filed on its own each time: one by one
        head = re.escape(lead + run.prefix)
        tail = re.escape(run.suffix + eol + eol)
        # The text: what _by_run accepts but for UTF-8 (checked after).
        text = rb'[^"\\\x00-\x1f]*'
        block = re.compile(b"(?:%s%s%s){1,%d}" % (head, text, tail, _RUN_BLOCK))
        return block, re.compile(b"%s(%s)%s" % (head, text, tail))

    def _value(self, spans: list[tuple[int, int]]) -> None:
        if len(spans) == 1:
            start, end = spans[0]
            joined = self.body[start:end]
            stripped = joined.strip()
            if stripped in _SENTINELS or not stripped or self._by_template(joined, start):
                return
        self._lexed(spans)

    def _lexed(self, spans: list[tuple[int, int]]) -> None:
        """A data value read by the lexer: every string classified on its own."""
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
            if token.kind == "key":
                treatment = Treatment.KEEP
            else:
                treatment = classify(token.path, _lookup(root, token.path[:-1]), root)
            string = self._string(joined[token.start : token.end], token.start, segments, treatment)
            if treatment in _STREAMED:
                key = (treatment, *stream_key(token.path, root))
                self._stream(key).append(string)
            else:
                self.singles.append(string)
        if result.error is not None:
            # Past a syntax error nothing is known to be syntax: free text.
            rest = joined[result.error :]
            string = self._string(rest, result.error, segments, Treatment.TEXT, decode_raw(rest))
            self.singles.append(string)

    def _by_template(self, joined: bytes, base: int) -> bool:
        """The fast path for a one-line JSON document of a shape seen before."""
        if b'"data"' in joined or (self.mask_text and b'"bytes"' in joined):
            return False  # treatments that depend on a sibling, or numbers to mask
        try:
            root: Any = orjson.loads(joined)
        except orjson.JSONDecodeError:
            return False
        # orjson makes exact dicts, lists and strs: type() is enough, and cheaper.
        if type(root) is dict:
            kind = root.get("type")
            if type(kind) is not str:
                kind = None
        elif type(root) is list:
            kind = None
        else:
            return False
        # One C pass: the bytes between strings and the strings' contents
        # alternate, string n's content at 2n+1. Without a backslash a valid
        # document's strings are exactly what lies between its quotes.
        parts = joined.split(b'"') if b"\\" not in joined else _STRING.split(joined)
        # The syntax between strings, numbers deleted: with the keys, the shape.
        between = b'"'.join(parts[0::2])
        syntax = between.translate(None, _NUMBER_BYTES)
        keys_of = self.key_getters.get(syntax)
        if keys_of is None:
            keys_of = _key_getter(parts)
            if len(self.key_getters) < _MAX_TEMPLATES:
                self.key_getters[syntax] = keys_of
        shape = (syntax, keys_of(parts), kind)
        template = self.templates.get(shape)
        if template is None:
            template = _template(joined, root)
            if template is None:
                return False
            if len(self.templates) < _MAX_TEMPLATES:
                self.templates[shape] = template
        if len(parts) != 2 * template.strings + 1:
            return False
        # Where each part ends, quotes not counted: part i (string (i-1)/2) starts i bytes later.
        ends = list(itertools.accumulate(map(len, parts)))
        stream: _Fragments | None = None
        for i, path, treatment, plan, role in template.values:
            raw = parts[i]
            start = base + ends[i - 1] + i
            if role is _ROLE_ID:
                first = self.id_repeats.get(raw)
                if first is not None:  # an id seen before: decided once, written everywhere
                    first[1].append(start)
                    continue
                string = _String(raw, start, treatment)
                self.singles.append(string)
                if raw.isascii() and b"\\" not in raw:
                    self.id_repeats[raw] = (string, array("q"))
            elif role is _ROLE_STREAMED_BY_NUMBERS:
                known = template.keys.get((i, between))
                if known is None:
                    known = (treatment, *stream_key(path, root, plan))
                    if len(template.keys) < _MAX_KEYS:
                        template.keys[(i, between)] = known
                stream = self._stream(known)
                stream.add(raw, start)
            elif role is _ROLE_STREAMED:
                stream = self._stream((treatment, *stream_key(path, root, plan)))
                stream.add(raw, start)
            else:
                self.singles.append(_String(raw, start, treatment))
        if b"\\" not in joined:
            self._remember_run(template, parts, ends, joined, stream)
        return True

    def _stream(self, key: tuple[Any, ...]) -> _Fragments:
        """The fragments of stream ``key`` (a new one is added at the end)."""
        stream = self.fragments.get(key)
        if stream is None:
            stream = self.fragments[key] = _Fragments(key[0])
        return stream

    def _remember_run(
        self,
        template: _Template,
        parts: list[bytes],
        ends: list[int],
        joined: bytes,
        stream: _Fragments | None,
    ) -> None:
        """Keep what the next document needs to be filed like this one but for its text.

        A document that has exactly one text fragment is remembered as the
        bytes before and after that fragment, with where every value sits and
        how it was filed. A later document made of the same bytes around
        another fragment (the next delta of the same text, nearly always) is
        the same shape with the same numbers, ids and stream key:
        :meth:`_by_run` files it without parsing it. ``stream`` is where
        this document's fragment went.
        """
        streamed = [v for v in template.values if v[4] in _STREAMED_ROLES]
        if len(streamed) != 1 or stream is None:
            self.run = None
            self.run_hits = 0
            return
        text_part = streamed[0][0]
        text_at = ends[text_part - 1] + text_part  # in ``joined``
        text_end = text_at + len(parts[text_part])
        entries = []
        for i, _path, treatment, _plan, role in template.values:
            # Where the value starts; one after the text: as if the text were empty.
            at = ends[i - 1] + i - (len(parts[text_part]) if i > text_part else 0)
            raw = None if i == text_part else parts[i]
            entries.append((at, raw, treatment, role, i > text_part))
        self.run = _Run(joined[:text_at], joined[text_end:], tuple(entries), stream)
        self.run_hits = 0

    def _by_run(self, joined: bytes, base: int) -> bool:
        """A document that is the last remembered one but for its text (:meth:`_remember_run`)."""
        run = self.run
        if run is None:
            return False
        prefix, suffix = run.prefix, run.suffix
        if not (joined.startswith(prefix) and joined.endswith(suffix)):
            return False
        text_end = len(joined) - len(suffix)
        if text_end < len(prefix):
            return False
        text = joined[len(prefix) : text_end]
        # The document is valid JSON exactly when the new text is valid string
        # content: no quote, backslash or control character, and UTF-8.
        if b'"' in text or b"\\" in text or _CONTROL.search(text) is not None:
            return False
        if not text.isascii():
            try:
                text.decode("utf-8")
            except UnicodeDecodeError:
                return False
        grown = len(text)
        for at, raw, treatment, role, after in run.entries:
            if raw is None:  # the text
                run.stream.add(text, base + at)
                continue
            start = base + at + (grown if after else 0)
            if role is _ROLE_ID:
                first = self.id_repeats.get(raw)
                if first is not None:
                    first[1].append(start)
                    continue
                string = _String(raw, start, treatment)
                self.singles.append(string)
                if raw.isascii():  # (no backslash: the document has none)
                    self.id_repeats[raw] = (string, array("q"))
            else:
                self.singles.append(_String(raw, start, treatment))
        self.run_hits += 1
        return True

    def _string(
        self,
        raw: bytes,
        start: int,
        segments: _Segments,
        treatment: Treatment,
        units: Units | None = None,
    ) -> _String:
        """A string of a document read by the lexer; ``units`` when it is not JSON content."""
        if len(segments.joined_starts) == 1:
            string = _String(raw, segments.body_starts[0] + start, treatment)
        else:
            string = _String(raw, -1, treatment, segments, start)
        string._units = units
        return string

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

    def _masked(self, treatment: Treatment) -> bool:
        """Whether the strings of a text of this treatment are masked."""
        if treatment is Treatment.JSON_TEXT or treatment is Treatment.TEXT:
            return self.ctx.mask_text
        return treatment is Treatment.PROMPT and not self.ctx.keep_request

    def decide(self) -> None:
        # A text nothing is done to - not masked, no secret in it (nearly every
        # text with --text keep) - keeps its fragments as bytes and offsets: no
        # string objects for its ~130,000 deltas on a 30 MB stream.
        self.streams = {}
        for key, stream in self.fragments.items():
            if (
                not self._masked(stream.treatment)
                and stream.plain()
                and not find_encoded_secrets(stream.text())
            ):
                self.untouched.append(stream)
                continue
            self.streams[key] = stream.strings()
        self.fragments = {}
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
                self._id(string)
            elif treatment is Treatment.OPAQUE:
                chars = string.chars
                if chars:
                    self.ctx.ledger.placeholders["signature"] += 1
                self._replace_whole(string, signature_placeholder(chars))
            else:
                self._secrets([string])
                if treatment is Treatment.TEXT and self.ctx.mask_text:
                    self._mask_text(string)

        for first, repeats in self.id_repeats.values():
            if repeats and first.edited:
                # Not one blob (a secret in it, say): every copy decided on its own.
                for start in repeats:
                    string = _String(first.raw, start, Treatment.ID)
                    self._id(string)
                    self.singles.append(string)
                repeats.clear()

    def _id(self, string: _String) -> None:
        # A key pasted where an id goes is removed, not given a look-alike.
        # (One id repeats in every frame: whether it holds one is asked once.)
        chars = string.chars
        clean = self.clean_ids.get(chars)
        if clean is None:
            clean = self.clean_ids[chars] = not find_encoded_secrets(chars)
        if clean or not self._secrets([string]):
            self._replace_whole(string, self.ctx.pseudonym("id", string.chars))

    def _secrets(self, strings: list[_String]) -> bool:
        """Replace every secret in these strings (one text, joined); whether there was one."""
        text = "".join(s.chars for s in strings)
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
        if string.simple and not string.edited:
            blob = string.raw.translate(_ASCII_MASK)
            if blob != string.raw:
                string.blob = blob
                self.ctx.ledger.masked[_MASK_LABEL[string.treatment]] += 1
            return
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
        text = "".join(s.chars for s in strings)
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
        if string.simple and not string.edited:
            blob = new.encode("utf-8", "surrogateescape")
            if len(blob) == len(string.raw):
                string.blob = blob if blob != string.raw else None
                return
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
                if string.blob is not None:
                    if len(string.blob) != len(string.raw):
                        raise RewriteError(f"an edit at byte {string.base} changes its length")
                    out[string.base : string.base + len(string.raw)] = string.blob
                if not string.edited:
                    continue
                offsets = string.offsets
                widths = string.units.widths
                for k, new in string.edits.items():
                    offset = offsets[k]
                    width = widths[k]
                    if offset < 0:
                        continue
                    if len(new) != width:
                        raise RewriteError(
                            f"an edit at byte {offset} would turn {width} bytes into {len(new)}"
                        )
                    out[offset : offset + width] = new
        for first, repeats in self.id_repeats.values():
            blob = first.blob
            if blob is not None and repeats:
                if len(blob) != len(first.raw):
                    raise RewriteError(f"an edit at byte {first.base} changes its length")
                width = len(blob)
                for start in repeats:
                    out[start : start + width] = blob

    def note_covered(self) -> None:
        """Note where every string handled on its own is: the covered bytes, as ranges.

        Every such string is in a stream or among the singles, and an id
        written again is at the starts its first string lists: together they
        are exactly the bytes the collection handled. Kept as two arrays
        (starts and widths), not a mask as long as the body.
        """
        starts, widths = self.covered_starts, self.covered_widths = array("q"), array("q")
        add_start, add_width = starts.append, widths.append
        for strings in (*self.streams.values(), self.singles):
            for string in strings:
                if string.segments is None:
                    add_start(string.base)
                    add_width(len(string.raw))
                    continue
                for offset, width in zip(string.offsets, string.units.widths, strict=True):
                    if offset >= 0:
                        add_start(offset)
                        add_width(width)
        for first, repeats in self.id_repeats.values():
            starts.extend(repeats)
            widths.extend(array("q", [len(first.raw)]) * len(repeats))
        for stream in self.untouched:  # one-line strings, each at its offset
            starts.extend(stream.bases)
            widths.extend(array("q", map(len, stream.raws())))

    def release_strings(self) -> None:
        """Drop every string and template once applied (most of the rewriter's memory)."""
        self.streams = {}
        self.untouched = []
        self.singles = []
        self.templates = {}
        self.key_getters = {}
        self.id_repeats = {}
        self.run = None
        self.run_block = None
        self.clean_ids = {}

    def _blanked_text(self) -> tuple[str, bytearray]:
        """The body with every covered byte made NUL, and the covered bytes: the final scan's text.

        The covered strings (already scanned, often full of escapes) cost
        nothing more here. NUL, like any byte no pattern names, matches only
        where any character does (and such a match over a covered byte is
        skipped); it also lower-cases to no rule's literal, so most rules are
        not even run.

        The covered bytes are taken out of the edited body (kept aside: a
        small part of it), and the body is given up once read as this text:
        the text and the kept bytes are all of it (:meth:`_put_back`), so
        the scan holds one body-sized buffer besides the text's lower-cased
        copy, not two.
        """
        out = self.out
        kept = bytearray()
        # Through a view of the body (its slices copy nothing) and one NUL string
        # per width: half the time of slicing the bytearray (a 30 MB chat stream
        # has ~265,000 ranges). Only short widths get their own string: crafted
        # strings of every length up to n would otherwise make n²/2 bytes of them.
        widths = self.covered_widths
        longest = memoryview(bytes(max(widths, default=0)))
        zeros = {width: bytes(width) for width in set(widths) if width <= _OWN_ZEROS}
        with memoryview(out) as view:
            for start, width in zip(self.covered_starts, widths, strict=True):
                end = start + width
                kept += view[start:end]
                view[start:end] = zeros[width] if width <= _OWN_ZEROS else longest[:width]
        text = out.decode("latin-1")  # one char per byte: byte offsets
        self.out = bytearray()
        del out
        return text, kept

    def _put_back(self, text: str, kept: bytearray) -> set[int]:
        """The edited body again, from :meth:`_blanked_text`'s text and kept bytes.

        Returns the covered NULs of the body: a byte is covered if it is NUL
        in the text and not in the body, or one of these.
        """
        out = self.out = bytearray(len(text))
        for at in range(0, len(text), _BLOCK):
            out[at : at + _BLOCK] = text[at : at + _BLOCK].encode("latin-1")
        starts, widths = self.covered_starts, self.covered_widths
        # Put back in reverse order: were two ranges to overlap, the first
        # one's bytes (taken before either was blanked) are written last.
        at = len(kept)
        with memoryview(kept) as pieces, memoryview(out) as view:
            for start, width in zip(reversed(starts), reversed(widths), strict=True):
                at -= width
                view[start : start + width] = pieces[at : at + width]
        covered_nuls: set[int] = set()
        if 0 in kept:  # rare: a covered string with a NUL byte
            for start, width in zip(starts, widths, strict=True):
                nul = out.find(0, start, start + width)
                while nul >= 0:
                    covered_nuls.add(nul)
                    nul = out.find(0, nul + 1, start + width)
        self.covered_starts = self.covered_widths = array("q")
        return covered_nuls

    def _masked_text(self) -> str:
        """:meth:`_blanked_text`'s text for a body with many NULs (a hostile stream).

        The covered NULs would be too many to list: a mask of the covered
        bytes (0xFF) is kept in ``covered`` instead, beside the body.
        """
        out = self.out
        covered = self.covered = bytearray(len(out))
        for start, width in zip(self.covered_starts, self.covered_widths, strict=True):
            covered[start : start + width] = b"\xff" * width
        merged = bytearray(len(out))
        for at in range(0, len(out), _BLOCK):
            block = out[at : at + _BLOCK]
            mask = int.from_bytes(covered[at : at + _BLOCK], "little")
            value = (int.from_bytes(block, "little") | mask) ^ mask
            merged[at : at + len(block)] = value.to_bytes(len(block), "little")
        return merged.decode("latin-1")

    def _touches_covered(self, text: str, start: int, end: int, nuls: set[int] | None) -> bool:
        """Whether ``text[start:end]`` holds a covered byte (see :meth:`_put_back`)."""
        if nuls is None:
            return any(self.covered[start:end])
        out = self.out
        at = text.find("\0", start, end)
        while at >= 0:
            if out[at] or at in nuls:
                return True
            at = text.find("\0", at + 1, end)
        return False

    def scan_outside_strings(self) -> None:
        """Secrets in what no string handled: kept strings, syntax, comments, event names."""
        nuls: set[int] | None
        if self.out.count(0) > _MAX_NULS:
            text, nuls = self._masked_text(), None
            matches = find_encoded_secrets(text)
        else:
            text, kept = self._blanked_text()
            matches = find_encoded_secrets(text)
            nuls = self._put_back(text, kept)
            del kept
        # Every match is judged before any is written over: the test reads the body.
        found = [
            match
            for match in matches
            if not self._touches_covered(text, match.start, match.end, nuls)
        ]
        del text, matches
        for match in found:
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
        at += len(s.chars)

    def where(g: int) -> tuple[_String, int]:
        i = bisect.bisect_right(starts, g) - 1
        return strings[i], g - starts[i]

    return where


def rewrite_body(body: bytes, ctx: Context, *, whole_json: bool = False) -> bytes:
    """The anonymized body: the same length, the same syntax, the same offsets.

    ``whole_json`` reads the body as JSON documents rather than SSE (an HTTP
    error body). Counts and removed secrets go to ``ctx.ledger``.
    """
    return rewrite_owned([body], ctx, whole_json=whole_json)


def rewrite_owned(holder: list[bytes], ctx: Context, *, whole_json: bool = False) -> bytes:
    """:func:`rewrite_body` of the one body in ``holder``, taken out of it.

    When the holder held the only reference, the original body is freed as
    soon as it has been read, before the rewriter's own copies peak.
    """
    body = holder.pop()
    size = len(body)
    rewriter = _BodyRewriter(body, ctx)
    del body
    rewriter.collect(whole_json)
    rewriter.body = b""  # every string is read: only the edited copy is needed now
    rewriter.decide()
    rewriter.apply()
    rewriter.note_covered()
    rewriter.release_strings()  # the final scan reads only the bytes and the covered mask
    rewriter.scan_outside_strings()
    # Free the rewriter's strings and masks before the result is copied out.
    edited = rewriter.out
    del rewriter
    out = bytes(edited)
    del edited
    if len(out) != size:
        raise RewriteError(f"the body changed length ({size} -> {len(out)} bytes)")
    return out
