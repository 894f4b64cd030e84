"""Playing a capture that has no timing (a raw ``.sse`` body) at a fixed frame rate.

:class:`~.cursor.Player` maps wall time to the stream's recorded time. A raw
SSE body has no times (every frame at 0 s, ``TraceIndex.timed`` is False), so
playing it with its "recorded timing" would jump to the end at once.
:class:`FixedRatePlayer` gives frame ``i`` the time ``(i + 1) / rate``
instead; ``+`` / ``-`` change the speed as for any capture, so the rate is
``rate × speed`` frames a second.
"""

from __future__ import annotations

from typing import Final

from .cursor import Cursor, Player

__all__ = ["UNTIMED_RATE", "FixedRatePlayer"]

#: Frames a second an untimed capture plays at 1×.
UNTIMED_RATE: Final = 20.0


class FixedRatePlayer(Player):
    """A player whose clock is the frame count: ``rate`` frames a second at 1×."""

    def __init__(self, cursor: Cursor, rate: float = UNTIMED_RATE, speed: float = 1.0) -> None:
        super().__init__(cursor, speed)
        self.rate = rate

    def time_at(self, position: int) -> float:
        """Frame ``position`` comes ``(position + 1) / rate`` seconds after the start."""
        last = self.cursor.index.last_position
        return (max(-1, min(position, last)) + 1) / self.rate
