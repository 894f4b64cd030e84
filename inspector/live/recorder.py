"""Writing a live exchange to a capture file while it happens.

The header is written as soon as the response status and headers are known
(or the request failed without a response), then every chunk as it arrives —
:class:`~inspector.capture.CaptureWriter` flushes after each record, so the
file is a readable capture at every moment. When the stream ends, the end
record says how, and the header is rewritten once with the final timings:
into a temporary file that atomically replaces the capture, so a crash at any
point leaves either the old valid file or the new one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from ..capture import CaptureWriter

__all__ = ["CaptureSink", "check_writable"]


def check_writable(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as a capture, or None if it can."""
    target = Path(path)
    if target.is_dir():
        return f"{target}: is a directory"
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        return f"{target}: the directory {parent} does not exist"
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{target}: not writable"
    return None


def rewrite_header(path: Path, changes: dict[str, Any]) -> None:
    """Update fields of a capture's header line in place, atomically."""
    raw = path.read_bytes()
    first, sep, rest = raw.partition(b"\n")
    header = orjson.loads(first)
    header.update(changes)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(orjson.dumps(header) + sep + rest)
    os.replace(temporary, path)


class CaptureSink:
    """A capture that opens when the response arrives and records it to the end.

    ``path=None`` records nothing (every method is then a no-op), so the live
    feed needs no special case for "no capture".
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._writer: CaptureWriter | None = None

    @property
    def opened(self) -> bool:
        """Whether the header has been written."""
        return self._writer is not None

    def open(self, header: dict[str, Any]) -> None:
        """Write the header (once)."""
        if self.path is not None and self._writer is None:
            self._writer = CaptureWriter(self.path, header)

    def chunk(self, time: float, data: bytes) -> None:
        """Append one chunk as received."""
        if self._writer is not None:
            self._writer.chunk(time, data)

    def close(self, header: dict[str, Any], reason: str, time: float, error: str | None) -> None:
        """Write the end record, then the header's final form (timings)."""
        if self.path is None:
            return
        self.open(header)  # a request that failed before any response still gets a capture
        assert self._writer is not None
        if self._writer.closed:
            return
        self._writer.end(reason, time, error)
        rewrite_header(self.path, header)
