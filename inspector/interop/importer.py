"""``inspector import``: every streamed exchange of cassettes and HAR logs, written as captures.

Output names come from the *input file's name* only — never from anything
inside the file — reduced to ``[A-Za-z0-9._-]``: ``NAME.jsonl`` for a file
with one streamed exchange, ``NAME-N.jsonl`` (N its place in the file) when
there are several. Each capture is written to a temporary file in the
output folder and renamed over the target, so a symlink planted at the
target is replaced, never followed.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..capture import Recording
from ..export import render_capture
from . import Imported, InteropError, read_file

__all__ = ["ImportOutcome", "import_files", "output_stem", "write_atomically"]

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
_KNOWN_SUFFIXES: Final = (".yaml", ".yml", ".json", ".har")
_MAX_STEM: Final = 100


def output_stem(path: str | Path) -> str:
    """A safe base name from an input file's name: ``../x/My Cassette.yaml`` -> ``My_Cassette``."""
    name = Path(path).name
    for suffix in _KNOWN_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    stem = _UNSAFE.sub("_", name).strip("._-")[:_MAX_STEM]
    return stem or "imported"


@dataclass
class ImportOutcome:
    """One input file: the captures written (interaction -> path), or why not."""

    source: Path
    fmt: str | None = None
    written: list[tuple[int, Path, Recording]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    error: str | None = None


def write_atomically(target: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, renamed over ``target``."""
    fd, tmp = tempfile.mkstemp(prefix=".import-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def targets_for(result: Imported, out_dir: Path) -> list[tuple[int, Path, Recording]]:
    """Where each recording of one file goes."""
    stem = output_stem(result.path)
    single = len(result.recordings) == 1
    return [
        (index, out_dir / (f"{stem}.jsonl" if single else f"{stem}-{index}.jsonl"), rec)
        for index, rec in result.recordings
    ]


def import_files(paths: Iterable[str | Path], out_dir: str | Path) -> Iterator[ImportOutcome]:
    """Convert each file and write its captures into ``out_dir`` (created when missing).

    Raises :class:`InteropError` before writing anything when two inputs would
    write the same file, or the output folder cannot be made.
    """
    out = Path(out_dir)
    results: list[tuple[Path, Imported | str]] = []
    for raw in paths:
        source = Path(raw)
        try:
            results.append((source, read_file(source)))
        except InteropError as exc:
            results.append((source, str(exc)))
    claimed: dict[Path, Path] = {}
    for source, result in results:
        if isinstance(result, str):
            continue
        for _, target, _ in targets_for(result, out):
            if target in claimed:
                raise InteropError(
                    f"{source} and {claimed[target]} would both be written as {target}; "
                    "import them into separate folders"
                )
            claimed[target] = source
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InteropError(f"cannot create {out}: {exc.strerror or exc}") from None
    for source, result in results:
        if isinstance(result, str):
            yield ImportOutcome(source, error=result)
            continue
        outcome = ImportOutcome(source, result.fmt, skipped=result.skipped,
                                problems=result.problems)  # fmt: skip
        for index, target, rec in targets_for(result, out):
            try:
                write_atomically(target, render_capture(rec))
            except OSError as exc:
                outcome.problems.append(f"cannot write {target}: {exc.strerror or exc}")
                continue
            outcome.written.append((index, target, rec))
        yield outcome
