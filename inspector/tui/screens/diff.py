"""The diff screen (``inspector diff A B --tui``): two event lists side by side.

Row *i* of each list is event *i* of that stream, so the two lists line up
event for event; the first divergence is marked in both (``▶`` and a red
background) and the cursor starts there. Moving in one list moves the other
to the same row. The summary above says what :func:`~inspector.stream_diff.
report_lines` says. Every value is provider data: shown escaped, never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...stream_diff import StreamDiff, comparable
from ...stream_diff_report import report_lines
from ...viewmodel.rows import event_summary
from ...viewmodel.textsafe import one_line

__all__ = ["DiffApp", "DiffScreen", "event_cells", "run_diff_app"]

_DIVERGENT = "bold white on dark_red"
_DIFFERENT = "yellow"


def event_cells(
    event: Mapping[str, Any] | None, *, first: bool, differs: bool
) -> tuple[Text, Text, Text]:
    """The three cells of one row: marker + seq, type, summary."""
    style = _DIVERGENT if first else _DIFFERENT if differs else ""
    if event is None:
        return Text("▶" if first else " ", style), Text("—", "dim"), Text("(no event)", "dim")
    seq = event.get("seq")
    marker = Text(("▶" if first else " ") + (str(seq) if isinstance(seq, int) else "?"), style)
    kind = one_line(str(event.get("type")), 20, style or "bold")
    summary = event_summary(dict(event))
    if style:
        summary.stylize(style)
    return marker, kind, summary


class DiffScreen(Screen[None]):
    """Both streams' events in two aligned lists, the first divergence marked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "first_divergence", "First divergence", id="diff.first"),
        Binding("n", "next_difference", "Next difference", id="diff.next"),
        Binding("p", "previous_difference", "Previous difference", id="diff.previous"),
        Binding("a", "open_side('a')", "Open A", id="diff.open_a",
                tooltip="Open stream A on the four panes, at the selected event"),
        Binding("b", "open_side('b')", "Open B", id="diff.open_b",
                tooltip="Open stream B on the four panes, at the selected event"),
        Binding("escape", "back", "Back", id="diff.back",
                tooltip="Back to the list it was opened from"),
        Binding("q", "app.quit", "Quit", id="app.quit"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    DiffScreen #diff-summary { height: auto; max-height: 12; padding: 0 1; }
    DiffScreen .diff-side { width: 1fr; }
    DiffScreen .diff-title { height: 1; padding: 0 1; text-style: bold; }
    DiffScreen DataTable { height: 1fr; }
    """

    def __init__(self, diff: StreamDiff) -> None:
        super().__init__()
        self.diff = diff
        left, right = diff.left.events, diff.right.events
        self.rows = max(len(left), len(right))
        self.differences = [i for i in range(self.rows) if _differs(left, right, i, diff.exact)]
        self.row = 0

    @property
    def divergence(self) -> int | None:
        """The row of the first divergence, if any."""
        return None if self.diff.first is None else self.diff.first.index

    def compose(self) -> ComposeResult:
        """Summary on top, the two lists below it, the keys at the bottom."""
        yield Static(_summary(self.diff), id="diff-summary")
        with Horizontal():
            for side, name in ((self.diff.left, "a"), (self.diff.right, "b")):
                with Vertical(classes="diff-side"):
                    yield Static(
                        one_line(f"{name.upper()}: {side.path}", 200), classes="diff-title"
                    )
                    yield DataTable(id=f"diff-{name}", cursor_type="row", zebra_stripes=False)
        yield Footer()

    def on_mount(self) -> None:
        """Fill both lists and put the cursor on the first divergence."""
        for name, events in (("a", self.diff.left.events), ("b", self.diff.right.events)):
            table = self.query_one(f"#diff-{name}", DataTable)
            table.add_columns("seq", "type", "event")
            for i in range(self.rows):
                event = events[i] if i < len(events) else None
                table.add_row(
                    *event_cells(event, first=i == self.divergence, differs=i in self.differences)
                )
        self.query_one("#diff-a", DataTable).focus()
        # After the tables' own first highlight messages, which would pull back to row 0.
        self.call_after_refresh(self.action_first_divergence)

    def _goto(self, row: int) -> None:
        self.row = row
        for name in ("a", "b"):
            self.query_one(f"#diff-{name}", DataTable).move_cursor(row=row, animate=False)

    def action_open_side(self, name: str) -> None:
        """Stream A or B on a main screen, the cursor on the selected row's event (escape: back)."""
        from .main import MainScreen

        side = self.diff.left if name == "a" else self.diff.right
        if side.trace is None:
            self.notify(f"{name.upper()} is a golden events file: no frames to open.", timeout=3)
            return
        screen = MainScreen(side.trace, source=side.path, from_picker=True, position=-1)
        row = min(self.row, len(side.events) - 1)
        if row >= 0:
            screen.cursor.select_event(row)
        self.app.push_screen(screen)

    def action_back(self) -> None:
        """Back to the proxy's list (``inspector diff --tui`` has nothing under it)."""
        if len(self.app.screen_stack) > 2 and self.app.screen is self:
            self.app.pop_screen()

    def action_first_divergence(self) -> None:
        """Both cursors to the first divergence (the first row when the streams agree)."""
        self._goto(self.divergence or 0)

    def action_next_difference(self) -> None:
        """Both cursors to the next row that differs."""
        row = self.query_one("#diff-a", DataTable).cursor_row
        self._goto(next((i for i in self.differences if i > row), row))

    def action_previous_difference(self) -> None:
        """Both cursors to the previous row that differs."""
        row = self.query_one("#diff-a", DataTable).cursor_row
        self._goto(next((i for i in reversed(self.differences) if i < row), row))

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        """Keep the other list on the row the user moved to in the focused one."""
        # Only the focused list leads: moving the other one sends messages too,
        # and following those back would make the two chase each other.
        if message.data_table is not self.focused:
            return
        self.row = message.cursor_row
        for name in ("a", "b"):
            table = self.query_one(f"#diff-{name}", DataTable)
            if table is not message.data_table and table.cursor_row != self.row:
                table.move_cursor(row=self.row, animate=False)


def _differs(
    left: Sequence[Mapping[str, Any]], right: Sequence[Mapping[str, Any]], i: int, exact: bool
) -> bool:
    if i >= len(left) or i >= len(right):
        return True
    return comparable(left[i], exact) != comparable(right[i], exact)


def _summary(diff: StreamDiff) -> Text:
    text = Text(end="")
    for n, line in enumerate(report_lines(diff)):
        if n:
            text.append("\n")
        style = "bold red" if line == "different" else "bold green" if line == "same" else ""
        text.append_text(one_line(line, 400, style))
    return text


class DiffApp(App[None]):
    """A one-screen app around :class:`DiffScreen`."""

    TITLE = "inspector diff"
    # Either side opens on the main screen, which is styled there.
    CSS_PATH = "../inspector.tcss"

    def __init__(self, diff: StreamDiff) -> None:
        super().__init__()
        self.diff = diff

    def on_mount(self) -> None:
        """Show the diff."""
        self.push_screen(DiffScreen(self.diff))


def run_diff_app(diff: StreamDiff) -> None:
    """Run the diff screen until the user quits."""
    DiffApp(diff).run()
