"""Capture files for proxied exchanges: safe unique names, and the final header.

Names are made by the proxy, never taken from the request: a sequence
number, the provider, the model reduced to ``[A-Za-z0-9._-]`` (at most 48
characters; it is client-controlled), and the UTC time. The file is created
exclusively, so two proxies writing to one directory never share a file.

When the exchange ends, the header is rewritten once with the final timings
by streaming the file into a temporary one that atomically replaces it: the
memory used does not depend on the capture's length.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson

from ..capture_writer import header_line

__all__ = ["capture_name", "create_capture_file", "rewrite_header"]

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
_MODEL_CHARS: Final = 48
_ATTEMPTS: Final = 1000


def capture_name(number: int, provider: str, model: str | None, when: datetime) -> str:
    """``00012-anthropic-claude-sonnet-4-5-20261201-030000.jsonl`` (never from the path)."""
    slug = _UNSAFE.sub("-", model or "").strip(".-")[:_MODEL_CHARS].strip(".-") or "unknown"
    return f"{number:05d}-{provider}-{slug}-{when.astimezone(UTC):%Y%m%d-%H%M%S}.jsonl"


def create_capture_file(directory: Path, name: str) -> Path:
    """Create ``directory/name`` exclusively (``-2``, ``-3``… when taken); raises OSError."""
    stem = name.removesuffix(".jsonl")
    for attempt in range(1, _ATTEMPTS + 1):
        candidate = directory / (name if attempt == 1 else f"{stem}-{attempt}.jsonl")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        return candidate
    raise FileExistsError(f"{directory}: no free name for {name}")


def rewrite_header(path: Path, changes: dict[str, Any]) -> None:
    """Update the header line of a closed capture, streaming the rest (atomic)."""
    # A fresh temporary name (O_EXCL): a link planted at a fixed name such as
    # "capture.jsonl.tmp" would otherwise be written through.
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with path.open("rb") as source, os.fdopen(fd, "wb") as target:
            header = orjson.loads(source.readline())
            header.update(changes)
            target.write(header_line(header))  # the one writer's line: it fits the reader
            shutil.copyfileobj(source, target)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
