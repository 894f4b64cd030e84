"""Writing a live exchange to a capture file while it happens.

The header is written as soon as the response status and headers are known
(or the request failed without a response), then every chunk as it arrives,
flushed, so the file is a readable capture at every moment and nothing of
the stream is held in memory. When the stream ends, the end record says how,
and the header is rewritten once with the final timings.

The output path is never opened by name for writing: the capture is created
as a new temporary file in the same directory (``O_EXCL``, so nothing planted
there is followed) and then linked to the path — which never replaces
anything: when the name is taken (an earlier capture, a second ``record``
started in the same second, a planted symlink), the next free name
(``NAME-2.jsonl``) is used and :attr:`CaptureSink.path` says which. Lines
are written by :mod:`inspector.capture_writer`, so ``check`` reads back
whatever is recorded. The final header rewrite copies
the body from the open file (in blocks, so memory stays bounded) into another
new temporary file that atomically replaces the capture: a crash at any point
leaves a valid capture.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Any, Final

from ..capture_writer import LineBudget, end_line, header_line, link_exclusive
from ..terminal import safe_path

__all__ = ["CaptureSink", "check_writable"]

_COPY_BLOCK: Final = 1 << 20


def check_writable(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as a capture, or None if it can."""
    target = Path(path)
    shown = safe_path(target)
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"{shown}: cannot use as the capture ({exc.strerror or exc})"
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            return f"{shown}: is a symbolic link; not following it (remove it or choose another -o)"
        if stat.S_ISDIR(info.st_mode):
            return f"{shown}: is a directory, not a regular file"
        if not stat.S_ISREG(info.st_mode):
            return f"{shown}: not a regular file (a FIFO, socket or device); choose another -o"
    parent = target.parent if str(target.parent) else Path(".")
    from ..export.output import UnsafeOutput, check_output_dir

    try:
        check_output_dir(parent)  # another user's symlink on the way: refused, as export does
    except UnsafeOutput as exc:
        return str(exc)
    if not parent.is_dir():
        return f"{shown}: the directory {safe_path(parent)} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{shown}: not writable (the directory {safe_path(parent)} is not writable)"
    return None


def _default_mode() -> int:
    # What open() would create: 0o666 less the umask (mkstemp makes 0o600).
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _new_file_beside(path: Path) -> tuple[IO[bytes], Path]:
    """A new, empty file in ``path``'s directory, opened for reading and writing."""
    parent = path.parent if str(path.parent) else Path(".")
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=parent)
    with contextlib.suppress(OSError):
        os.fchmod(fd, _default_mode())
    return os.fdopen(fd, "w+b"), Path(name)


class CaptureSink:
    """A capture that opens when the response arrives and records it to the end.

    ``path=None`` records nothing (every method is then a no-op), so the live
    feed needs no special case for "no capture".
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        #: The path asked for, when the capture went to another name (it was taken).
        self.requested: Path | None = None
        self._file: IO[bytes] | None = None
        self._header_size = 0
        self._budget: LineBudget | None = None
        self.closed = False

    @property
    def opened(self) -> bool:
        """Whether the header has been written."""
        return self._file is not None or self.closed

    def open(self, header: dict[str, Any]) -> None:
        """Write the header (once) to a new file and put it at the path."""
        if self.path is None or self.opened:
            return
        file, temporary = _new_file_beside(self.path)
        try:
            line = header_line(header)
            file.write(line)
            file.flush()
            placed = link_exclusive(temporary, self.path)
        except BaseException:
            file.close()
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        if placed != self.path:
            self.requested, self.path = self.path, placed
        self._file = file
        self._header_size = len(line)
        self._budget = LineBudget(len(line))

    def chunk(self, time: float, data: bytes) -> None:
        """Append one chunk as received (written through; nothing is kept)."""
        if self._file is not None and self._budget is not None:
            lines = self._budget.lines(time, data)
            if lines:
                self._file.write(b"".join(lines))
                self._file.flush()

    def close(self, header: dict[str, Any], reason: str, time: float, error: str | None) -> None:
        """Write the end record, then the header's final form (timings)."""
        if self.path is None or self.closed:
            return
        self.open(header)  # a request that failed before any response still gets a capture
        file = self._file
        assert file is not None
        note = self._budget.note(error) if self._budget is not None else error
        file.write(end_line(reason, time, note))
        file.flush()
        self.closed = True
        self._file = None
        try:
            self._rewrite_header(file, header)
        finally:
            file.close()

    def _rewrite_header(self, file: IO[bytes], header: dict[str, Any]) -> None:
        # Copied from our own open file, not re-read by name: whatever is at the
        # path now, the capture written is the one recorded.
        assert self.path is not None
        out, temporary = _new_file_beside(self.path)
        try:
            with out:
                out.write(header_line(header))
                file.seek(self._header_size)
                while block := file.read(_COPY_BLOCK):
                    out.write(block)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
