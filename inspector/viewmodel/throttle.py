"""Coalescing repaints: a feed may notify thousands of times a second.

A live feed calls ``notify`` after every chunk. Repainting each time would
flood the UI at 5,000 frames/s, so :class:`RepaintThrottle` turns any burst
of notifications into at most one repaint per ``min_interval``: the first
notification schedules a repaint at the next allowed moment, later ones
before it fires only mark that there is more to show. Nothing is dropped —
the repaint reads the trace as it is by then.

The clock and the scheduler are injected, so the rate is testable without
waiting on real time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["RepaintThrottle"]


class RepaintThrottle:
    """At most one ``repaint()`` per ``min_interval`` seconds, however often notified."""

    def __init__(
        self,
        repaint: Callable[[], None],
        schedule: Callable[[float, Callable[[], None]], Any],
        clock: Callable[[], float],
        min_interval: float = 1 / 30,
    ) -> None:
        self._repaint = repaint
        self._schedule = schedule
        self._clock = clock
        self.min_interval = min_interval
        self._last: float | None = None
        self._scheduled = False
        #: Counters, for tests and the benchmark.
        self.notifications = 0
        self.repaints = 0

    def notify(self) -> None:
        """Something changed: make sure a repaint is scheduled."""
        self.notifications += 1
        if self._scheduled:
            return
        self._scheduled = True
        now = self._clock()
        delay = 0.0 if self._last is None else max(0.0, self._last + self.min_interval - now)
        self._schedule(delay, self._fire)

    def flush(self) -> None:
        """Repaint now (the stream ended: show its final state without delay)."""
        self._scheduled = False
        self._last = self._clock()
        self.repaints += 1
        self._repaint()

    def _fire(self) -> None:
        if self._scheduled:
            self.flush()
