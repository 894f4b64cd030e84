"""Step 1 of the rewrite: read the body and file every string to be decided.

Each ``data:`` value (:mod:`.lines`), or the whole body when it is one JSON
document, is read into strings: a text's fragments grouped by stream key
(:class:`~.strings.Fragments`), every other string to decide on its own, ids
seen again listed where they recur. Three shortcuts read a stream's common
documents without the lexer, each giving exactly what the lexer's reading
gives (tests compare both for every bundled capture): a document of a shape
seen before is read off its :class:`~.shapes.Template`; the next delta of the
same text, off the last :class:`~.shapes.Run`; a long run of those, a block
of events with one regex match. :class:`Shortcuts` turns them off, for those
tests and for ``--reference`` style comparisons.
"""

from __future__ import annotations

import itertools
import operator
import re
import sys
from array import array
from collections.abc import Callable, Iterator
from typing import Any, Final

import orjson

from ...core.sse.lines import BOM, DATA, body_lines, uniform_line_end
from ..jsonlex import Units, decode_raw, lex
from ..ledger import Context
from ..mask import mask_number
from ..rules import NUMBER_MASK_KEYS, Treatment, classify, stream_key
from .shapes import (
    MAX_KEYS,
    MAX_TEMPLATES,
    NUMBER_BYTES,
    ROLE_ID,
    ROLE_STREAMED,
    ROLE_STREAMED_BY_NUMBERS,
    STREAMED,
    STREAMED_ROLES,
    STRING,
    Run,
    Template,
    key_getter,
    lookup,
    template_of,
)
from .strings import Fragments, Segments, String

__all__ = ["FAST", "REFERENCE", "Collected", "Shortcuts", "collect", "data_values"]

# data values that are protocol sentinels, not JSON
_SENTINELS: Final = frozenset({b"[DONE]"})
# A run of documents read by _by_run this many times in a row is read a block at a time
# (_run_block): its regexes are compiled once, so a stream whose runs are short never is.
_RUN_HITS: Final = 16
_RUN_BLOCK: Final = 512  # documents a regex match at most (its stack grows with them)
_MAX_RUN_LITERAL: Final = 4096  # longest lead, prefix and suffix a run's regex holds
# What JSON string content may not hold raw.
_CONTROL: Final = re.compile(rb"[\x00-\x1f]")


class Shortcuts:
    """Which of the collection's shortcuts run (all, by default; none: the lexer reads all).

    ``templates``: documents of a shape seen before are read off its template,
    and runs of one text off the last document; ``blocks``: a long run of
    those is read a block of events at a time.
    """

    # Plain classes in this package: a dataclass execs its methods at import,
    # and every command that exports pays for it at start-up.
    __slots__ = ("blocks", "templates")

    def __init__(self, *, templates: bool = True, blocks: bool = True) -> None:
        self.templates = templates
        self.blocks = blocks


#: Every shortcut on: what the exporter runs.
FAST: Final = Shortcuts()
#: The lexer reads every document: what the shortcuts must give exactly.
REFERENCE: Final = Shortcuts(templates=False, blocks=False)


class Collected:
    """What :func:`collect` found: the strings to decide, by kind."""

    __slots__ = ("blocks", "fragments", "id_repeats", "numbers", "singles")

    def __init__(self) -> None:
        #: Each text's fragments by stream key (treatment first), in order of first sight.
        self.fragments: dict[tuple[Any, ...], Fragments] = {}
        #: Every other string to decide on its own.
        self.singles: list[String] = []
        #: A simple id's first string, and the body offsets where its bytes recur.
        self.id_repeats: dict[bytes, tuple[String, array[int]]] = {}
        #: Masked logprob ``bytes`` numbers (``--text mask``): body offset, new bytes.
        self.numbers: list[tuple[int, bytes]] = []
        #: How many blocks of events the block shortcut filed (the tests ask).
        self.blocks = 0


def collect(
    body: bytes,
    ctx: Context,
    *,
    whole_json: bool = False,
    shortcuts: Shortcuts = FAST,
    documents: list[tuple[int, int]] | None = None,
) -> Collected:
    """Every string of ``body`` the rewrite must decide, filed (step 1).

    ``whole_json`` reads the body as JSON documents rather than SSE (an HTTP
    error body); ``documents`` lists the byte spans of JSON documents to read
    one by one, each its own root (an NDJSON line, an array element, an event
    stream's payload), the body between them untouched. ``ctx`` says whether
    text is masked and counts masked numbers.
    """
    collector = _Collector(body, ctx, shortcuts)
    if documents is not None:
        for span in documents:
            collector._value([span])
    else:
        collector.read(whole_json)
    return collector.found


class _Collector:
    """Reads the body once and files every string it must decide (see :func:`collect`)."""

    def __init__(self, body: bytes, ctx: Context, shortcuts: Shortcuts) -> None:
        self.body = body
        self.ctx = ctx
        self.mask_text = ctx.mask_text
        self.templates_on = shortcuts.templates
        # (a run never reaches sys.maxsize hits: no block is read)
        self.run_hits_for_block = _RUN_HITS if shortcuts.blocks else sys.maxsize
        self.found = Collected()
        # Each text's fragments by stream key while the body is read.
        self.fragments = self.found.fragments
        self.singles = self.found.singles
        # A simple id string (ASCII, no escape) seen in a template document:
        # its first string, and where the same bytes recur (written like it).
        # (The starts in an array: a list would hold an int object for each.)
        self.id_repeats = self.found.id_repeats
        self.templates: dict[tuple[bytes, Any, Any], Template] = {}
        # syntax between strings -> the key strings of a document with it
        self.key_getters: dict[bytes, Callable[[list[bytes]], Any]] = {}
        self.run: Run | None = None  # the last one-text document filed by template
        self.run_hits = 0  # documents _by_run filed since ``run`` was remembered
        # (run, lead, its patterns) of the last run _run_block read
        self.run_block: tuple[Run, bytes, Any] | None = None

    def read(self, whole_json: bool) -> None:
        """File the strings of every data value (or of the whole body, one JSON document)."""
        if whole_json:
            self._value([(0, len(self.body))])
            return
        body = self.body
        # A run of documents is read a block at a time only where every line ends alike.
        eol = uniform_line_end(body)
        resume: list[int] = []
        for event, spans in _events(body, resume, eol):
            if len(spans) == 1:  # nearly every event: its one data line read here
                start, end = spans[0]
                joined = body[start:end]
                stripped = joined.strip()
                if stripped in _SENTINELS or not stripped:
                    continue
                if self._by_run(joined, start):
                    if (
                        eol is not None
                        and self.run_hits >= self.run_hits_for_block
                        and body.startswith(eol + eol, end)
                    ):
                        # A run of such documents: the ones that follow, at once.
                        after = self._run_block(body[event:start], end + 2 * len(eol), eol)
                        if after is not None:
                            self.found.blocks += 1
                            resume.append(after)
                    continue
                if self._by_template(joined, start):
                    continue
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
        self, run: Run, lead: bytes, eol: bytes
    ) -> tuple[re.Pattern[bytes], re.Pattern[bytes]] | None:
        """The regexes of :meth:`_run_block` for ``run``; None if it cannot file this run."""
        if len(lead) + len(run.prefix) + len(run.suffix) > _MAX_RUN_LITERAL:
            return None
        for _at, raw, _treatment, role, _after in run.entries:
            if raw is not None and (role is not ROLE_ID or raw not in self.id_repeats):
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
        segments = Segments(starts, [s for s, _ in spans], [e - s for s, e in spans])
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
                treatment = classify(token.path, lookup(root, token.path[:-1]), root)
            string = self._string(joined[token.start : token.end], token.start, segments, treatment)
            if treatment in STREAMED:
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
        if not self.templates_on:
            return False
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
        parts = joined.split(b'"') if b"\\" not in joined else STRING.split(joined)
        # The syntax between strings, numbers deleted: with the keys, the shape.
        between = b'"'.join(parts[0::2])
        syntax = between.translate(None, NUMBER_BYTES)
        keys_of = self.key_getters.get(syntax)
        if keys_of is None:
            keys_of = key_getter(parts)
            if len(self.key_getters) < MAX_TEMPLATES:
                self.key_getters[syntax] = keys_of
        shape = (syntax, keys_of(parts), kind)
        template = self.templates.get(shape)
        if template is None:
            template = template_of(joined, root)
            if template is None:
                return False
            if len(self.templates) < MAX_TEMPLATES:
                self.templates[shape] = template
        if len(parts) != 2 * template.strings + 1:
            return False
        # Where each part ends, quotes not counted: part i (string (i-1)/2) starts i bytes later.
        ends = list(itertools.accumulate(map(len, parts)))
        stream: Fragments | None = None
        for i, path, treatment, plan, role in template.values:
            raw = parts[i]
            start = base + ends[i - 1] + i
            if role is ROLE_ID:
                first = self.id_repeats.get(raw)
                if first is not None:  # an id seen before: decided once, written everywhere
                    first[1].append(start)
                    continue
                string = String(raw, start, treatment)
                self.singles.append(string)
                if raw.isascii() and b"\\" not in raw:
                    self.id_repeats[raw] = (string, array("q"))
            elif role is ROLE_STREAMED_BY_NUMBERS:
                known = template.keys.get((i, between))
                if known is None:
                    known = (treatment, *stream_key(path, root, plan))
                    if len(template.keys) < MAX_KEYS:
                        template.keys[(i, between)] = known
                stream = self._stream(known)
                stream.add(raw, start)
            elif role is ROLE_STREAMED:
                stream = self._stream((treatment, *stream_key(path, root, plan)))
                stream.add(raw, start)
            else:
                self.singles.append(String(raw, start, treatment))
        if b"\\" not in joined:
            self._remember_run(template, parts, ends, joined, stream)
        return True

    def _stream(self, key: tuple[Any, ...]) -> Fragments:
        """The fragments of stream ``key`` (a new one is added at the end)."""
        stream = self.fragments.get(key)
        if stream is None:
            stream = self.fragments[key] = Fragments(key[0])
        return stream

    def _remember_run(
        self,
        template: Template,
        parts: list[bytes],
        ends: list[int],
        joined: bytes,
        stream: Fragments | None,
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
        streamed = [v for v in template.values if v[4] in STREAMED_ROLES]
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
        self.run = Run(joined[:text_at], joined[text_end:], tuple(entries), stream)
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
            if role is ROLE_ID:
                first = self.id_repeats.get(raw)
                if first is not None:
                    first[1].append(start)
                    continue
                string = String(raw, start, treatment)
                self.singles.append(string)
                if raw.isascii():  # (no backslash: the document has none)
                    self.id_repeats[raw] = (string, array("q"))
            else:
                self.singles.append(String(raw, start, treatment))
        self.run_hits += 1
        return True

    def _string(
        self,
        raw: bytes,
        start: int,
        segments: Segments,
        treatment: Treatment,
        units: Units | None = None,
    ) -> String:
        """A string of a document read by the lexer; ``units`` when it is not JSON content."""
        if len(segments.joined_starts) == 1:
            string = String(raw, segments.body_starts[0] + start, treatment)
        else:
            string = String(raw, -1, treatment)
            string.segments = segments
            string.start = start
        string._units = units
        return string

    def _number(
        self, start: int, end: int, path: tuple[str | int, ...], joined: bytes, seg: Segments
    ) -> None:
        if not self.ctx.mask_text or not path or not isinstance(path[-1], int):
            return
        if len(path) < 2 or path[-2] not in NUMBER_MASK_KEYS:
            return
        offset = seg.to_body(start)
        if offset < 0 or seg.to_body(end - 1) != offset + end - start - 1:
            return
        self.found.numbers.append((offset, mask_number(joined[start:end])))
        self.ctx.ledger.masked["logprob-bytes"] += 1


def _events(
    body: bytes, resume: list[int], eol: bytes | None
) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """``(where each event starts, the value spans of its data lines)``, event by event.

    The lines are the core's (:func:`~inspector.core.sse.lines.body_lines`): an
    event runs to its blank line; one left without one at the end is given
    too (its bytes are recorded and must be scrubbed, though no decoder
    dispatches them). ``resume`` is handed on: an offset put there after an
    event is where the next one is read from; ``eol`` is the body's
    :func:`~inspector.core.sse.lines.uniform_line_end`.
    """
    spans: list[tuple[int, int]] = []
    event = len(BOM) if body.startswith(BOM) else 0  # where the event being read starts
    for field, _, value, end, following in body_lines(body, 0, resume, line_end=eol):
        if field is DATA or field == b"data":
            spans.append((value, end))
        elif field == b"":  # a blank line: the event ends
            if spans:
                yield event, spans
                spans = []
            event = resume[-1] if resume else following
    if spans:
        yield event, spans


def data_values(body: bytes) -> Iterator[list[tuple[int, int]]]:
    """The byte spans of each event's ``data`` values, event by event (see :func:`_events`)."""
    for _, spans in _events(body, [], uniform_line_end(body)):
        yield spans
