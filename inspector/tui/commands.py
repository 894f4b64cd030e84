"""The command palette (Ctrl+P): the main screen's actions, only those that make sense now."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..viewmodel.cursor import Breakpoint, Cursor, Player
from ..viewmodel.index import TraceIndex
from ..viewmodel.matches import Matches

__all__ = ["Command", "InspectorCommands", "PaletteScreen", "commands_for"]


@runtime_checkable
class PaletteScreen(Protocol):
    """What the palette reads and runs on a screen (the main screen is one).

    A protocol, not the main screen's class: that screen names this module's
    provider, so this module cannot import it back (no import circle).
    """

    cursor: Cursor
    player: Player
    index: TraceIndex
    untimed_rate: float | None
    matches: Matches | None
    maximized: Any
    feed: Any
    feed_running: bool
    chosen_block: int | None

    @property
    def app(self) -> Any: ...

    def breakpoint_target(self) -> Breakpoint | None: ...
    def can_export(self) -> bool: ...
    def copy_target(self) -> tuple[str, str] | None: ...
    def clear_breakpoints(self) -> None: ...
    def action_back(self) -> None: ...
    def action_breakpoint(self) -> None: ...
    def action_breakpoints(self) -> None: ...
    def action_cancel_feed(self) -> None: ...
    def action_copy(self) -> None: ...
    def action_details(self) -> None: ...
    def action_end(self) -> None: ...
    def action_export(self) -> None: ...
    def action_follow(self) -> None: ...
    def action_goto_prompt(self) -> None: ...
    def action_help(self) -> None: ...
    def action_home(self) -> None: ...
    def action_maximize_pane(self) -> None: ...
    def action_next_problem(self) -> None: ...
    def action_play(self) -> None: ...
    def action_previous_problem(self) -> None: ...
    def action_search(self) -> None: ...
    def action_search_step(self, delta: int) -> None: ...
    def action_speed(self, steps: int) -> None: ...
    def action_step(self, delta: int) -> None: ...
    def action_step_event(self, delta: int) -> None: ...


class Command(NamedTuple):
    """One palette entry."""

    name: str
    run: Callable[[], object]
    help: str


def commands_for(screen: PaletteScreen) -> list[Command]:
    """What the palette offers on ``screen`` right now."""
    cursor = screen.cursor
    out: list[Command] = []
    add = out.append
    if not cursor.at_end:
        add(Command("Step: next frame", partial(screen.action_step, 1), "→ / n"))
        add(Command("Step: next event", partial(screen.action_step_event, 1), "]"))
        add(Command("Go to the end", screen.action_end, "end: the stream as it finally is"))
    if cursor.position > -1:
        add(Command("Step: previous frame", partial(screen.action_step, -1), "← / p"))
        add(Command("Step: previous event", partial(screen.action_step_event, -1), "["))
        add(Command("Go to the start", screen.action_home, "home: before the first frame"))
    if screen.player.playing:
        add(Command("Play: pause", screen.action_play, "space"))
        add(Command("Play: faster", partial(screen.action_speed, 1), "+"))
        add(Command("Play: slower", partial(screen.action_speed, -1), "-"))
    elif screen.index.n_frames:
        if screen.untimed_rate is not None:
            add(Command("Play at a fixed rate (no timing recorded)", screen.action_play, "space"))
        else:
            add(Command("Play with the recorded timing", screen.action_play, "space"))
    if screen.index.n_frames:
        add(Command("Go to frame…", screen.action_goto_prompt, ": a frame number"))
    after = 0 if cursor.event is None else cursor.event + 1
    if screen.index.problems.next_event(after) is not None:
        add(Command("Jump to the next error or violation", screen.action_next_problem, "e"))
    if (
        cursor.event is not None
        and screen.index.problems.events[:1]
        and (screen.index.problems.events[0] < cursor.event)
    ):
        add(Command("Jump to the previous error or violation", screen.action_previous_problem, "E"))
    breakpoint = screen.breakpoint_target()
    if breakpoint is not None:
        verb = "Clear" if breakpoint in cursor.breakpoints else "Set"
        add(
            Command(
                f"Breakpoint: {verb.lower()} on {breakpoint[1]}",
                screen.action_breakpoint,
                "b: play stops on it",
            )
        )
    if cursor.breakpoints:
        add(Command("Breakpoints: list…", screen.action_breakpoints, "B: clear one or all"))
        add(Command("Breakpoints: clear all", screen.clear_breakpoints, "remove every breakpoint"))
    if screen.index.n_frames:
        add(Command("Search frames and text", screen.action_search, "/"))
    if screen.matches is not None and len(screen.matches):
        add(Command("Search: next match", partial(screen.action_search_step, 1), "ctrl+g"))
        add(Command("Search: previous match", partial(screen.action_search_step, -1), "N"))
    if screen.copy_target() is not None:
        add(Command("Copy the selection", screen.action_copy, "y: to the clipboard (OSC 52)"))
    if screen.maximized is not None:
        add(Command("Restore the layout", screen.action_maximize_pane, "m / esc"))
    else:
        add(Command("Maximize the focused pane", screen.action_maximize_pane, "m"))
    if screen.feed is not None and not cursor.follow:
        add(Command("Live: follow the newest frame", screen.action_follow, "f"))
    if screen.feed is not None and screen.feed_running:
        add(Command("Live: cancel the stream", screen.action_cancel_feed, "c"))
    add(Command("Show the exchange details", screen.action_details, "d: request, response"))
    if screen.can_export():
        add(
            Command("Export…", screen.action_export, "x: anonymized capture, golden events, report")
        )
    if screen.chosen_block is not None:
        add(Command("Blocks: follow the cursor again", screen.action_back, "esc"))
    add(Command("Help: keys", screen.action_help, "?"))
    add(Command("Quit", screen.app.exit, "q"))
    return out


class InspectorCommands(Provider):
    """Offers :func:`commands_for` the screen the palette was opened on."""

    def _commands(self) -> list[Command]:
        screen = self.screen
        return commands_for(screen) if isinstance(screen, PaletteScreen) else []

    async def discover(self) -> Hits:
        """Every command that makes sense now, before anything is typed."""
        for command in self._commands():
            yield DiscoveryHit(command.name, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        """Commands matching what was typed."""
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, help=command.help)
