"""Python's cycle collector held back while long-lived objects are made.

Loading a capture, exporting a stream and importing the exporter each make
from hundreds of thousands to millions of containers that live to the end of
the work and form no reference cycles: every collector pass walks them all
again for nothing (about 3% of ``inspector check`` on a 30 MB capture, a
sixth of an export, ~5 ms of ``inspector export``'s start-up). What they hold
is freed by reference counting anyway.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off inside the block, and after it as it was before.

    A caller that had turned it off keeps it off.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
