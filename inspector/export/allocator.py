"""Large buffers given back to the system as soon as they are freed (glibc only).

An export of a large stream makes a few buffers of the stream's size one
after another (the joined body, its rewritten copy, the capture, the texts
the leak scan reads). glibc serves a large request from a mapping of its own
and unmaps it when freed — but each time it unmaps one it raises its
threshold for the next, so the next buffer of that size comes from the heap,
which is rarely given back: the process's peak then counts several
generations of buffers that are long dead. Setting the threshold explicitly
turns that adjustment off, and every large buffer's memory is returned when
it is freed: on a 30 MB stream a quarter less peak memory, for about a
quarter of a second more system time (fresh pages for each buffer).

Only the ``inspector export`` command calls this, for itself: it changes how
the whole process allocates.
"""

from __future__ import annotations

import sys
from typing import Final

__all__ = ["unmap_large_buffers"]

# mallopt(3): M_MMAP_THRESHOLD, and glibc's own default for it.
_M_MMAP_THRESHOLD: Final = -3
_THRESHOLD: Final = 128 * 1024


def unmap_large_buffers() -> bool:
    """Fix glibc's mmap threshold at its default; whether it was set.

    Does nothing (False) where the C library has no ``mallopt`` (musl,
    macOS, Windows).
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only here: a few milliseconds that small exports do not pay

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _THRESHOLD))
