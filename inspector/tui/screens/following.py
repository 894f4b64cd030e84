"""Following a live feed on a main screen pushed over a list (a proxy flow, a replay)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...viewmodel.throttle import RepaintThrottle
from .main import MainScreen

__all__ = ["follow_on_screen"]


def follow_on_screen(
    screen: MainScreen,
    feed: Any,
    schedule: Callable[[float, Callable[[], None]], None],
) -> None:
    """Run ``feed`` for ``screen``, repainting it coalesced, and say when it ended."""

    def repaint() -> None:
        if screen.is_mounted:
            screen.trace_grew()

    throttle = RepaintThrottle(repaint, schedule, time.monotonic, 1 / 30)

    async def follow() -> None:
        screen.feed_running = True
        try:
            await feed.run(throttle.notify)
        finally:
            screen.feed_running = False
            screen.feed_ended = True  # "◉ live · ended", and the clock stops
            throttle.flush()
        if screen.is_mounted:
            state = screen.index.stream_state_at(screen.index.n_events)
            screen.notify(f"Stream ended: {state}", timeout=3)
            screen.refresh_view()

    # Bound to the screen: escape removes it, and with it the worker.
    screen.run_worker(follow(), group="flow", exclusive=True, exit_on_error=False)
