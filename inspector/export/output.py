"""Writing an export's files without following anyone else's symbolic links.

The output folder may be shared (``/tmp/out``) and its names guessable
(``NAME.jsonl``), so someone else can plant a symbolic link there before the
export runs, aimed at a file of ours. Two rules keep that from working:

* a file is never opened by its final name: its bytes go to a fresh temporary
  file in the same folder, created with ``O_CREAT | O_EXCL`` (which refuses to
  follow or reuse anything already there), and :func:`os.replace` then swaps
  it in — replacing a planted link itself, never what it points to;
* the folder's path must not go through a symbolic link owned by another user
  (root's and our own are trusted): :func:`check_output_dir` refuses it.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from ..terminal import safe_path

__all__ = ["UnsafeOutput", "check_output_dir", "commit_file", "stage_file", "write_file"]

_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_ATTEMPTS: Final = 100


class UnsafeOutput(Exception):
    """The output folder is not safe to write into; the message says why."""


def _trusted_owners() -> frozenset[int]:
    getuid = getattr(os, "getuid", None)
    return frozenset({0} if getuid is None else {0, getuid()})


def check_output_dir(directory: Path) -> None:
    """Refuse a folder whose path goes through another user's symbolic link."""
    trusted = _trusted_owners()
    here = Path(os.path.abspath(directory))
    for component in (*reversed(here.parents), here):
        try:
            info = component.lstat()
        except FileNotFoundError:
            return  # the rest does not exist yet: mkdir will create real folders
        except OSError:
            continue
        if component.is_symlink() and info.st_uid not in trusted:
            raise UnsafeOutput(
                f"{safe_path(component)} is a symbolic link owned by another user "
                f"(uid {info.st_uid}); refusing to write through it"
            )


def write_file(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as ``directory/name`` via a fresh temporary file and a rename."""
    return commit_file(stage_file(directory, name, data), directory, name)


def stage_file(directory: Path, name: str, data: bytes | Iterable[bytes]) -> Path:
    """Write ``data`` (bytes, or pieces of it) to a fresh temporary file for ``directory/name``.

    The file is not in place yet: :func:`commit_file` renames it over its
    name, or the caller unlinks it. Returns its path.
    """
    for _ in range(_ATTEMPTS):
        temp = directory / f".{name}.{os.urandom(6).hex()}.tmp"  # as secrets.token_hex(6)
        try:
            fd = os.open(temp, _FLAGS, 0o666)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as file:
                if isinstance(data, bytes | bytearray | memoryview):
                    file.write(data)
                else:
                    for piece in data:
                        file.write(piece)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return temp
    raise FileExistsError(f"could not create a temporary file in {safe_path(directory)}")


def commit_file(temp: Path, directory: Path, name: str) -> Path:
    """Give a staged file the name ``directory/name``, which must be free.

    An existing file (or a link planted there) is never replaced nor followed:
    :class:`FileExistsError`. The name is taken with a hard link, so a file that
    appears there meanwhile is not replaced either.
    """
    target = directory / name
    try:
        os.link(temp, target)
    except FileExistsError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    except OSError:
        # A file system without hard links: the name was checked free just before.
        if os.path.lexists(target):
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise FileExistsError(errno.EEXIST, "already exists", str(target)) from None
        os.replace(temp, target)
        return target
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):
        os.unlink(temp)
    return target
