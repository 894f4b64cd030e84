"""Stream files on disk: the bundled capture library, and which files are streams."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

__all__ = [
    "NOT_STREAMS",
    "STREAM_SUFFIXES",
    "captures_dir",
    "expand_paths",
    "is_stream_file",
    "iter_files_below",
    "iter_stream_files",
]

# Files a directory argument expands to; golden files and reports are not streams.
STREAM_SUFFIXES = (".sse", ".jsonl", ".txt")
NOT_STREAMS = (".events.jsonl", ".report.json")

_INSTALLED = Path("share") / "llm-stream-inspector" / "captures"


def captures_dir() -> Path | None:
    """The bundled ``captures/`` directory, or None if it cannot be found."""
    import sysconfig  # here: every command imports this module, few look for the captures

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


def iter_stream_files(
    paths: Iterable[str], unlisted: list[tuple[Path, OSError]] | None = None
) -> Iterator[Path]:
    """Files as given, and the stream files below each directory, in path order.

    Results stream out as folders are walked (a huge folder starts at once).
    The walk is iterative (any depth) and does not enter symbolic links to
    directories, so a link loop cannot make it spin. Folders that cannot be
    listed are appended to ``unlisted`` with the error, and skipped.
    """
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            yield from _stream_files_below(path, [] if unlisted is None else unlisted)
        else:
            yield path


def expand_paths(paths: Iterable[str]) -> list[Path]:
    """:func:`iter_stream_files`, as a list."""
    return list(iter_stream_files(paths))


def _listing(folder: str, unlisted: list[tuple[Path, OSError]]) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return iter(sorted(entries, key=lambda entry: entry.name))
    except OSError as exc:
        unlisted.append((Path(folder), exc))
        return iter(())


def _stream_files_below(top: Path, unlisted: list[tuple[Path, OSError]]) -> Iterator[Path]:
    return iter_files_below(top, is_stream_file, unlisted)


def iter_files_below(
    top: Path, accept: Callable[[Path], bool], unlisted: list[tuple[Path, OSError]]
) -> Iterator[Path]:
    """Regular files below ``top`` whose name ``accept`` takes, in path order.

    Iterative (any depth), never entering a symbolic link to a directory;
    folders that cannot be listed go to ``unlisted``.
    """
    # Depth first, each folder's entries sorted by name: the order of sorting
    # every path, without holding every path. A stack, not recursion.
    stack = [_listing(str(top), unlisted)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                stack.append(_listing(entry.path, unlisted))
            elif accept(Path(entry.name)) and entry.is_file():
                yield Path(entry.path)
        except OSError as exc:  # the entry vanished or cannot be examined
            unlisted.append((Path(entry.path), exc))
