"""Stream files on disk: the bundled capture library, and which files are streams."""

from __future__ import annotations

import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

__all__ = ["NOT_STREAMS", "STREAM_SUFFIXES", "captures_dir", "expand_paths", "is_stream_file"]

# Files a directory argument expands to; golden files and reports are not streams.
STREAM_SUFFIXES = (".sse", ".jsonl", ".txt")
NOT_STREAMS = (".events.jsonl", ".report.json")

_INSTALLED = Path("share") / "llm-stream-inspector" / "captures"


def captures_dir() -> Path | None:
    """The bundled ``captures/`` directory, or None if it cannot be found."""
    checkout = Path(__file__).resolve().parent.parent / "captures"
    candidates = [checkout]
    for base in {sys.prefix, sysconfig.get_paths()["data"]}:
        candidates.append(Path(base) / _INSTALLED)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def is_stream_file(path: Path) -> bool:
    """Whether a file found inside a directory is a stream to read."""
    name = path.name
    return name.endswith(STREAM_SUFFIXES) and not name.endswith(NOT_STREAMS)


def expand_paths(paths: Iterable[str]) -> list[Path]:
    """Files as given, and the stream files below each directory, sorted."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.is_file() and is_stream_file(p)))
        else:
            out.append(path)
    return out
