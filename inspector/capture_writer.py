"""The one way captures are written: lines the reader always accepts, files never overwritten.

Every command that writes a capture — ``record``, ``live``, ``proxy``,
``import`` — writes it through this module, so what any of them writes,
``check`` reads. The rules come from one table, :func:`file_limits`, built
from the reader's own bounds (:mod:`inspector.capture`) at each call:

* **header line** — at most ``header_line`` bytes, less room for the final
  rewrite with timings. A request body that would not fit (images, long
  prompts) is kept as the first part of its text, and the header says so:
  ``request.body_truncated = {"bytes": N, "kept": K}``.
* **chunk** — a chunk whose record line would pass ``record_line`` is
  written as several records with the same time (cut at UTF-8 character
  boundaries): the bytes are all kept, in order.
* **records and capture size** — past ``records`` lines after the header or
  ``capture`` bytes, chunks are no longer written; the end record keeps the
  transport's reason and its ``error`` says where the capture was cut.
* **times** — every ``t`` rounded to microseconds (6 decimals), chunks and
  end alike.
* **frames** — one SSE line or event is at most ``sse_line`` / ``sse_frame``
  bytes when read; a writer cannot split a frame, so these are listed, not
  enforced.

Files are created exclusively (:func:`create_exclusive`, :func:`link_exclusive`):
an existing file is never replaced; a writer given a taken name picks the
next free one (``NAME-2.jsonl``) and says so.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import orjson

from . import capture
from .capture import CAPTURE_FORMAT, CAPTURE_VERSION
from .core import sse

__all__ = [
    "CaptureWriter",
    "FileLimits",
    "LineBudget",
    "capture_lines",
    "chunk_lines",
    "chunk_record",
    "create_exclusive",
    "end_line",
    "file_limits",
    "fit_header",
    "free_name",
    "header_line",
    "link_exclusive",
    "record_time",
]

#: Room kept in the header line for what the final rewrite adds (timings, a cut note).
HEADER_ROOM: Final = 64 * 1024
#: Room kept at the end of a capture for the end record.
END_ROOM: Final = 64 * 1024
#: Names tried for a free file (``NAME``, ``NAME-2`` … ``NAME-1000``).
_ATTEMPTS: Final = 1000


@dataclass(frozen=True, slots=True)
class FileLimits:
    """The bounds a capture must keep to be read back (see the module docstring)."""

    header_line: int
    record_line: int
    records: int
    capture: int
    header_depth: int
    sse_line: int
    sse_frame: int


def file_limits() -> FileLimits:
    """The reader's bounds, read now (tests lower them on :mod:`inspector.capture`)."""
    return FileLimits(
        header_line=capture.MAX_HEADER_LINE,
        record_line=capture.MAX_RECORD_LINE,
        records=capture.MAX_RECORDS,
        capture=capture.MAX_INPUT_BYTES,
        header_depth=capture.MAX_HEADER_DEPTH,
        sse_line=sse.DEFAULT_MAX_LINE,
        sse_frame=sse.DEFAULT_MAX_FRAME,
    )


def record_time(time: float | None) -> float | None:
    """A time as every capture record stores it (to the microsecond)."""
    return None if time is None else round(time, 6)


_t = record_time


def chunk_record(time: float, data: bytes) -> dict[str, Any]:
    """The JSON record for one received chunk (``text``, or ``b64`` when not UTF-8)."""
    try:
        return {"type": "chunk", "t": round(time, 6), "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"type": "chunk", "t": round(time, 6), "b64": base64.b64encode(data).decode()}


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of at most ``size`` bytes, cut before a UTF-8 continuation byte."""
    start = 0
    while len(data) - start > size:
        end = start + size
        for _ in range(3):  # a character is at most 4 bytes: back up to its first
            if data[end] & 0xC0 != 0x80:
                break
            end -= 1
        yield data[start:end]
        start = end
    yield data[start:]


def chunk_lines(time: float, data: bytes, limits: FileLimits | None = None) -> list[bytes]:
    """The record lines for one chunk: one, or several when one would be too long."""
    line = orjson.dumps(chunk_record(time, data)) + b"\n"
    limit = (limits or file_limits()).record_line
    if len(line) <= limit:
        return [line]
    # JSON escapes a byte as at most 6 characters (\u00XX), base64 as 4/3: a piece
    # of a seventh of the limit always fits, whatever its bytes.
    size = max(1, (limit - 64) // 7)
    return [orjson.dumps(chunk_record(time, piece)) + b"\n" for piece in _pieces(data, size)]


def end_line(reason: str, time: float | None, error: str | None = None) -> bytes:
    """The end record's line."""
    return orjson.dumps({"type": "end", "t": _t(time), "reason": reason, "error": error}) + b"\n"


def _header_record(header: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "header", "format": CAPTURE_FORMAT}
    record["version"] = CAPTURE_VERSION
    record.update({k: v for k, v in header.items() if k not in ("type", "format", "version")})
    return record


def fit_header(header: dict[str, Any], limits: FileLimits | None = None) -> dict[str, Any]:
    """``header``, its request body cut so that the header line fits (see the docstring)."""
    budget = (limits or file_limits()).header_line - HEADER_ROOM
    line = orjson.dumps(_header_record(header))
    if len(line) <= budget:
        return header
    request = header.get("request")
    if not isinstance(request, dict) or request.get("body") is None:
        raise ValueError(f"the capture header is longer than {budget} bytes")
    body = request["body"]
    text = body if isinstance(body, str) else orjson.dumps(body).decode("utf-8", "replace")
    room = max(0, budget - (len(line) - len(orjson.dumps(body))) - 256)
    kept = text[: max(0, room // 6)]  # a character may take 6 bytes escaped
    truncated = {"bytes": len(text.encode()), "kept": len(kept.encode())}
    cut = {**request, "body": kept, "body_truncated": truncated}
    fitted = {**header, "request": cut}
    if len(orjson.dumps(_header_record(fitted))) > budget:
        raise ValueError(f"the capture header is longer than {budget} bytes")
    return fitted


def header_line(header: dict[str, Any], limits: FileLimits | None = None) -> bytes:
    """The header's line (``type``, ``format`` and ``version`` first), fitted to the limit."""
    return orjson.dumps(_header_record(fit_header(header, limits))) + b"\n"


class LineBudget:
    """Records and bytes a capture may still take; says where it was cut, if it was."""

    def __init__(self, header_bytes: int, limits: FileLimits | None = None) -> None:
        self.limits = limits or file_limits()
        self.records = 0
        self.bytes = header_bytes
        self.dropped = 0  # chunk bytes not written
        self.kept = 0  # chunk bytes written

    def lines(self, time: float, data: bytes) -> list[bytes]:
        """The lines to write for one chunk: all of it, the part that still fits (the
        rest is counted as dropped), or none once the capture is at its limits."""
        if self.dropped:
            self.dropped += len(data)
            return []
        lines = chunk_lines(time, data, self.limits)
        if self._fits(lines):
            return self._took(lines, len(data))
        # Keep the part that fits: a seventh of the room left always fits, escaped.
        room = min(self._bytes_left() // 7, len(data))
        kept = chunk_lines(time, data[:room], self.limits) if room > 64 else []
        if not kept or not self._fits(kept):
            kept, room = [], 0
        self.dropped += len(data) - room
        return self._took(kept, room)

    def _bytes_left(self) -> int:
        return self.limits.capture - END_ROOM - HEADER_ROOM - self.bytes

    def _fits(self, lines: list[bytes]) -> bool:
        records_left = self.limits.records - 1 - self.records  # one for the end record
        return len(lines) <= records_left and sum(map(len, lines)) <= self._bytes_left()

    def _took(self, lines: list[bytes], size: int) -> list[bytes]:
        self.records += len(lines)
        self.bytes += sum(map(len, lines))
        self.kept += size
        return lines

    def note(self, error: str | None) -> str | None:
        """The end record's error, with where the capture was cut (when it was)."""
        if not self.dropped:
            return error
        cut = (
            f"the capture was cut after {self.kept} bytes to stay within the reader's limits "
            f"({self.limits.records:,} records, {self.limits.capture:,} bytes); "
            f"{self.dropped} later bytes were received but not recorded"
        )
        return f"{error}; {cut}" if error else cut


def capture_lines(
    header: dict[str, Any] | None,
    chunks: Iterable[tuple[float, bytes]],
    end: Any | None,
) -> Iterator[bytes]:
    """A whole capture's lines (``end`` a TransportEnd or None), within the limits."""
    limits = file_limits()
    head = header_line(header or {}, limits)
    yield head
    budget = LineBudget(len(head), limits)
    for time, data in chunks:
        yield from budget.lines(time, data)
    if end is not None:
        yield end_line(end.reason, end.time, budget.note(end.error))


# -- files that are never overwritten ----------------------------------------------


def free_name(name: str, attempt: int) -> str:
    """The ``attempt``-th name tried for ``name``: ``x.jsonl``, ``x-2.jsonl``, …"""
    if attempt == 1:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{attempt}.{suffix}" if dot and stem else f"{name}-{attempt}"


def create_exclusive(directory: Path, name: str, mode: int = 0o600) -> tuple[Path, IO[bytes]]:
    """Create ``directory/name`` (the next free name when taken), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for attempt in range(1, _ATTEMPTS + 1):
        candidate = directory / free_name(name, attempt)
        try:
            fd = os.open(candidate, flags, mode)
        except FileExistsError:
            continue
        return candidate, os.fdopen(fd, "wb")
    raise FileExistsError(errno.EEXIST, f"no free name for {name}", str(directory))


def link_exclusive(temporary: Path, target: Path) -> Path:
    """Give the finished file ``temporary`` the name ``target`` (the next free one when
    taken: an existing file is never replaced) and remove the temporary name."""
    for attempt in range(1, _ATTEMPTS + 1):
        candidate = target.with_name(free_name(target.name, attempt))
        try:
            os.link(temporary, candidate)
        except FileExistsError:
            continue
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return candidate
    raise FileExistsError(errno.EEXIST, f"no free name for {target.name}", str(target.parent))


class CaptureWriter:
    """Writes a capture as it is received, flushing after every record.

    ``path`` must be new or one this process just created (the proxy creates
    its files exclusively first); the lines keep :func:`file_limits`.
    """

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.limits = file_limits()
        self._file: IO[bytes] = self.path.open("wb")
        line = header_line(header, self.limits)
        self.budget = LineBudget(len(line), self.limits)
        self._write(line)
        self.closed = False

    def chunk(self, time: float, data: bytes) -> None:
        """Append one received chunk (not written once the capture is at its limits)."""
        lines = self.budget.lines(time, data)
        if lines:
            self._write(b"".join(lines))

    def end(self, reason: str, time: float, error: str | None = None) -> None:
        """Append the end record and close the file."""
        if self.closed:
            return
        self._write(end_line(reason, time, self.budget.note(error)))
        self._file.close()
        self.closed = True

    def abandon(self) -> None:
        """Close without an end record (the file may be unwritable): readers then
        report the recording as stopped early, which it was."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._file.close()

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()
