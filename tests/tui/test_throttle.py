"""Live repaints are coalesced: however often the feed notifies, at most one per interval."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from inspector.viewmodel.throttle import RepaintThrottle


class FakeLoop:
    """A clock and a timer queue that only move when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def schedule(self, delay: float, callback: Callable[[], None]) -> None:
        self.timers.append((self.now + delay, callback))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, callback in due:
            callback()


def test_five_thousand_notifications_a_second_make_thirty_repaints() -> None:
    loop = FakeLoop()
    repaints: list[float] = []
    throttle = RepaintThrottle(lambda: repaints.append(loop.now), loop.schedule, lambda: loop.now)
    for _ in range(5000):  # one second of 5,000 frames/s
        throttle.notify()
        loop.advance(1 / 5000)
    assert throttle.notifications == 5000
    assert 29 <= len(repaints) <= 31
    gaps = [b - a for a, b in itertools.pairwise(repaints)]
    assert min(gaps) >= 1 / 30 - 1e-9


def test_the_first_change_repaints_at_once_and_nothing_is_lost() -> None:
    loop = FakeLoop()
    repaints: list[float] = []
    throttle = RepaintThrottle(lambda: repaints.append(loop.now), loop.schedule, lambda: loop.now)
    throttle.notify()
    loop.advance(0)
    assert repaints == [0.0]
    throttle.notify()  # right after a repaint: waits for the interval, but is not dropped
    loop.advance(0.01)
    assert repaints == [0.0]
    loop.advance(0.03)
    assert len(repaints) == 2


def test_flush_repaints_now_and_cancels_the_pending_one() -> None:
    loop = FakeLoop()
    repaints: list[float] = []
    throttle = RepaintThrottle(lambda: repaints.append(loop.now), loop.schedule, lambda: loop.now)
    throttle.notify()
    throttle.flush()
    loop.advance(1.0)
    assert len(repaints) == 1
