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

Reading never raises for bad content: it stops at the first damaged line and
reports ``path:line: what is wrong`` in :attr:`Recording.problems`, keeping
every chunk read before it. :class:`CaptureWriter` flushes after every
record, so a capture on disk is valid after each chunk even if the recorder
is killed.
"""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import orjson

from .core.trace import TRANSPORT_END_REASONS, TransportEnd

__all__ = [
    "CAPTURE_FORMAT",
    "CAPTURE_VERSION",
    "CaptureWriter",
    "Recording",
    "chunk_record",
    "load_recording",
    "parse_recording",
]

CAPTURE_FORMAT: Final = "llm-stream-capture"
CAPTURE_VERSION: Final = 1


@dataclass
class Recording:
    """A stream as stored: header, timed chunks and how the transport ended."""

    path: str
    kind: str  # "capture" or "raw"
    header: dict[str, Any] | None = None
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    end: TransportEnd | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def provider(self) -> str | None:
        """The provider named in the header, if any."""
        value = self.header.get("provider") if self.header else None
        return value if isinstance(value, str) else None

    @property
    def status(self) -> int | None:
        """The recorded HTTP response status, if any."""
        response = self.header.get("response") if self.header else None
        status = response.get("status") if isinstance(response, dict) else None
        return status if isinstance(status, int) else None

    @property
    def body(self) -> bytes:
        """All recorded bytes, joined."""
        return b"".join(data for _, data in self.chunks)


def chunk_record(time: float, data: bytes) -> dict[str, Any]:
    """The JSON record for one received chunk."""
    try:
        return {"type": "chunk", "t": round(time, 6), "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"type": "chunk", "t": round(time, 6), "b64": base64.b64encode(data).decode()}


_HEAD_BYTES = 4096  # enough to tell a capture's header line from a raw SSE body


def _is_capture(raw: bytes) -> bool:
    first = raw[:_HEAD_BYTES].lstrip()[:200]
    return first.startswith(b"{") and b'"header"' in first and b'"type"' in first


def parse_recording(raw: bytes, path: str = "<bytes>") -> Recording:
    """Parse a capture or raw SSE body from bytes (see the module docstring)."""
    if not _is_capture(raw):
        return Recording(path, "raw", chunks=[(0.0, raw)] if raw else [], end=TransportEnd("eof"))
    return _parse_capture_lines(io.BytesIO(raw), path)


def _parse_capture_lines(lines: Iterable[bytes], path: str) -> Recording:
    # Lines are consumed one at a time (a file object, or BytesIO over bytes):
    # no list of every line is ever built, so a large capture costs its chunks
    # and little more.
    rec = Recording(path, "capture")
    number = 0
    last = b"\n"
    for number, line in enumerate(lines, start=1):
        last = line
        if not line.strip():
            continue
        problem = _read_line(rec, line, number)
        if problem is not None:
            rec.problems.append(f"{path}:{number}: {problem}")
            break
    else:
        if not last.endswith(b"\n") and rec.end is None:
            rec.problems.append(f"{path}:{number}: the last line is cut short")
    if rec.end is None and not rec.problems:
        rec.problems.append(
            f"{path}: no end record — the recording stopped before the transport ended"
        )
    return rec


def _read_line(rec: Recording, line: bytes, number: int) -> str | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(record, dict):
        return "a record must be a JSON object"
    kind = record.get("type")
    if rec.end is not None:
        return f"a {kind!r} record after the end record"
    if number == 1 or rec.header is None:
        if kind != "header":
            return "the first record must be the header"
        if record.get("format") != CAPTURE_FORMAT:
            return f"unknown format {record.get('format')!r} (expected {CAPTURE_FORMAT!r})"
        version = record.get("version")
        if version != CAPTURE_VERSION:
            return f"capture format version {version!r} is not supported (this tool reads 1)"
        rec.header = record
        return None
    if kind == "chunk":
        time = record.get("t")
        if not isinstance(time, int | float):
            return "chunk record without a numeric 't'"
        if isinstance(record.get("text"), str):
            data = record["text"].encode("utf-8")
        elif isinstance(record.get("b64"), str):
            try:
                data = base64.b64decode(record["b64"], validate=True)
            except (binascii.Error, ValueError) as exc:
                return f"chunk 'b64' is not valid base64 ({exc})"
        else:
            return "chunk record needs 'text' or 'b64'"
        rec.chunks.append((float(time), data))
        return None
    if kind == "end":
        reason = record.get("reason")
        if reason not in TRANSPORT_END_REASONS:
            return f"end reason {reason!r} is not one of {', '.join(TRANSPORT_END_REASONS)}"
        time = record.get("t")
        error = record.get("error")
        rec.end = TransportEnd(
            reason,
            float(time) if isinstance(time, int | float) else None,
            error if isinstance(error, str) else None,
        )
        return None
    return f"unknown record type {kind!r}"


def load_recording(path: str | Path) -> Recording:
    """Read a capture or raw SSE file; unreadable files become a problem, not an error."""
    name = str(path)
    try:
        with Path(path).open("rb") as file:
            head = file.read(_HEAD_BYTES)
            if not _is_capture(head):
                return parse_recording(head + file.read(), name)
            file.seek(0)
            return _parse_capture_lines(file, name)
    except OSError as exc:
        return Recording(name, "raw", problems=[f"{name}: cannot read ({exc.strerror or exc})"])


class CaptureWriter:
    """Writes a capture as it is received, flushing after every record."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self._file: IO[bytes] = self.path.open("wb")
        record = {"type": "header", "format": CAPTURE_FORMAT, "version": CAPTURE_VERSION}
        record.update(header)
        self._write(record)
        self.closed = False

    def chunk(self, time: float, data: bytes) -> None:
        """Append one received chunk."""
        self._write(chunk_record(time, data))

    def end(self, reason: str, time: float, error: str | None = None) -> None:
        """Append the end record and close the file."""
        if self.closed:
            return
        self._write({"type": "end", "t": round(time, 6), "reason": reason, "error": error})
        self._file.close()
        self.closed = True

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(record) + b"\n")
        self._file.flush()
