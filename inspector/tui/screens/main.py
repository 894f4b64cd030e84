"""The main screen: four panes in step with one cursor.

The screen owns the cursor and the player; the panes only read the trace
(through the index) and the cursor. Every key ends in the same place:
move the cursor, then :meth:`MainScreen.refresh_view`, which asks each pane
to show the state *as of the cursor*. Each pane renders only what is
visible, so a step costs the same on any capture.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.events import DescendantFocus
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Tab, Tabs

from ...core.trace import Trace
from ..commands import InspectorCommands
from ..cursor import Breakpoint, Cursor, Player
from ..index import TraceIndex, ViolationInfo
from ..widgets.blocks import BlocksPane
from ..widgets.events import EventsList, EventsPane
from ..widgets.frames import FramesList, FramesPane
from ..widgets.lines import LineList
from ..widgets.search import SearchBar
from ..widgets.state import StatePane, TransitionsList
from ..widgets.status import StatusLine, status_text

if TYPE_CHECKING:
    from ...feed import Feed

__all__ = ["PANES", "MainScreen"]

#: (pane id, title) in display order.
PANES = (("frames", "Frames"), ("events", "Events"), ("blocks", "Blocks"), ("state", "State"))

#: Repaints per second while playing.
PLAY_RATE = 30.0


class MainScreen(Screen[None]):
    """Frames · Events · Blocks · State, side by side (tabbed when narrow)."""

    # Textual declares this attribute as an instance variable, so no ClassVar here.
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (100, "-medium"),
        (150, "-wide"),
    ]

    COMMANDS: ClassVar = {InspectorCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "Next", key_display="→/n", id="step.next",
                tooltip="Next frame"),
        Binding("left,p", "step(-1)", "Prev", key_display="←/p", id="step.previous",
                tooltip="Previous frame"),
        Binding("right_square_bracket", "step_event(1)", "Event", key_display="[ ]",
                id="event.next", tooltip="Next normalized event"),
        Binding("left_square_bracket", "step_event(-1)", "Prev event", show=False,
                id="event.previous", tooltip="Previous normalized event"),
        Binding("home", "home", "Start", id="step.home",
                tooltip="Before the first frame"),
        Binding("end", "end", "End", id="step.end", tooltip="The last frame / the end of bytes"),
        Binding("space", "play", "Play", id="play.toggle",
                tooltip="Play / pause with the recorded timing"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+", show=False,
                id="play.faster", tooltip="Play faster"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False,
                id="play.slower", tooltip="Play slower"),
        Binding("e", "next_problem", "Error", id="jump.error",
                tooltip="Jump to the next error or violation"),
        Binding("b", "breakpoint", "Break", id="breakpoint.toggle",
                tooltip="Toggle a breakpoint on the selected frame's event type"),
        Binding("slash", "search", "Search", key_display="/", id="search.open",
                tooltip="Search frames and text"),
        Binding("f", "follow", "Follow", id="live.follow",
                tooltip="Follow the newest frame (live)"),
        Binding("c", "cancel_feed", "Cancel", id="live.cancel",
                tooltip="Cancel the live stream"),
        Binding("d", "details", "Details", id="details.open",
                tooltip="The exchange: request, response, timings"),
        Binding("question_mark", "help", "Help", key_display="?", id="help.open",
                tooltip="All keys"),
        Binding("tab", "pane(1)", "Next pane", show=False, id="pane.next",
                tooltip="Next pane (the one shown, when narrow)"),
        Binding("shift+tab", "pane(-1)", "Previous pane", show=False, id="pane.previous",
                tooltip="Previous pane"),
        Binding("escape", "back", "Back", show=False, id="back",
                tooltip="Close search / stop following a block / back to the picker"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit"),
    ]  # fmt: skip

    def __init__(
        self,
        trace: Trace,
        *,
        source: str,
        feed: Feed | None = None,
        from_picker: bool = False,
        position: int = 0,
    ) -> None:
        super().__init__()
        self.trace = trace
        self.source = source
        self.feed = feed
        self.feed_running = False
        self.from_picker = from_picker
        self.index = TraceIndex(trace)
        self.cursor = Cursor(self.index, position)
        self.player = Player(self.cursor)
        self.chosen_block: int | None = None
        self._play_timer: Timer | None = None
        self._checking = False

    # -- layout -----------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Status line, tabs (narrow only), the four panes, search bar, footer."""
        yield StatusLine(id="status")
        tabs = Tabs(*(Tab(title, id=f"tab-{pane}") for pane, title in PANES), id="pane-tabs")
        tabs.can_focus = False
        yield tabs
        with Container(id="panes"):
            yield FramesPane(self.index, self.cursor, id="frames")
            yield EventsPane(self.index, self.cursor, id="events")
            yield BlocksPane(self.index, id="blocks")
            yield StatePane(self.index, self.cursor, id="state")
        yield SearchBar(id="search")
        yield Footer()

    def on_mount(self) -> None:
        """First paint, with the frames list focused."""
        self._show_pane("frames")
        self.refresh_view()
        self.query_one(FramesList).focus()
        self._check_when_finished()

    class OutputChecked(Message):
        """The independent checker finished (posted by its thread)."""

        def __init__(self, found: list[ViolationInfo]) -> None:
            super().__init__()
            self.found = found

    def _check_when_finished(self) -> None:
        # The checker reads every event: run it once, off the UI thread, when
        # the stream has ended and its events can no longer change.
        if self.index.finished and not self._checking:
            self._checking = True
            self._check_output()

    @work(thread=True, exclusive=True, group="check")
    def _check_output(self) -> None:
        self.post_message(self.OutputChecked(self.index.check_output()))

    def on_main_screen_output_checked(self, message: OutputChecked) -> None:
        """Show what the checker found (normally nothing)."""
        self.index.add_output_violations(message.found)
        self.refresh_view()

    def _show_pane(self, pane: str) -> None:
        # Narrow terminals show one pane at a time; the others stay mounted.
        for name, _ in PANES:
            self.query_one(f"#{name}").set_class(name == pane, "-active")

    def _focus_pane(self, pane: str) -> None:
        targets = {"frames": FramesList, "events": EventsList, "state": TransitionsList}
        target = self.query_one(BlocksPane) if pane == "blocks" else self.query_one(targets[pane])
        self._show_pane(pane)
        target.focus()

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_chosen(self, event: Tabs.TabActivated) -> None:
        self._focus_pane((event.tab.id or "tab-frames").removeprefix("tab-"))

    def action_pane(self, delta: int) -> None:
        """Focus the next / previous pane (narrow terminals show only that one)."""
        names = [name for name, _ in PANES]
        current = "frames"
        for ancestor in self.focused.ancestors_with_self if self.focused else ():
            if ancestor.id in names and ancestor.has_class("pane"):
                current = ancestor.id
                break
        self._focus_pane(names[(names.index(current) + delta) % len(names)])

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """Tab between panes on a narrow screen: the focused pane is the one shown."""
        for ancestor in event.widget.ancestors_with_self:
            if ancestor.has_class("pane") and ancestor.id:
                self.query_one("#pane-tabs", Tabs).active = f"tab-{ancestor.id}"
                self._show_pane(ancestor.id)
                return

    # -- showing the cursor -------------------------------------------------

    def refresh_view(self) -> None:
        """Every pane and the status line, as of the cursor."""
        marked = self.index.blocks.get(self.chosen_block) if self.chosen_block is not None else None
        self.query_one(FramesPane).refresh_from(self.cursor)
        self.query_one(EventsPane).refresh_from(self.cursor, marked)
        blocks = self.query_one(BlocksPane)
        blocks.chosen = self.chosen_block
        blocks.refresh_from(self.cursor)
        self.query_one(StatePane).refresh_from(self.cursor)
        self.refresh_status()

    def refresh_status(self) -> None:
        """Only the status line (play state, breakpoints)."""
        text = status_text(
            self.index, self.cursor, self.player, self.source, live=self.feed is not None
        )
        self.query_one(StatusLine).show(text)

    def trace_grew(self) -> None:
        """The trace has more in it (live): index it, follow if asked, repaint."""
        self.index.sync()
        if self.cursor.follow:
            self.cursor.end()
        self.refresh_view()
        self._check_when_finished()

    def _move(self, move: Callable[[], bool]) -> bool:
        # A move by the user takes over from playing and from following.
        self.cursor.follow = False
        if self.player.playing:
            self._stop_playing(None)
        moved = move()
        if moved:
            self.refresh_view()
        else:
            self.refresh_status()
        return moved

    # -- actions --------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        """Next / previous frame."""
        self._move(lambda: self.cursor.step(delta))

    def action_step_event(self, delta: int) -> None:
        """Next / previous normalized event (and its frame)."""
        self._move(lambda: self.cursor.step_event(delta))

    def action_home(self) -> None:
        """Before the first frame."""
        self._move(self.cursor.home)

    def action_end(self) -> None:
        """The last position."""
        self._move(self.cursor.end)

    def action_goto_position(self, position: int) -> None:
        """Jump to a position (violation links in the State pane)."""
        self._move(lambda: self.cursor.goto(position))

    def action_next_problem(self) -> None:
        """Jump to the next stream.error or violation."""
        if not self._move(self.cursor.next_problem):
            self.notify("No error or violation after this point.", severity="warning")

    def action_play(self) -> None:
        """Play or pause with the recorded timing."""
        if self.player.playing:
            self._stop_playing(None)
            return
        self.cursor.follow = False
        self.player.start(time.monotonic())
        self._play_timer = self.set_interval(1 / PLAY_RATE, self._play_tick)
        self.refresh_view()

    def _play_tick(self) -> None:
        moved = self.player.tick(time.monotonic())
        if not self.player.playing:
            self._stop_playing(self.player.stopped_by)
        if moved:
            self.refresh_view()

    def _stop_playing(self, reason: str | None) -> None:
        self.player.stop(reason)
        if self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None
        self.refresh_status()

    def action_speed(self, steps: int) -> None:
        """Play faster / slower."""
        speed = self.player.change_speed(steps, time.monotonic())
        self.notify(f"Playback speed {speed:g}×", timeout=1.5)
        self.refresh_status()

    def breakpoint_target(self) -> Breakpoint | None:
        """What ``b`` toggles: the event's type in the Events pane, else the frame's."""
        focused = self.focused
        if isinstance(focused, EventsList) and self.cursor.event is not None:
            return ("event", str(self.trace.events[self.cursor.event].get("type")))
        return self.cursor.frame_breakpoint()

    def action_breakpoint(self) -> None:
        """Toggle a breakpoint on the selected frame's (or event's) type."""
        target = self.breakpoint_target()
        if target is None:
            self.notify("Select a frame first.", severity="warning")
            return
        now_set = self.cursor.toggle(target)
        what = "frames" if target[0] == "frame" else "events"
        verb = "Breakpoint on" if now_set else "Cleared the breakpoint on"
        self.notify(f"{verb} {what} of type {target[1]!r}", markup=False, timeout=2)
        self.refresh_view()

    def clear_breakpoints(self) -> None:
        """Remove every breakpoint."""
        self.cursor.breakpoints.clear()
        self.refresh_view()

    def action_search(self) -> None:
        """Open the search bar."""
        bar = self.query_one(SearchBar)
        bar.add_class("-open")
        bar.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        query = event.value
        hit = self.cursor.search(query)
        if hit is None:
            self.notify(f"No frame contains {query!r}", severity="warning", markup=False)
            return
        if hit.wrapped:
            self.notify("Search wrapped to the start", timeout=1.5)
        self._move(lambda: self.cursor.goto(hit.position))

    def action_follow(self) -> None:
        """Follow the newest frame until the user moves."""
        self.cursor.follow = True
        self.cursor.end()
        self.refresh_view()

    def action_cancel_feed(self) -> None:
        """Cancel the live stream (it ends ``interrupted`` / ``cancelled``)."""
        if self.feed is not None and self.feed_running:
            self.feed.cancel()
            self.notify("Cancelling the stream…", timeout=2)

    def action_details(self) -> None:
        """The exchange: request as sent, response status and headers, timings."""
        from .details import DetailsScreen

        exchange: dict[str, Any]
        if self.feed is not None:
            exchange = dict(self.feed.exchange)
        else:
            header = self.trace.header or {}
            exchange = {"request": header.get("request"), "response": header.get("response")}
        self.app.push_screen(DetailsScreen(self.trace, exchange, self.source))

    def action_help(self) -> None:
        """Every key, as bound now (remapped keys included)."""
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.active_bindings))

    def action_back(self) -> None:
        """Close the search bar, else stop showing a chosen block, else back to the picker."""
        bar = self.query_one(SearchBar)
        if bar.has_class("-open"):
            bar.remove_class("-open")
            self.query_one(FramesList).focus()
        elif self.chosen_block is not None:
            self.chosen_block = None
            self.refresh_view()
        elif self.from_picker:
            self.dismiss(None)

    def action_quit(self) -> None:
        """Leave the application."""
        self.app.exit(0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide live-only keys when there is no live feed."""
        if action == "follow":
            return self.feed is not None
        if action == "cancel_feed":
            return self.feed is not None and self.feed_running
        return True

    # -- linked selection -----------------------------------------------------

    def on_line_list_chosen(self, message: LineList.Chosen) -> None:
        """A row was picked: a frame, an event (→ its frame) or a transition."""
        lines = message.lines
        row = message.row
        if isinstance(lines, FramesList):
            self._move(lambda: self.cursor.goto(row))
        elif isinstance(lines, EventsList):
            self._move(lambda: self.cursor.select_event(row))
        elif isinstance(lines, TransitionsList):
            self._move(lambda: self.cursor.goto(lines.position_of_row(row)))

    def on_blocks_pane_chosen(self, message: BlocksPane.Chosen) -> None:
        """A block was chosen: the Events pane marks the events that built it."""
        self.chosen_block = message.block
        self.refresh_view()
