"""How the bytes of a stream stopped coming: :class:`TransportEnd` and its reasons.

Its own module, below the trace, so that what only reads or writes captures
(:mod:`inspector.inputs`, :mod:`inspector.capture`, ``inspector frames``) does
not import the trace and its logs to name how a recording ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["TRANSPORT_END_REASONS", "TransportEnd"]

#: Every reason a transport may end for, as a capture's ``end`` record names it.
TRANSPORT_END_REASONS: Final = ("eof", "reset", "timeout", "progress_timeout", "cancelled")


@dataclass(frozen=True, slots=True)
class TransportEnd:
    """How the bytes stopped coming (``eof`` also for the end of a file)."""

    reason: str
    time: float | None = None
    error: str | None = None
