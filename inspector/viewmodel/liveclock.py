"""How long a live stream has gone without progress, and how long before it is given up.

A stall behind pings looks alive — bytes arrive, the state says
``receiving`` — yet nothing the user waits for comes, and the feed's
progress timeout will end it. :class:`LiveClock` watches what the view is
shown (the events, the bytes, whether a response arrived) with the view's
own monotonic clock, and :meth:`LiveClock.words` says, in seconds:

* while connecting, or waiting for the first byte: for how long, and when
  the transport timeout gives up;
* while receiving, once nothing meaningful has come for :data:`QUIET`
  seconds: for how long (``pings only`` when bytes still arrive), and when
  the progress timeout — or, for a silent line, the transport timeout —
  gives up.

"Meaningful" is the feed's own rule: every event but heartbeats and
warnings. No Textual here: the screen asks once a second and on every
repaint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["QUIET", "LiveClock"]

#: Seconds without progress before the status line says so.
QUIET: Final = 2.0
#: Events that are not progress (the feed's rule for its progress timeout).
_NOT_PROGRESS: Final = frozenset({"stream.heartbeat", "stream.warning"})


def _seconds(value: float) -> str:
    return f"{max(0.0, value):.0f} s"


@dataclass
class LiveClock:
    """What a live view last saw happen, in its own monotonic seconds."""

    started: float
    response_at: float | None = None
    progress_at: float | None = None
    byte_at: float | None = None
    _events_seen: int = 0
    _bytes_seen: int = 0

    def saw(
        self, now: float, events: Sequence[dict[str, Any]], bytes_received: int, response: bool
    ) -> None:
        """Take in what the stream has now (only the events added since the last look)."""
        if response and self.response_at is None:
            self.response_at = now
        if bytes_received != self._bytes_seen:
            self._bytes_seen = bytes_received
            self.byte_at = now
        new = range(self._events_seen, len(events))
        if any(events[i].get("type") not in _NOT_PROGRESS for i in new):
            self.progress_at = now
        self._events_seen = len(events)

    def words(
        self,
        phase: str,
        now: float,
        *,
        progress_timeout: float | None,
        transport_timeout: float | None,
    ) -> str | None:
        """The clock's words for ``phase`` (``connecting``, ``waiting``, ``receiving``), or None."""
        if phase in ("connecting", "waiting"):
            since = self.started if phase == "connecting" else (self.response_at or self.started)
            return self._with_deadline(f"{_seconds(now - since)}", now, since, transport_timeout)
        if phase != "receiving":
            return None
        # The progress clock starts with the response, and each meaningful event resets it.
        since = self.progress_at or self.response_at or self.started
        quiet = now - since
        if quiet < QUIET:
            return None
        last_byte = self.byte_at or since
        if now - last_byte >= QUIET:
            # Not even a ping: the transport's read timeout is the nearer end.
            words = f"nothing received for {_seconds(now - last_byte)}"
            lefts = [
                timeout - (now - start)
                for timeout, start in ((transport_timeout, last_byte), (progress_timeout, since))
                if timeout is not None
            ]
            return words + _deadline(min(lefts) if lefts else None)
        words = f"pings only: no progress for {_seconds(quiet)}"
        if progress_timeout is None:
            return words + " · no progress timeout"
        return words + f" · progress timeout in {_seconds(progress_timeout - quiet)}"

    @staticmethod
    def _with_deadline(words: str, now: float, since: float, timeout: float | None) -> str:
        return words + _deadline(_left(now, since, timeout))


def _left(now: float, since: float, timeout: float | None) -> float | None:
    return None if timeout is None else timeout - (now - since)


def _deadline(left: float | None) -> str:
    return "" if left is None else f" · gives up in {_seconds(left)}"
