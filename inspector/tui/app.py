"""The Textual application: a finished trace, a live feed, or the picker.

``InspectorApp(source)`` takes

* a :class:`~inspector.core.trace.Trace` — a capture already normalized;
* a :class:`~inspector.feeds.Feed` — a trace that grows while it is shown: the
  app runs ``feed.run(notify)`` in an async worker on its own event loop (so
  the trace is only mutated on the thread that renders it) and repaints at
  most :attr:`InspectorApp.repaint_rate` times a second however often
  ``notify`` is called; the cursor follows the newest frame until the user
  moves, ``f`` follows again, ``c`` calls ``feed.cancel()``;
* ``None`` — the picker over ``captures`` (the bundled library by default).

:func:`~inspector.tui.run.run_app` is the one call live mode and the CLI use.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType

from ..core.trace import Trace
from ..feeds import Feed
from ..viewmodel.palette import DARK_ANSI
from ..viewmodel.throttle import RepaintThrottle
from .screens.main import MainScreen
from .screens.picker import PickerScreen
from .widgets.status import source_label

__all__ = ["InspectorApp"]


class InspectorApp(App[int]):
    """Frames · Events · Blocks · State over one trace (see the module docstring)."""

    CSS_PATH = "inspector.tcss"
    TITLE = "inspector"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+c",
            "quit",
            "Quit",
            show=False,
            priority=True,
            id="app.interrupt",
            tooltip="Quit at once, from any screen",
        ),
    ]

    def __init__(
        self,
        source: Trace | Feed | None = None,
        *,
        captures: Path | None = None,
        keymap: Mapping[str, str] | None = None,
        position: int = 0,
        repaint_rate: float = 30.0,
    ) -> None:
        super().__init__()
        # Textual's dark ANSI theme draws magenta (reasoning, signatures) as its red.
        self.ansi_theme_dark = DARK_ANSI
        self.source = source
        self.captures = captures
        self.position = position
        self.repaint_rate = repaint_rate
        self.throttle: RepaintThrottle | None = None
        #: Why the keymap file was not used, shown once mounted (see :mod:`.run`).
        self.keymap_problem: str | None = None
        if keymap:
            self.set_keymap(dict(keymap))

    def on_mount(self) -> None:
        """Show the trace, start the feed, or open the picker."""
        self._quiet_garbage_collector()
        if self.keymap_problem is not None:
            self.notify(self.keymap_problem, severity="warning", timeout=10, markup=False)
        source = self.source
        if source is None:
            self.push_screen(PickerScreen(self.captures))
        elif isinstance(source, Trace):
            label = source_label(source.source)
            self.push_screen(MainScreen(source, source=label, position=self.position))
        else:
            screen = MainScreen(source.trace, source=source.description, feed=source, position=-1)
            screen.cursor.follow = True
            self.push_screen(screen)
            self.throttle = RepaintThrottle(
                screen.trace_grew,
                self._schedule,
                time.monotonic,
                1 / self.repaint_rate,
            )
            self._run_feed(source, screen, self.throttle)

    def _quiet_garbage_collector(self) -> None:
        # Rendering churns through short-lived strips, and CPython's default
        # thresholds then run a full collection about four times a second, each
        # 60-90 ms over the trace's objects: a key that meets one waits past
        # 100 ms (benchmarks/bench_tui.py, docs/performance.md). Full
        # collections become rare, and what exists at startup (the loaded trace)
        # is frozen out of them; both are undone when the app stops.
        self._gc_threshold = gc.get_threshold()
        gc.set_threshold(self._gc_threshold[0], self._gc_threshold[1], 100)
        gc.freeze()

    def on_unmount(self) -> None:
        """Give the garbage collector back its usual settings."""
        gc.unfreeze()
        gc.set_threshold(*self._gc_threshold)

    def _schedule(self, delay: float, callback: Callable[[], None]) -> None:
        # Textual timers cannot have a zero interval: "now" is the next loop turn.
        if delay <= 0:
            self.call_later(callback)
        else:
            self.set_timer(delay, callback)

    @work(exclusive=True, group="feed", exit_on_error=False)
    async def _run_feed(self, feed: Feed, screen: MainScreen, throttle: RepaintThrottle) -> None:
        """Feed the trace; every change only marks a repaint as due (coalesced)."""
        screen.feed_running = True
        try:
            await feed.run(throttle.notify)
        except Exception as exc:
            # The feed should end the stream itself; if it could not, say why.
            from ..redact.messages import clean_message  # an unforeseen error: no key in it

            self.notify(f"The stream stopped: {clean_message(str(exc))}", severity="error",
                        markup=False)  # fmt: skip
        # Not reached when the app exits (the worker is cancelled): nothing to show then.
        screen.feed_running = False
        screen.feed_ended = True
        throttle.flush()
        state = screen.index.stream_state_at(screen.index.n_events)
        self.notify(f"Stream ended: {state}", timeout=3)

    async def action_quit(self) -> None:
        """Leave (Ctrl+C): the feed worker is cancelled with the app."""
        self.exit(0)
