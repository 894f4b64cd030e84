"""The main screen: four panes in step with one cursor.

The keys, the cursor and the player live in :class:`.stepping.SteppingScreen`;
this adds the layout and :meth:`MainScreen.refresh_view`, which asks each
pane to show the state *as of the cursor*. The panes only read the trace
(through the index) and the cursor, and render only what is visible, so a
step costs the same on any capture.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container
from textual.events import DescendantFocus
from textual.message import Message
from textual.widgets import Footer, Input, Tab, Tabs

from ..commands import InspectorCommands
from ..problems import ViolationInfo
from ..widgets.blocks import BlocksPane
from ..widgets.events import EventsList, EventsPane
from ..widgets.frames import FramesList, FramesPane
from ..widgets.lines import LineList
from ..widgets.search import SearchBar
from ..widgets.state import StatePane, TransitionsList
from ..widgets.status import StatusLine
from .stepping import SteppingScreen

__all__ = ["PANES", "MainScreen"]

#: (pane id, title) in display order.
PANES = (("frames", "Frames"), ("events", "Events"), ("blocks", "Blocks"), ("state", "State"))


class MainScreen(SteppingScreen):
    """Frames · Events · Blocks · State, side by side (tabbed when narrow)."""

    # Textual declares this attribute as an instance variable, so no ClassVar here.
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (100, "-medium"),
        (150, "-wide"),
    ]

    COMMANDS: ClassVar = {InspectorCommands}

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

    def trace_grew(self) -> None:
        """The trace has more in it (live): index it, follow if asked, repaint."""
        self.index.sync()
        if self.cursor.follow:
            self.cursor.end()
        self.refresh_view()
        self._check_when_finished()

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
