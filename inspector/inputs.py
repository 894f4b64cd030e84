"""What every reader of a stream file shares: the :class:`Recording` it becomes, and
the one safe way to open the file.

Both the capture reader (:mod:`inspector.capture`) and the readers of other
tools' files (:mod:`inspector.interop`) build a :class:`Recording` and refuse
what cannot be read with :class:`UnreadableInput`; this module holds those
pieces so neither has to import the other for them. Files are untrusted:
:func:`open_regular_file` refuses a FIFO, socket or device without opening
it (so nothing blocks) and anything over a byte limit, and every message
names the path escaped (:func:`inspector.terminal.safe_path`).
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from .core.transport import TransportEnd
from .terminal import safe_path

__all__ = [
    "CAPTURE_FORMAT",
    "CAPTURE_VERSION",
    "MAX_INPUT_BYTES",
    "STDIN",
    "STDIN_NAME",
    "Recording",
    "UnreadableInput",
    "framing_of",
    "input_name",
    "open_regular_file",
    "os_refusal",
    "read_stdin",
    "sizeof",
    "stream_head",
    "too_large",
]

#: What a capture's header says it is, and the one version this inspector reads.
CAPTURE_FORMAT: Final = "llm-stream-capture"
CAPTURE_VERSION: Final = 1

#: The most bytes read from one file or from stdin.
MAX_INPUT_BYTES: Final = 1 << 30
#: The path that means "read standard input".
STDIN: Final = "-"
#: What a recording read from stdin is called in messages.
STDIN_NAME: Final = "stdin"


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


def framing_of(rec: Recording) -> str:
    """The recording's framing: its header's word, else what its first bytes look like.

    An HTTP error response is no stream (its body is classified, never framed): ``sse``.
    """
    from .core.framing.detect import detect_framing, framing_of_header

    if rec.status is not None and rec.status >= 400:
        return "sse"
    named = framing_of_header(rec.header)
    if named is not None:
        return named
    return detect_framing(stream_head(rec))


def stream_head(rec: Recording) -> bytes:
    """The recorded stream's first bytes: what tells its framing, or what it is if no stream."""
    from .core.framing.detect import SNIFF_BYTES  # (the framings' package: imported when asked)

    return b"".join(data for _, data in rec.chunks[:64])[:SNIFF_BYTES]


class UnreadableInput(ValueError):
    """The input cannot be read as a stream at all; the message says why, path first."""


def sizeof(count: int) -> str:
    """A byte count for a message: ``1 GiB`` when it is a whole unit, else ``1,234 bytes``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and not count % (1 << shift):
            return f"{count >> shift} {unit}"
    return f"{count:,} bytes"


def too_large(name: str, limit: int) -> UnreadableInput:
    """The refusal of an input that holds more than ``limit`` bytes."""
    return UnreadableInput(f"{name}: more than {sizeof(limit)}, the most this inspector reads")


def input_name(path: str | Path) -> str:
    """How an input is named in messages: ``stdin`` for ``-``, else the escaped path."""
    return STDIN_NAME if os.fspath(path) == STDIN else safe_path(path)


def read_stdin(limit: int) -> bytes:
    """All of standard input, at most ``limit`` bytes (raises :class:`UnreadableInput`)."""
    stdin = sys.stdin
    if stdin is None:
        raise UnreadableInput(f"{STDIN_NAME}: there is no standard input")
    if stdin.isatty():
        raise UnreadableInput(
            f"{STDIN_NAME}: is a terminal; pipe a stream in, e.g. curl -N ... | inspector events -"
        )
    data = stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise too_large(STDIN_NAME, limit)
    return data


# File types that are refused by name: opening a FIFO blocks until a writer
# comes, and a device like /dev/zero never ends.
_FILE_TYPES: Final = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "not a regular file (a FIFO)"),
    (stat.S_ISSOCK, "not a regular file (a socket)"),
    (stat.S_ISCHR, "not a regular file (a character device)"),
    (stat.S_ISBLK, "not a regular file (a block device)"),
)


def _refuse_unless_regular(mode: int, size: int, name: str, limit: int) -> None:
    if not stat.S_ISREG(mode):
        what = next((why for test, why in _FILE_TYPES if test(mode)), "not a regular file")
        raise UnreadableInput(f"{name}: {what}")
    if size > limit:
        raise UnreadableInput(
            f"{name}: {sizeof(size)} is more than {sizeof(limit)}, the most this inspector reads"
        )


def os_refusal(exc: OSError, name: str) -> UnreadableInput:
    """The refusal that an operating-system error reading ``name`` stands for."""
    if isinstance(exc, FileNotFoundError):
        return UnreadableInput(f"{name}: no such file")
    if isinstance(exc, PermissionError):
        return UnreadableInput(f"{name}: permission denied")
    if isinstance(exc, IsADirectoryError):
        return UnreadableInput(f"{name}: is a directory")
    return UnreadableInput(f"{name}: cannot read ({exc.strerror or exc})")


def open_regular_file(path: str | Path, name: str, limit: int) -> IO[bytes]:
    """Open a regular file of at most ``limit`` bytes, or raise :class:`UnreadableInput`.

    ``name`` is how the file is named in the message (already escaped).
    """
    # stat first, so a FIFO or device is refused without opening it; open
    # non-blocking and check again, in case the file was swapped in between.
    try:
        info = os.stat(path)
        _refuse_unless_regular(info.st_mode, info.st_size, name, limit)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise os_refusal(exc, name) from None
    try:
        info = os.fstat(fd)
        _refuse_unless_regular(info.st_mode, info.st_size, name, limit)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")
