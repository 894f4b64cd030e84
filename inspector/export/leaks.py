"""The last check of an export: is any secret still in an output file?

Two searches, over every output file *and what it decodes to*:

1. every secret the export removed, looked for as itself, JSON-escaped,
   URL-encoded and base64-encoded (standard and URL-safe alphabets, at each of
   the three alignments a secret can have inside a longer base64 text);
2. every secret *pattern* (:mod:`.secrets`) — so a key the rewriter missed
   (an encoding it did not undo, a fragment boundary it did not see) is
   caught here even though it was never "removed".

What a file decodes to: its bytes; for a capture, its chunks joined (``b64``
ones decoded); each of those with JSON/backslash escapes undone up to
:data:`UNESCAPE_DEPTH` times (JSON inside JSON inside JSON) and
percent-encoding undone (each text is decoded on its own, then the
undone escapes as well); and the texts the caller assembles from the
normalized stream (every block's deltas joined, so a key cut across
fragments, frames or chunks is whole again).

3. every value an earlier step (import) removed and recorded by keyed hash
   in the capture header (:class:`~inspector.redact.digests.DigestMatcher`).

A hit names the file, the rule and the form; the value only masked: its
kind, its length and at most its last two characters (:func:`masked_preview`).
"""

from __future__ import annotations

import base64
import codecs
import json
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final
from urllib.parse import quote, quote_plus, unquote

import orjson
from ahocorasick_rs import AhoCorasick

from ..redact.digests import DigestMatcher
from ..redact.masked import masked
from ..redact.shapes import find_secrets
from ..terminal import escape_controls

__all__ = ["UNESCAPE_DEPTH", "Leak", "ReadCapture", "masked_preview", "needles", "scan_outputs"]

# A base64 form shorter than this could turn up by chance in any long blob.
_MIN_ENCODED: Final = 8
#: How many times escapes are undone when looking for a secret.
UNESCAPE_DEPTH: Final = 3
_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")
# Characters of a text searched per automaton pass. Each window is a copy: an
# ASCII one of 64 KiB comes from the heap and its memory serves the next, where
# one over the command's fixed mmap threshold (128 KiB, .allocator) would be a
# fresh mapping faulted in page by page (7,300 faults per 30 MB text).
_NEEDLE_WINDOW: Final = 1 << 16
# Line breaks as they are or JSON-escaped, removed to join MIME-wrapped base64.
# (Each alternative begins with its literal: the engine skips to them, 5x faster.)
_LINE_BREAKS: Final = re.compile(r"\r\n|\n|\\r\\n|\\n")
# A character no line break (as it is or escaped) is spelled with: a text cut
# just before one is cut between two of the pattern's matches, never inside one.
_OUTSIDE_BREAKS: Final = re.compile(r"[^\r\n\\rn]")
# Characters of a text whose line breaks are removed (or percent-encoding is
# undone) in one step (each step's copy is its own mapping, given back at once:
# .allocator).
_JOIN_WINDOW: Final = 1 << 20
# Three characters none of which is a '%': a text cut after them is cut after a
# character that is no part of a %XX escape.
_NO_ESCAPE: Final = re.compile(r"[^%]{3}")
# What bytes.splitlines() breaks a line at.
_LINE_BREAK: Final = re.compile(rb"\r\n|\r|\n")


def masked_preview(value: str, kind: str = "secret") -> str:
    """A secret as a message may show it (:func:`inspector.redact.masked`)."""
    return masked(value, kind)


@dataclass(frozen=True, slots=True)
class Leak:
    """A secret found in ``file``: removed by (or matching) ``rule``, in ``form``.

    ``preview`` is the masked value (:func:`masked_preview`); ``pattern`` says
    the value was found by its shape rather than as a removed value.
    """

    file: str
    rule: str
    form: str
    preview: str = ""
    pattern: bool = False

    def __str__(self) -> str:
        what = "text shaped like a secret" if self.pattern else "a value removed"
        seen = f" {self.preview}" if self.preview else ""
        return (
            f"{escape_controls(self.file)}: {what} by rule {self.rule!r}{seen} "
            f"is still there ({self.form})"
        )


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
    # Echoed upper- or lower-cased (a server that normalizes case).
    for folded in (secret.lower(), secret.upper()):
        forms.setdefault(folded.encode("utf-8", "surrogatepass"), "case-folded")
    return [(form, needle) for needle, form in forms.items()]


def _unescape(holder: list[str]) -> str:
    """Backslash escapes (JSON's and Python's) undone, in C; broken ones kept as they are.

    The text is taken out of ``holder`` and let go of once encoded: a caller
    that held it only there never has the text, its bytes and the result at once.

    An ASCII text is decoded from its first backslash on: before it every
    byte stands for itself and no escape can start, so the result is that
    part as it is and the rest decoded (the same string, for a multi-MB text
    whose few escapes come late — a tool call at the end of a long answer —
    two copies rather than encoding and decoding all of it).
    """
    text = holder.pop()
    first = text.find("\\")
    if first > 0 and text.isascii():
        tail = text[first:]
        if len(tail) * 8 <= len(text):
            # A short tail (escapes only near the end, as usual): decoded on its
            # own, and put in place of itself with one copy of the text (it
            # starts at the text's first backslash: nowhere earlier).
            holder.append(tail)
            return text.replace(tail, _unescape(holder), 1)
        head = text[:first]
        holder.append(tail)
        del text, tail
        return head + _unescape(holder)
    data = text.encode("utf-8", "backslashreplace").replace(b"\\/", b"/")
    del text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "invalid escape sequence" for \q
        return codecs.decode(data, "unicode_escape", "backslashreplace")


def _lines(data: bytes) -> Iterator[bytes]:
    """``data.splitlines()`` one line at a time: no list of every line held at once."""
    at = 0
    size = len(data)
    if b"\r" not in data:  # only LF (always so in a capture we wrote): one C search a line
        while at < size:
            end = data.find(b"\n", at)
            if end < 0:
                yield data[at:]
                return
            yield data[at:end]
            at = end + 1
        return
    while at < size:
        match = _LINE_BREAK.search(data, at)
        if match is None:
            yield data[at:]
            return
        yield data[at : match.start()]
        at = match.end()


def _capture_parts(data: bytes) -> tuple[bytearray, bytes] | None:
    """A capture's chunks joined (b64 ones decoded), and its other records; None if not one."""
    if b"chunk" not in data and b"\\u" not in data:
        return None  # no record can say "type": "chunk" (the events file, say)
    body = bytearray()  # grown in place: no list of every chunk next to their join
    chunks = 0
    records = []
    for line in _lines(data):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(record, dict) or record.get("type") != "chunk":
            records.append(line)
        elif isinstance(record.get("text"), str):
            body += record["text"].encode("utf-8", "surrogatepass")
            chunks += 1
        elif isinstance(record.get("b64"), str):
            try:
                body += base64.b64decode(record["b64"])
            except ValueError:
                continue
            chunks += 1
    if not chunks:
        return None
    return body, b"\n".join(records)


class ReadCapture:
    """A capture output as the export already read it back: what :func:`_capture_parts` gives.

    ``records``: its lines that are not chunk records (the header, the end
    record), joined by LFs as they are in the file; ``pieces``: its chunks'
    bytes, in order (the pieces its trace was fed), emptied once joined.
    """

    # A plain class: a dataclass costs a millisecond of the command's start-up.
    __slots__ = ("pieces", "records")

    def __init__(self, records: bytes, pieces: list[bytes]) -> None:
        self.records = records
        self.pieces = pieces


def _decodings(holder: list[str], form: str) -> Iterator[tuple[str, str]]:
    """The text in ``holder`` and what it decodes to, one at a time: ``(form, text)``.

    The text is taken out of ``holder``, and each text is let go of here
    once the next is made: with a caller that drops what it was handed
    before asking for the next, a multi-MB text is held at most twice.
    """
    text = holder.pop()
    yield form, text
    if _PERCENT.search(text):
        yield f"{form}, percent-decoded", _percent_decoded(text)
    unescaped = False
    for depth in range(1, UNESCAPE_DEPTH + 1):
        if "\\" not in text:
            break
        holder.append(text)
        del text
        text = _unescape(holder)
        unescaped = True
        yield f"{form}, unescaped x{depth}", text
    if unescaped and _PERCENT.search(text):
        yield f"{form}, percent-decoded", _percent_decoded(text)
    if "\n" in text:
        # MIME wraps base64 every 76 characters: the lines joined again.
        holder.append(text)
        del text
        yield f"{form}, line breaks removed", _without_line_breaks(holder)


def _percent_decoded(text: str) -> str:
    """``unquote(text, errors="surrogateescape")``, a window at a time.

    ``unquote`` of a long text holds the text, a copy, its bytes, a piece per
    escape and their joins at once (five times its size). Each window ends
    after a character that is not part of an escape: what comes before it
    is then decoded to the same characters on its own (an ASCII byte ends
    any UTF-8 sequence the escapes before it began, and a character that is
    not ASCII ends the run of ASCII ``unquote`` decodes), so the windows'
    decodings, joined, are the whole text's.
    """
    return _by_windows([text], partial(unquote, errors="surrogateescape"), _after_no_escape)


def _after_no_escape(text: str, at: int) -> int:
    cut = _NO_ESCAPE.search(text, at + _JOIN_WINDOW - 3)
    return len(text) if cut is None else cut.end()


def _without_line_breaks(holder: list[str]) -> str:
    """The text in ``holder`` with every line break removed (``_LINE_BREAKS.sub("", text)``).

    Without a CR and without an escaped line break (each ends with
    ``\\n``) a line break is an LF and nothing else: one C replace, four
    times as fast as the regex. Otherwise removed a window at a time, each
    cut where no line break can be cut in two (before a character none is
    spelled with), so the pieces are those of the whole text's removal; the
    text is let go of before they are joined. ``re.sub`` over a whole
    multi-MB text would hold the text, a string per line and their join at
    once: three times its size, not two.
    """
    text = holder[0]
    if "\r" not in text and "\\n" not in text:
        holder.clear()
        return text.replace("\n", "")
    del text
    return _by_windows(holder, partial(_LINE_BREAKS.sub, ""), _before_no_break)


def _before_no_break(text: str, at: int) -> int:
    cut = _OUTSIDE_BREAKS.search(text, at + _JOIN_WINDOW)
    return len(text) if cut is None else cut.start()


def _by_windows(
    holder: list[str], transform: Callable[[str], str], window_end: Callable[[str, int], int]
) -> str:
    """``transform`` of the text in ``holder``, done a window of ~:data:`_JOIN_WINDOW` at a time.

    ``window_end(text, at)`` is where the window from ``at`` ends: a place
    where the windows' results, joined, are the whole text's. The text is
    taken out of ``holder`` and let go of before the pieces are joined.
    """
    text = holder.pop()
    size = len(text)
    if size <= _JOIN_WINDOW:
        return transform(text)
    pieces = []
    at = 0
    while at < size:
        end = window_end(text, at)
        pieces.append(transform(text[at:end]))
        at = end
    del text
    return "".join(pieces)


def _read_capture_haystacks(parts: ReadCapture) -> Iterator[tuple[str, str]]:
    """:func:`_haystacks` of a capture from its parts as read back (:class:`ReadCapture`)."""
    body = [bytearray().join(parts.pieces)]
    parts.pieces.clear()  # the caller's pieces: only the joined body is held from here on
    yield from _capture_haystacks(body, parts.records)


def _capture_haystacks(body: list[bytearray], records: bytes) -> Iterator[tuple[str, str]]:
    """A capture's other records, then its stream body, decoded.

    The body is taken out of ``body`` (a caller that holds it only there lets
    go of its bytes once they are decoded).
    """
    yield from _decodings([records.decode("utf-8", "replace")], "header record")
    data = body.pop()
    holder = [data.decode("utf-8", "replace")]
    del data  # only its text is read from here on
    yield from _decodings(holder, "stream body")


def _haystacks(data: bytes) -> Iterator[tuple[str, str]]:
    """The file and what it says once decoded, one text at a time (bounded memory).

    A capture's chunk records decode to its stream body, which is read whole
    (a secret cut across chunks joined again); its other records — the
    header with the request — are decoded on their own. ``data`` is let go
    of once decoded: a caller that passes its only reference frees it then.
    """
    parts = _capture_parts(data)
    if parts is None:
        holder = [data.decode("utf-8", "replace")]
        del data
        yield from _decodings(holder, "as is")
        return
    del data
    # Every byte of a capture is in its records or, JSON-escaped once, in its
    # chunks: the body read as is holds the same text, one escape level down.
    body = [parts[0]]
    records = parts[1]
    del parts
    yield from _capture_haystacks(body, records)


class _Needles:
    """Every form of every removed secret, found in a text in one pass.

    One ``in`` per form over a multi-MB text would read it once per form (ten
    forms a secret, dozens of secrets); an Aho-Corasick automaton reads it once
    for all of them, window by window. The first form found *in table order*
    is the one reported, exactly as checking them one by one would.
    """

    def __init__(self, secrets: Mapping[str, str]) -> None:
        # (secret, rule, form, needle), in the order they are reported
        self.entries = [
            (secret, rule, form, needle.decode("utf-8", "surrogatepass"))
            for secret, rule in secrets.items()
            for form, needle in needles(secret)
        ]
        # A lone surrogate has no UTF-8 form the automaton could read: such
        # needles, and texts holding one, are searched with ``in``.
        self.searchable = list(dict.fromkeys(n for *_, n in self.entries if _utf8(n)))
        self.readable = frozenset(self.searchable)
        self.automaton = AhoCorasick(self.searchable) if self.searchable else None
        self.longest = max(map(len, self.searchable), default=0)

    def _present(self, hay: str) -> set[str] | None:
        """The automaton's needles found in ``hay``; None when it cannot read ``hay``."""
        if self.automaton is None:
            return set()
        found: set[int] = set()
        try:
            for start in range(0, len(hay), _NEEDLE_WINDOW):
                # Windows overlap by the longest needle less one character.
                window = hay[start : start + _NEEDLE_WINDOW + self.longest - 1]
                matches = self.automaton.find_matches_as_indexes(window, overlapping=True)
                found.update(m[0] for m in matches)
        except UnicodeEncodeError:
            return None
        return {self.searchable[i] for i in found}

    def leak(self, name: str, hay: str, where: str) -> Leak | None:
        """The first removed secret still in ``hay``, as a :class:`Leak` of file ``name``."""
        if not self.entries:
            return None
        present = self._present(hay)
        for secret, rule, form, needle in self.entries:
            if present is not None and needle in self.readable:
                found = needle in present
            else:
                found = needle in hay
            if found:
                label = form if where == "as is" else f"{form}, in the {where}"
                return Leak(name, rule, label, masked_preview(secret, rule))
        return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _pattern_leak(name: str, hay: str, where: str) -> Leak | None:
    for match in find_secrets(hay):
        value = hay[match.start : match.end]
        return Leak(name, match.rule, where, masked_preview(value, match.rule), True)
    return None


def _digest_leak(name: str, hay: str, where: str, digests: Sequence[DigestMatcher]) -> Leak | None:
    for matcher in digests:
        found = matcher.find(hay)
        if found is not None:
            kind, length = found
            label = f"{where}, known by its hash"
            return Leak(name, kind, label, f"[{escape_controls(kind)}, {length} chars]")
    return None


def _sources(
    files: Mapping[str, bytes],
    assembled: Iterable[tuple[str, str]],
    read: Mapping[str, ReadCapture],
) -> Iterator[tuple[str, Iterator[tuple[str, str]]]]:
    """Each file's haystacks, then each assembled text's: one file's bytes read at a time."""
    for name in files:
        parts = read.get(name)
        yield name, _haystacks(files[name]) if parts is None else _read_capture_haystacks(parts)
    for label, text in assembled:
        yield label, _decodings([text], "as is")


def scan_outputs(
    files: Mapping[str, bytes],
    secrets: Mapping[str, str],
    assembled: Iterable[tuple[str, str]] = (),
    read: Mapping[str, ReadCapture] | None = None,
    *,
    digests: Sequence[DigestMatcher] = (),
) -> list[Leak]:
    """Where a secret is still in the outputs: at most one :class:`Leak` per file.

    ``secrets`` maps each removed value to its rule; ``assembled`` is
    ``(label, text)`` pairs decoded from the output (each block's deltas
    joined), scanned like a file named by ``label``. ``files`` is read one
    file at a time, in order (a mapping that reads files from disk keeps only
    the one being scanned in memory). ``read``: captures among ``files``
    that the caller has already read back, whole and undamaged, with the
    capture reader: their records and chunks (:class:`ReadCapture`, exactly
    what parsing the file here would give) are scanned rather than the file
    being parsed again. ``digests``: values removed before the export (by
    import), known by their keyed hashes.
    """
    removed = _Needles(secrets)
    leaks: list[Leak] = []
    for name, haystacks in _sources(files, assembled, read or {}):
        for where, hay in haystacks:
            leak = (
                removed.leak(name, hay, where)
                or _pattern_leak(name, hay, where)
                or _digest_leak(name, hay, where, digests)
            )
            del hay  # let go of before the next decoding is made
            if leak is not None:
                leaks.append(leak)
                break
    return leaks
