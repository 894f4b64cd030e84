"""``inspector import``: every streamed exchange of cassettes and HAR logs, written as captures.

Output names come from the *input file's name* only — never from anything
inside the file — reduced to ``[A-Za-z0-9._-]``: ``NAME.jsonl`` for a file
with one streamed exchange, ``NAME-N.jsonl`` (N its place in the file) when
there are several. Each capture is written by the one capture writer
(:mod:`inspector.capture_writer`, so ``check`` reads it back) to a
temporary file in the output folder, then linked to its name — never over
an existing file: when the name is taken, the next free one
(``NAME-2.jsonl``) is used and the outcome says so. An output folder whose
path goes through another user's symbolic link is refused, as export
refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .capture import Recording
from .capture_writer import capture_lines, link_exclusive
from .export.output import UnsafeOutput, check_output_dir, stage_file
from .interop import Imported, InteropError, read_file
from .interop.format_sniff import sniff_format
from .library import iter_files_below
from .terminal import safe_path

__all__ = ["ImportOutcome", "expand_inputs", "import_files", "output_stem", "stray_reason"]

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
    #: (name asked for, name written) for each capture whose name was taken.
    renamed: list[tuple[Path, Path]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    #: Why a file named on the command line was passed over: not a cassette or HAR log.
    stray: str | None = None


def targets_for(result: Imported, out_dir: Path) -> list[tuple[int, Path, Recording]]:
    """Where each recording of one file goes."""
    stem = output_stem(result.path)
    single = len(result.recordings) == 1
    return [
        (index, out_dir / (f"{stem}.jsonl" if single else f"{stem}-{index}.jsonl"), rec)
        for index, rec in result.recordings
    ]


_CANDIDATES: Final = (".yaml", ".yml", ".json", ".har")


def _is_candidate(path: Path) -> bool:
    return path.suffix.lower() in _CANDIDATES


def _is_foreign(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return sniff_format(file.read(4096)) is not None
    except OSError:
        return False


def stray_reason(path: Path) -> str | None:
    """Why a file given by name is not imported (None: it is a cassette or HAR log, or unreadable).

    A shell glob (``dir/*``) names whatever the folder holds: a capture, a
    README, a script. Such a file is passed over with a note, as a folder's
    search passes it over silently; a file that cannot be read, or looks like a
    cassette and is not one, is still the error its reading gives.
    """
    try:
        if not path.is_file() or path.is_symlink():
            return None
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError:
        return None
    if sniff_format(head) is not None:
        return None
    return f"{safe_path(path)}: not a VCR cassette or HAR file; skipped"


def _safe_folder(parts: Iterable[str]) -> Path:
    return Path(*(_UNSAFE.sub("_", part).strip("._-") or "_" for part in parts))


def expand_inputs(paths: Iterable[str | Path]) -> list[tuple[Path, Path]]:
    """``(file, output sub-folder)``: files as given, cassettes and HAR files below folders.

    A folder's layout is kept (one folder: straight into the output; several
    inputs: each folder under its own name); files below it that are not a
    cassette or HAR log (by their first bytes) are passed over.
    """
    given = [Path(p) for p in paths]
    found: list[tuple[Path, Path]] = []
    for path in given:
        if not path.is_dir():
            found.append((path, Path()))
            continue
        base = [path.resolve().name] if len(given) > 1 else []
        unlisted: list[tuple[Path, OSError]] = []
        for file in iter_files_below(path, _is_candidate, unlisted):
            if not file.is_symlink() and _is_foreign(file):
                sub = _safe_folder([*base, *file.parent.relative_to(path).parts])
                found.append((file, sub))
    return found


def import_files(paths: Iterable[str | Path], out_dir: str | Path) -> Iterator[ImportOutcome]:
    """Convert each file (folders are searched) and write its captures below ``out_dir``.

    Files are read one at a time. A file whose captures would land on a name
    an earlier input already wrote is not written (its outcome says so);
    raises :class:`InteropError` when the output folder cannot be made.
    """
    out = Path(out_dir)
    try:
        check_output_dir(out)
        out.mkdir(parents=True, exist_ok=True)
    except UnsafeOutput as exc:
        raise InteropError(str(exc)) from None
    except OSError as exc:
        raise InteropError(f"cannot create {out}: {exc.strerror or exc}") from None
    claimed: dict[Path, Path] = {}
    for source, sub in expand_inputs(paths):
        stray = stray_reason(source)
        if stray is not None:
            yield ImportOutcome(source, stray=stray)
            continue
        try:
            result = read_file(source)
        except InteropError as exc:
            yield ImportOutcome(source, error=str(exc))
            continue
        folder = out / sub
        targets = targets_for(result, folder)
        taken = next((t for _, t, _ in targets if t in claimed), None)
        if taken is not None:
            yield ImportOutcome(
                source,
                result.fmt,
                error=f"{source}: would overwrite {taken}, written from {claimed[taken]}; "
                "import it into another folder",
            )
            continue
        outcome = ImportOutcome(
            source, result.fmt, skipped=result.skipped, problems=result.problems
        )
        for index, target, rec in targets:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                lines = capture_lines(rec.header, rec.chunks, rec.end)
                placed = link_exclusive(stage_file(folder, target.name, lines), target)
            except (OSError, ValueError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                outcome.problems.append(f"cannot write {target}: {why}")
                continue
            if placed != target:
                outcome.renamed.append((target, placed))
            claimed[target] = source
            outcome.written.append((index, placed, rec))
        yield outcome
