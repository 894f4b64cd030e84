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
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Tab, Tabs

from ...viewmodel.matches import query_pattern
from ...viewmodel.problems import ViolationInfo
from ..commands import InspectorCommands
from ..widgets.blocks import BlocksPane
from ..widgets.events import EventsList, EventsPane
from ..widgets.footer import KeysFooter
from ..widgets.frames import FramesList, FramesPane
from ..widgets.gaps import GapStrip
from ..widgets.lines import LineList
from ..widgets.search import GotoBar, SearchBar
from ..widgets.state import StatePane, TransitionsList
from ..widgets.status import StatusLine
from .stepping import SteppingScreen

__all__ = ["PANES", "MainScreen"]

#: (pane id, title) in display order.
PANES = (("frames", "Frames"), ("events", "Events"), ("blocks", "Blocks"), ("state", "State"))

#: Below 100 columns Frames stays on top and these share the lower half, under tabs:
#: Blocks first, shown from the start (where the README says to watch a stream build).
LOWER_PANES = (("blocks", "Blocks"), ("events", "Events"), ("state", "State"))
#: The pane the lower half shows until another is chosen.
FIRST_LOWER = LOWER_PANES[0][0]


class MainScreen(SteppingScreen):
    """Frames · Events · Blocks · State, side by side (two panes when narrow)."""

    # Textual declares this attribute as an instance variable, so no ClassVar here.
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (100, "-medium"),
        (150, "-wide"),
    ]

    COMMANDS: ClassVar = {InspectorCommands}

    # A maximized pane keeps the status line (where the cursor is, the stream's
    # state), the prompts and the footer: only the other panes give way.
    ALLOW_IN_MAXIMIZED_VIEW: ClassVar[str | None] = "#status, SearchBar, GotoBar, Footer"

    # -- layout -----------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Status line, timeline strip, the panes (tabs for the lower one when narrow), bars."""
        yield StatusLine(id="status")
        yield GapStrip(self.index, id="gaps")
        with Container(id="panes"):
            yield FramesPane(self.index, self.cursor, id="frames")
            tabs = Tabs(
                *(Tab(title, id=f"tab-{pane}") for pane, title in LOWER_PANES), id="pane-tabs"
            )
            tabs.can_focus = False
            yield tabs
            yield EventsPane(self.index, self.cursor, id="events")
            yield BlocksPane(self.index, id="blocks")
            yield StatePane(self.index, self.cursor, id="state")
        yield SearchBar(id="search")
        yield GotoBar(id="goto")
        yield KeysFooter()

    def on_mount(self) -> None:
        """First paint, with the frames list focused."""
        self._show_pane(FIRST_LOWER)
        self.refresh_view()
        self.query_one(FramesList).focus()
        self._check_when_finished()
        if self.feed is not None:
            # A feed notifies on bytes, not on the response's headers or the time
            # that passes: look now and then ("connecting" became "waiting"; a
            # stall's clock).
            self._waiting = self.set_interval(0.25, self._while_waiting)

    _waiting: Timer | None = None

    def _while_waiting(self) -> None:
        # Also while it streams: a stall sends nothing to repaint for, yet its
        # clock (no progress for N s, gives up in M s) goes on.
        if self._waiting is not None and (self.feed_ended or self.index.finished):
            self._waiting.stop()
            self._waiting = None
        self.refresh_status()

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
        # Narrow terminals show Frames and one of the others; the rest stay mounted.
        if pane == "frames":
            return
        for name, _ in LOWER_PANES:
            self.query_one(f"#{name}").set_class(name == pane, "-active")
        self.query_one("#pane-tabs", Tabs).active = f"tab-{pane}"

    def _focus_pane(self, pane: str) -> None:
        targets = {"frames": FramesList, "events": EventsList, "state": TransitionsList}
        target = self.query_one(BlocksPane) if pane == "blocks" else self.query_one(targets[pane])
        self._show_pane(pane)
        target.focus()

    def _focused_pane(self) -> Widget | None:
        for ancestor in self.focused.ancestors_with_self if self.focused else ():
            if isinstance(ancestor, Widget) and ancestor.has_class("pane"):
                return ancestor
        return None

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_chosen(self, event: Tabs.TabActivated) -> None:
        pane = (event.tab.id or f"tab-{FIRST_LOWER}").removeprefix("tab-")
        # _show_pane sets the active tab too: that echo must not steal the focus.
        if not self.query_one(f"#{pane}").has_class("-active"):
            self._focus_pane(pane)

    def action_pane(self, delta: int) -> None:
        """Focus the next / previous pane (narrow terminals show it under Frames)."""
        # Tab walks the panes in the order they are shown: side by side, or
        # Frames then the lower tabs when narrow.
        shown = LOWER_PANES if self.has_class("-narrow") else PANES[1:]
        names = ["frames", *(name for name, _ in shown)]
        pane = self._focused_pane()
        current = pane.id if pane is not None and pane.id in names else "frames"
        self._focus_pane(names[(names.index(current) + delta) % len(names)])

    def action_maximize_pane(self) -> None:
        """Fill the screen with the focused pane; again (or escape) restores the layout."""
        if self.maximized is not None:
            self.minimize()
            return
        pane = self._focused_pane()
        if pane is not None:
            self.maximized = pane

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """The focused pane is the one shown under Frames on a narrow screen."""
        for ancestor in event.widget.ancestors_with_self:
            if ancestor.has_class("pane") and ancestor.id:
                self._show_pane(ancestor.id)
                return

    # -- showing the cursor -------------------------------------------------

    def refresh_view(self) -> None:
        """Every pane, the strip and the status line, as of the cursor."""
        marked = self.index.blocks.get(self.chosen_block) if self.chosen_block is not None else None
        self.query_one(FramesPane).refresh_from(self.cursor)
        self.query_one(EventsPane).refresh_from(self.cursor, marked)
        blocks = self.query_one(BlocksPane)
        blocks.chosen = self.chosen_block
        blocks.refresh_from(self.cursor)
        self.query_one(StatePane).refresh_from(self.cursor)
        self.query_one(GapStrip).show(self.cursor.position)
        self.refresh_status()

    def refresh_status(self) -> None:
        """The status line, and the search counter on the search bar's border."""
        super().refresh_status()
        self.query_one(SearchBar).show_counter(self.search_counter())

    def trace_grew(self) -> None:
        """The trace has more in it (live): index it, follow if asked, repaint."""
        self.index.sync()
        if self.cursor.follow:
            self.cursor.end()
        self.refresh_view()
        self._check_when_finished()

    def on_gap_strip_picked(self, message: GapStrip.Picked) -> None:
        """A click on the timeline strip moves the cursor there."""
        self.action_goto_position(message.position)

    # -- search and go to ----------------------------------------------------------

    def action_search(self) -> None:
        """Open the search bar (with the last query, to refine it)."""
        self.query_one(GotoBar).remove_class("-open")
        bar = self.query_one(SearchBar)
        bar.add_class("-open")
        bar.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.start_search(event.value)

    def search_changed(self) -> None:
        """Highlight the query in every list's rows (or stop highlighting)."""
        pattern = query_pattern(self.matches.query) if self.matches is not None else None
        for lines in self.query(LineList):
            lines.set_highlight(pattern)
        self.refresh_status()

    def end_search(self) -> None:
        """Close the search bar and forget the search."""
        bar = self.query_one(SearchBar)
        bar.remove_class("-open")
        if self.matches is not None:
            self.matches = None
            self.search_changed()

    def action_goto_prompt(self) -> None:
        """``:`` asks for a frame number."""
        bar = self.query_one(GotoBar)
        bar.value = ""
        bar.add_class("-open")
        bar.focus()

    @on(Input.Submitted, "#goto")
    def _goto_submitted(self, event: Input.Submitted) -> None:
        try:
            frame = int(event.value)
        except ValueError:
            self.notify("Type a frame number.", severity="warning")
            return
        if self.action_goto_frame(frame):
            self.query_one(GotoBar).remove_class("-open")
            self.query_one(FramesList).focus()

    def action_back(self) -> None:
        """Undo the latest thing opened, one at a time (see the ``back`` binding)."""
        search = self.query_one(SearchBar)
        goto = self.query_one(GotoBar)
        if self.maximized is not None:
            self.minimize()
        elif goto.has_class("-open"):
            goto.remove_class("-open")
            self.query_one(FramesList).focus()
        elif search.has_focus and self.matches is not None:
            self.query_one(FramesList).focus()  # keep the search: N / ctrl+g go on
        elif search.has_class("-open"):
            self.end_search()
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
