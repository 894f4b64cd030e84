"""An export's output files while it runs: in memory, or staged on disk until it verified.

Nothing is left behind unless everything verified: staged files are hidden
temporary files, renamed into place by :meth:`Outputs.commit` or removed —
with the folders the export made — by :meth:`Outputs.discard`.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO

from ..terminal import safe_path
from .options import ExportError
from .output import UnsafeOutput, check_output_dir, commit_file, stage_file

__all__ = ["Outputs", "write_errors"]


class Outputs(Mapping[str, bytes]):
    """An export's files by name, as they are rendered: in memory, or staged on disk.

    Without a ``directory`` they are kept as bytes (:func:`prepare_export`).
    With one, each is written as soon as it is rendered to a fresh hidden
    temporary file there (:func:`.output.stage_file`; the folder is made on
    the first) and read back only while the leak scan reads it, so the
    outputs are never all in memory at once; :meth:`commit` renames them
    into place once everything verified, :meth:`discard` removes them — and
    the folders the export made — when it did not.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self.data: dict[str, bytes] = {}
        self.staged: dict[str, Path] = {}
        self.made: list[Path] = []  # folders this export created, deepest first

    def add(self, name: str, data: bytes | Iterable[bytes]) -> None:
        """Record (or stage) one output."""
        if self.directory is None:
            self.data[name] = data if isinstance(data, bytes) else b"".join(data)
            return
        if not self.staged:
            self.made = _make_output_dir(self.directory)
        self.staged[name] = stage_file(self.directory, name, data)

    def __getitem__(self, name: str) -> bytes:
        if self.directory is None:
            return self.data[name]
        return self.staged[name].read_bytes()

    def open(self, name: str) -> IO[bytes]:
        """One output, opened for reading (from memory, or its staged file)."""
        if self.directory is None:
            return io.BytesIO(self.data[name])
        return self.staged[name].open("rb")

    def size(self, name: str) -> int:
        """One output's size in bytes."""
        if self.directory is None:
            return len(self.data[name])
        return self.staged[name].stat().st_size

    def __iter__(self) -> Iterator[str]:
        return iter(self.data if self.directory is None else self.staged)

    def __len__(self) -> int:
        return len(self.data if self.directory is None else self.staged)

    def commit(self) -> dict[str, Path]:
        """Rename every staged file into place, in the order they were made.

        An export never replaces a file: when any of the names is taken, none is
        written (:class:`ExportError` names it).
        """
        assert self.directory is not None
        for name in self.staged:
            if os.path.lexists(self.directory / name):
                raise ExportError(
                    f"{safe_path(self.directory / name)} already exists; an export never "
                    "replaces a file (remove it, or export to another folder)"
                )
        written = {}
        for name, temp in list(self.staged.items()):
            written[name] = commit_file(temp, self.directory, name)
            del self.staged[name]
        return written

    def discard(self) -> None:
        """Remove the staged files, and the folders made for them if they are empty."""
        for temp in self.staged.values():
            with contextlib.suppress(OSError):
                temp.unlink()
        self.staged = {}
        for folder in self.made:
            try:
                folder.rmdir()
            except OSError:
                break  # not empty, or not ours to remove: neither are its parents


def _make_output_dir(out: Path) -> list[Path]:
    """Make ``out`` (refusing another user's link on the way); the folders made, deepest first."""
    check_output_dir(out)
    made = []
    folder = Path(os.path.abspath(out))
    while not os.path.lexists(folder) and folder != folder.parent:
        made.append(folder)
        folder = folder.parent
    out.mkdir(parents=True, exist_ok=True)
    check_output_dir(out)  # a link planted while the folders were made
    return made


@contextlib.contextmanager
def write_errors(out: Path) -> Iterator[None]:
    """Failures to make ``out`` or write into it, as :class:`ExportError` messages."""
    try:
        yield
    except UnsafeOutput as exc:
        raise ExportError(f"Could not write into {safe_path(out)}: {exc}") from exc
    except OSError as exc:
        # Name the file only when it is not the directory itself (a failed mkdir).
        other = exc.filename is not None and Path(exc.filename) != out
        where = f" ({safe_path(exc.filename)})" if other else ""
        raise ExportError(
            f"Could not write into {safe_path(out)}: {exc.strerror or exc}{where}"
        ) from exc
