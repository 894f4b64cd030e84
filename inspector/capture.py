"""The capture file format (JSON Lines, version 1), and raw SSE files.

A capture is what a recorder saw, byte for byte, with timing::

    {"type": "header", "format": "llm-stream-capture", "version": 1, "provider": ...,
     "endpoint": ..., "model": ..., "recorded_at": ..., "request": {...}, "response": {...}}
    {"type": "chunk", "t": 0.2123, "text": "data: {...}\\n\\n"}
    {"type": "chunk", "t": 0.2301, "b64": "ZGF0YTog..."}      # when not valid UTF-8
    {"type": "end", "t": 1.5012, "reason": "eof", "error": null}

``docs/captures.md`` documents every field. A file that does not start with a
header line is read as a raw SSE body (what ``curl -N`` prints): one chunk at
time 0, ended by ``eof``.

Files are untrusted. :func:`read_recording` is the one way the commands
read them (``-`` is stdin): it refuses, with :class:`UnreadableInput` and a
message naming the path, what cannot be read at all — a missing or
unreadable file, a FIFO, socket or device (never opened, so nothing
blocks), more than :data:`MAX_INPUT_BYTES`, a capture whose header cannot
be used. Damage after the header does not raise: reading stops at the first
damaged line and reports ``path:line: what is wrong`` in
:attr:`Recording.problems`, keeping every chunk read before it. Every line
is read with a bound, so one endless line cannot exhaust memory.
:func:`load_recording` and :func:`parse_recording` never raise (a refusal
becomes the only problem). Paths in messages are escaped
(:func:`inspector.terminal.safe_path`); :attr:`Recording.path` stays the
real path.

:class:`CaptureWriter` (:mod:`inspector.capture_writer`, the one writer)
flushes after every record, so a capture on disk is valid after each chunk
even if the recorder is killed.
"""

from __future__ import annotations

import binascii
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Final

import orjson

from .core.transport import TRANSPORT_END_REASONS, TransportEnd
from .inputs import (
    CAPTURE_FORMAT,
    CAPTURE_VERSION,
    MAX_INPUT_BYTES,
    STDIN,
    STDIN_NAME,
    Recording,
    UnreadableInput,
    input_name,
    open_regular_file,
    os_refusal,
    read_stdin,
    sizeof,
    too_large,
)
from .terminal import escape_controls, safe_path

__all__ = [
    "CAPTURE_FORMAT",
    "CAPTURE_VERSION",
    "MAX_INPUT_BYTES",
    "STDIN",
    "Recording",
    "UnreadableInput",
    "input_name",
    "load_recording",
    "open_regular_file",
    "parse_recording",
    "parse_recording_file",
    "read_recording",
]


_HEAD_BYTES = 4096  # enough to tell a capture's header line from a raw SSE body
_UTF8_BOM = b"\xef\xbb\xbf"

#: The longest header line (it holds the request, which may carry images).
MAX_HEADER_LINE: Final = 16 << 20
#: The longest chunk or end line (a chunk is what one network read returned).
MAX_RECORD_LINE: Final = 64 << 20
#: The most lines after the header (each chunk costs far more in memory
#: than its line on disk; a real stream has thousands, not millions).
MAX_RECORDS: Final = 2_000_000
#: How deeply the header's JSON may nest (views and exports walk it).
MAX_HEADER_DEPTH: Final = 64


def _is_capture(raw: bytes) -> bool:
    # The first line, as far as it is in the head, is a JSON object with a
    # "type" and a "header" in it (the writer puts them first).
    first = raw[:_HEAD_BYTES].removeprefix(_UTF8_BOM).lstrip().split(b"\n", 1)[0]
    return first.startswith(b"{") and b'"header"' in first and b'"type"' in first


def parse_recording(raw: bytes, path: str = "<bytes>") -> Recording:
    """Parse a capture or raw SSE body from bytes (see the module docstring).

    Never raises: what :func:`read_recording` would refuse becomes the only
    problem of an empty ``raw`` recording.
    """
    return parse_recording_file(io.BytesIO(raw), path, len(raw))


def parse_recording_file(file: IO[bytes], path: str, size: int) -> Recording:
    """:func:`parse_recording` of an open binary file of ``size`` bytes, named ``path``.

    The file is read a piece at a time, like one :func:`read_recording`
    opens: its bytes are never all held at once (for a capture).
    """
    try:
        return _read_stream(file, path, safe_path(path), size)
    except UnreadableInput as exc:
        return Recording(path, "raw", problems=[str(exc)])


def read_recording(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> Recording:
    """Read a capture or raw SSE file, or stdin when ``path`` is ``-``.

    Raises :class:`UnreadableInput` when nothing can be read: no such file,
    permission denied, not a regular file (a FIFO, socket or device is refused
    without being opened, so it cannot block), stdin is a terminal, more
    than ``limit`` bytes, or a capture whose header line cannot be used.
    Damage after the header is reported in :attr:`Recording.problems`.
    """
    if os.fspath(path) == STDIN:
        data = read_stdin(limit)
        return _read_stream(io.BytesIO(data), STDIN_NAME, STDIN_NAME, limit)
    name = safe_path(path)
    with open_regular_file(path, name, limit) as file:
        return _read_stream(file, str(path), name, limit)


def load_recording(path: str | Path) -> Recording:
    """Like :func:`read_recording`, but why a file is unreadable becomes its only problem."""
    try:
        return read_recording(path)
    except UnreadableInput as exc:
        return Recording(str(path), "raw", problems=[str(exc)])


#: What a VCR cassette or HAR log starts with past a BOM and white space (``{``: JSON;
#: a YAML comment, directive or ``---``; ``interactions:`` or ``version:``).
_FOREIGN_STARTS: Final = frozenset(b"{#%-iv")


def _may_be_foreign(head: bytes) -> bool:
    """False when :func:`~inspector.interop.format_sniff.sniff_format` would surely say None."""
    first = head.removeprefix(_UTF8_BOM).lstrip()[:1]
    return bool(first) and first[0] in _FOREIGN_STARTS


def _foreign_recording(body: bytes, path: str) -> Recording | None:
    """A VCR cassette or HAR log, converted by :mod:`inspector.interop`; None for anything else.

    The converter is imported only when the first bytes look like one, so
    reading a capture or an SSE body costs nothing more; and a body whose
    first byte (past a BOM and white space) cannot start either (``data:``,
    ``event:``) does not even import the sniffer (its package costs ~5 ms).
    """
    if not _may_be_foreign(body[:_HEAD_BYTES]):
        return None
    from .interop.format_sniff import sniff_format

    if sniff_format(body[:_HEAD_BYTES]) is None:
        return None
    from .interop import InteropError, recording_from

    try:
        return recording_from(body, path)
    except InteropError as exc:
        raise UnreadableInput(str(exc)) from None


def _read_stream(file: IO[bytes], path: str, name: str, limit: int) -> Recording:
    try:
        head = file.read(_HEAD_BYTES)
        if not _is_capture(head):
            # Read again from the start in one piece: head + the rest would
            # hold the body twice at its peak.
            file.seek(0)
            body = file.read(max(limit, len(head)) + 1)
            if len(body) > limit:
                raise too_large(name, limit)
            foreign = _foreign_recording(body, path)
            if foreign is not None:
                return foreign
            return Recording(
                path, "raw", chunks=[(0.0, body)] if body else [], end=TransportEnd("eof")
            )
        file.seek(0)
        return _parse_capture_lines(file, path, name, limit)
    except OSError as exc:
        raise os_refusal(exc, name) from None


#: How much of a capture is read at a time (its lines are split and parsed a read at a time).
_READ_SIZE: Final = 1 << 16


class _Lines:
    """The lines of a file from where it stands, a read at a time, each bounded.

    Iterating gives ``(lines, size)``: a list of whole lines (without their
    LF), in order, and their bytes with the LFs. When it ends,
    :attr:`unterminated` holds what followed the last LF: the last line, cut
    short, or the first ``max_line + 1`` bytes of a line longer than
    ``max_line`` (reading stops there: one endless line is never held whole).
    No more than ``max_line`` plus one read is held at a time.
    """

    def __init__(self, file: IO[bytes], max_line: int) -> None:
        self._file = file
        self._max_line = max_line
        self.unterminated = b""

    def __iter__(self) -> Iterator[tuple[list[bytes], int]]:
        read = self._file.read
        parts: list[bytes] = []  # the start of a line that spans reads
        held = 0
        while block := read(_READ_SIZE):
            lines = block.split(b"\n")
            tail = lines.pop()
            if lines:
                if parts:
                    lines[0] = b"".join(parts) + lines[0]
                yield lines, held + len(block) - len(tail)
                parts, held = [], 0
            if tail:
                parts.append(tail)
                held += len(tail)
                if held > self._max_line:
                    self.unterminated = b"".join(parts)[: self._max_line + 1]
                    return
        self.unterminated = b"".join(parts)


def _parse_capture_lines(file: IO[bytes], path: str, name: str, limit: int) -> Recording:
    # The file is read a piece at a time (see _Lines): no list of every line
    # is ever built, and one endless line cannot make us hold more than its
    # limit. Every line is judged as it was written (with its LF) by the rules
    # of _line_problem. A read whose lines cannot reach any bound (every read,
    # unless the file comes near a limit) takes a short cut for the common
    # line, a chunk record with text, to the outcome those rules would give.
    rec = Recording(path, "capture")
    number = first = _read_header(rec, file, name)
    max_line = MAX_RECORD_LINE  # read at each call: tests lower them
    last_allowed = first + MAX_RECORDS
    chunks = rec.chunks.append
    loads = orjson.loads
    total = 0
    lines = _Lines(file, max_line)
    for block, size in lines:
        within = size < max_line and total + size <= limit and number + len(block) <= last_allowed
        for line in block:
            number += 1
            if within:
                try:
                    record = loads(line)
                except orjson.JSONDecodeError:
                    pass  # _line_problem below reports it, in its own words
                else:
                    if type(record) is dict and record.get("type") == "chunk" and rec.end is None:
                        time = record.get("t")
                        text = record.get("text")
                        if type(time) is float and type(text) is str:
                            chunks((time, text.encode("utf-8")))
                            continue
                # No line of this read reaches the byte limit: the read's total stands in.
                problem = _line_problem(rec, line + b"\n", number - first, total + size, limit)
            else:
                total += len(line) + 1
                problem = _line_problem(rec, line + b"\n", number - first, total, limit)
            if problem is not None:
                rec.problems.append(f"{name}:{number}: {problem}")
                return rec
        if within:
            total += size
    last = lines.unterminated
    if last:
        number += 1
        total += len(last)
        problem = _line_problem(rec, last, number - first, total, limit)
        if problem is None and rec.end is None:
            problem = "the last line is cut short"
        if problem is not None:
            rec.problems.append(f"{name}:{number}: {problem}")
    elif rec.end is None:
        rec.problems.append(
            f"{name}: no end record — the recording stopped before the transport ended"
        )
    return rec


def _line_problem(rec: Recording, line: bytes, records: int, total: int, limit: int) -> str | None:
    """Read one line after the header into ``rec``; what is wrong with it, if anything.

    ``line`` is as written (with its LF unless it is the last line, cut
    short); ``records`` counts the lines after the header up to this one and
    ``total`` their bytes.
    """
    problem = _line_too_long(line, MAX_RECORD_LINE, "a record")
    if problem is None and total > limit:
        problem = f"the capture is longer than {sizeof(limit)}; reading stopped here"
    if problem is None and records > MAX_RECORDS:
        problem = f"more than {MAX_RECORDS:,} records; reading stopped here"
    if problem is None and line.strip():
        problem = _read_line(rec, line)
        if problem is not None and not line.endswith(b"\n"):
            problem = "the last line is cut short"  # the writer was stopped mid-line
    return problem


def _line_too_long(line: bytes, limit: int, what: str) -> str | None:
    if len(line) > limit:
        return f"{what} line longer than {sizeof(limit)}"
    return None


def _read_header(rec: Recording, file: IO[bytes], name: str) -> int:
    """Read the header into ``rec`` and return its line number (blank lines may precede it)."""
    number = 0
    while True:
        line = file.readline(MAX_HEADER_LINE + 1)
        number += 1
        if number == 1:
            line = line.removeprefix(_UTF8_BOM)
        if not line or line.strip():
            break
    problem = _line_too_long(line, MAX_HEADER_LINE, "the header")
    try:
        record = orjson.loads(line) if problem is None else None
    except orjson.JSONDecodeError as exc:
        problem = f"the header is not valid JSON ({exc})"
    if problem is None:
        problem = _header_problem(record)
    if problem is not None:
        raise UnreadableInput(f"{name}:{number}: {problem}")
    rec.header = record
    return number


def _header_problem(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("type") != "header":
        return "the first record must be the header"
    if record.get("format") != CAPTURE_FORMAT:
        return f"unknown format {_shown(record.get('format'))} (expected {CAPTURE_FORMAT!r})"
    version = record.get("version")
    if version != CAPTURE_VERSION:
        return (
            f"capture version {_shown(version)} is not supported "
            f"(this inspector reads version {CAPTURE_VERSION})"
        )
    if _nests_deeper(record, MAX_HEADER_DEPTH):
        return f"the header nests deeper than {MAX_HEADER_DEPTH} levels"
    return None


def _shown(value: object) -> str:
    # A value from the file, quoted for a message: short and escaped.
    text = escape_controls(value if isinstance(value, int | float) else repr(value))
    return text if len(text) <= 40 else text[:39] + "…"


def _nests_deeper(value: object, limit: int) -> bool:
    # Iterative, so a hostile header cannot exhaust the interpreter's stack.
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _read_line(rec: Recording, line: bytes) -> str | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(record, dict):
        return "a record must be a JSON object"
    kind = record.get("type")
    if rec.end is not None:
        return f"a {_shown(kind)} record after the end record"
    reader = _RECORD_READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        return f"unknown record type {_shown(kind)}"
    return reader(rec, record)


def _read_chunk(rec: Recording, record: dict[str, Any]) -> str | None:
    time = record.get("t")
    if not isinstance(time, int | float) or isinstance(time, bool):
        return "chunk record without a numeric 't'"
    if isinstance(record.get("text"), str):
        data = record["text"].encode("utf-8")
    elif isinstance(record.get("b64"), str):
        import base64

        try:
            data = base64.b64decode(record["b64"], validate=True)
        except (binascii.Error, ValueError) as exc:
            return f"chunk 'b64' is not valid base64 ({exc})"
    else:
        return "chunk record needs 'text' or 'b64'"
    rec.chunks.append((float(time), data))
    return None


def _read_end(rec: Recording, record: dict[str, Any]) -> str | None:
    reason = record.get("reason")
    if reason not in TRANSPORT_END_REASONS:
        return f"end reason {_shown(reason)} is not one of {', '.join(TRANSPORT_END_REASONS)}"
    time = record.get("t")
    error = record.get("error")
    rec.end = TransportEnd(
        reason,
        float(time) if isinstance(time, int | float) else None,
        error if isinstance(error, str) else None,
    )
    return None


_RECORD_READERS: Final = {"chunk": _read_chunk, "end": _read_end}
