"""The picker: the capture library (or any folder of streams) as a table.

Each file is normalized once in a background thread to learn its provider,
terminal state and size; the worker only posts messages and the screen adds
the rows, so the table fills while the user already moves in it.

Typing filters the table: a printable key sends the focus to the filter line
above it (``q`` still quits while the filter is empty), ↑/↓ keep moving in
the table and enter opens the highlighted capture. The title counts what the
filter lets through, and says so when nothing matches. The columns shrink to
fit an 80-column terminal, and cut outcomes end with ``…``.

The preview pane shows the highlighted capture: provider, model, terminal
state, the first text, size, when it was recorded, its path — beside the
table on a wide terminal (140 columns and more), under it otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from ...library import iter_stream_files
from ...session import ProviderUnknown, load_trace
from ...viewmodel.index import block_key
from ...viewmodel.rows import STATE_STYLES, size_label
from ...viewmodel.textsafe import one_line
from ..widgets.footer import KeysFooter
from ..widgets.rowtable import RowTable
from ..widgets.status import source_label

__all__ = [
    "COLUMNS",
    "CaptureEntry",
    "PickerScreen",
    "capture_files",
    "column_widths",
    "describe_capture",
    "entry_matches",
    "preview_text",
]

#: Columns from which the preview sits beside the table, and its width there.
WIDE: Final = 140
PREVIEW_WIDTH: Final = 56
#: Characters of the first text kept for the preview.
FIRST_TEXT: Final = 400

#: (key, title, width at 120 columns and more, narrowest width); scenario takes what is left.
COLUMNS = (
    ("provider", "provider", 16, 11),
    ("scenario", "scenario", 40, 0),
    ("state", "terminal state", 34, 20),
    ("frames", "frames", 7, 6),
    ("bytes", "bytes", 8, 7),
)


@dataclass(frozen=True, slots=True)
class CaptureEntry:
    """One row of the picker."""

    path: Path
    provider: str
    scenario: str
    state: str
    detail: str
    frames: int
    size: int
    model: str = ""
    first_text: str = ""
    recorded_at: str = ""


def _first_text(trace: object) -> str:
    """The first text the stream carried (text deltas of its first text block), bounded."""
    parts: list[str] = []
    size = 0
    block = None
    for event in getattr(trace, "events", ()):
        if event.get("type") != "block.delta":
            continue
        delta = event.get("delta") or {}
        if delta.get("kind") != "text":
            continue
        index = block_key(event.get("block") or {})  # choice 1's block 0 is not choice 0's
        if block is None:
            block = index
        elif index != block:
            break
        text = str(delta.get("text", ""))
        parts.append(text)
        size += len(text)
        if size >= FIRST_TEXT:
            break
    return "".join(parts)[:FIRST_TEXT]


def capture_files(root: Path) -> list[Path]:
    """Every stream file below ``root`` (golden event files excluded), sorted."""
    return list(iter_stream_files([str(root)]))  # any depth, no symlink loops


def describe_capture(path: Path, root: Path) -> CaptureEntry:
    """Normalize one file and summarize it for the table."""
    scenario = (
        str(path.relative_to(root).with_suffix("")) if path.is_relative_to(root) else path.stem
    )
    if "/" in scenario:
        scenario = scenario.split("/", 1)[1]
    try:
        trace = load_trace(path)
    except (ProviderUnknown, ValueError) as exc:
        return CaptureEntry(path, "?", scenario, "unreadable", str(exc), 0, 0)
    state, detail = trace.state, trace.ending or ""
    header = trace.header or {}
    model = header.get("model")
    if trace.events and trace.events[0].get("type") == "stream.start":
        model = trace.events[0].get("model") or model
    recorded = header.get("recorded_at")
    return CaptureEntry(
        path, trace.provider or "?", scenario, state, detail, len(trace.frames),
        trace.bytes_received, model if isinstance(model, str) else "", _first_text(trace),
        recorded if isinstance(recorded, str) else "",
    )  # fmt: skip


def preview_text(entry: CaptureEntry | None, root: Path | None) -> Text:
    """The preview pane for ``entry`` (every value from the file: escaped, never markup)."""
    text = Text(end="")
    if entry is None:
        text.append("no capture highlighted", "dim")
        return text

    def row(label: str, value: Text) -> None:
        text.append(f"{label:<10}", "bold")
        text.append_text(value)
        text.append("\n")

    state = Text(entry.state, STATE_STYLES.get(entry.state, "bold red"))
    if entry.detail:
        state.append(" · ", "dim")
        state.append_text(one_line(entry.detail, 200))
    row("provider", one_line(entry.provider, 60, "bold cyan"))
    row("model", one_line(entry.model or "—", 120))
    row("state", state)
    row("size", Text(f"{entry.frames} frames · {size_label(entry.size)} bytes"))
    row("recorded", one_line(entry.recorded_at or "— (no time recorded)", 60))
    shown = entry.path.relative_to(root) if root and entry.path.is_relative_to(root) else entry.path
    row("file", one_line(str(shown), 200, "italic"))
    text.append("first text\n", "bold")
    if entry.first_text:
        text.append_text(one_line(entry.first_text, FIRST_TEXT))
    else:
        text.append("(no text)", "dim")
    return text


def column_widths(width: int) -> dict[str, int]:
    """Column widths for a screen ``width`` cells wide (each cell pads 1 on either side)."""
    wide = width >= 120
    fixed = {key: (full if wide else narrow) for key, _, full, narrow in COLUMNS if narrow}
    padding = 2 * len(COLUMNS) + 2  # cell padding and the scrollbar
    scenario = max(16, width - padding - sum(fixed.values()))
    return {key: fixed.get(key, min(scenario, 60)) for key, *_ in COLUMNS}


def entry_matches(entry: CaptureEntry, words: list[str]) -> bool:
    """Whether every word of the filter occurs in the entry's provider, name or outcome."""
    haystack = " ".join(
        (entry.provider, entry.scenario, entry.state, entry.detail, entry.path.name)
    ).casefold()
    return all(word in haystack for word in words)


class PickerScreen(Screen[None]):
    """Choose a capture to open (enter); type to filter; q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="picker.open", tooltip="Open the capture"),
        Binding("down", "move(1)", "Down", show=False, id="picker.down",
                tooltip="Next capture (also from the filter line)"),
        Binding("up", "move(-1)", "Up", show=False, id="picker.up",
                tooltip="Previous capture (also from the filter line)"),
        Binding("escape", "clear_filter", "Clear filter", key_display="esc", id="picker.clear",
                tooltip="Clear the filter"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit"),
    ]  # fmt: skip

    class Scanned(Message):
        """One capture was summarized (posted by the scanning thread)."""

        def __init__(self, entry: CaptureEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, root: Path | None) -> None:
        super().__init__()
        self.root = root
        self.files = capture_files(root) if root is not None and root.is_dir() else []
        self.entries: dict[str, CaptureEntry] = {}
        self._widths: dict[str, int] = {}

    def compose(self) -> ComposeResult:
        """Title line, the filter, the table, footer."""
        yield Static(id="picker-title")
        bar = Input(
            placeholder="type to filter (provider, name, outcome)",
            id="picker-filter",
            select_on_focus=False,  # the key that moved the focus here is its first letter
        )
        bar.cursor_blink = False  # screenshots and snapshots must not depend on the blink
        yield bar
        with Container(id="picker-body"):
            yield RowTable(id="captures")
            yield Static(id="picker-preview")
        yield KeysFooter()

    def on_mount(self) -> None:
        """Columns, title, and the scan in the background."""
        table = self.query_one(DataTable)
        self._set_columns(self.app.size.width)
        if self.files:
            self._scan(self.files)
        self._show_title()
        self._show_preview()
        table.focus()

    def _show_title(self) -> None:
        """What the folder holds, and how much of it the filter lets through."""
        title = Text(" inspector · ", "bold", end="")
        if not self.files:
            where = str(self.root) if self.root is not None else "the bundled library"
            title.append("no captures found in ")
            title.append_text(one_line(where, 200))
            title.append(" — open a file with: inspector open PATH", "dim")
        else:
            name = self.root.name if self.root is not None else ""
            title.append_text(one_line(name, 80))
            bar = self.query_one("#picker-filter", Input).value.strip()
            if bar:
                shown = self.query_one(DataTable).row_count
                title.append(f" · {shown} of {len(self.files)} streams match ", "dim")
                title.append_text(one_line(bar, 60, "bold yellow"))
                if not shown and len(self.entries) == len(self.files):
                    title.append(" · nothing matches: esc clears the filter", "bold yellow")
            else:
                title.append(f" · {len(self.files)} streams", "dim")
            title.append(" · type to filter · enter opens · q quits", "dim")
        self.query_one("#picker-title", Static).update(title)

    def _highlighted_entry(self) -> CaptureEntry | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.entries.get(key) if key is not None else None

    def _show_preview(self) -> None:
        self.query_one("#picker-preview", Static).update(
            preview_text(self._highlighted_entry(), self.root)
        )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The preview follows the highlight."""
        self._show_preview()

    @work(thread=True, exclusive=True, group="picker-scan")
    def _scan(self, files: list[Path]) -> None:
        root = self.root or Path(".")
        for path in files:
            self.post_message(self.Scanned(describe_capture(path, root)))

    def _set_columns(self, width: int) -> None:
        # Fixed widths: rows arrive one by one and the table must not jump around.
        wide = width >= WIDE
        self.query_one("#picker-body").set_class(wide, "-wide")
        widths = column_widths(width - PREVIEW_WIDTH if wide else width)
        if widths == self._widths:
            return
        self._widths = widths
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for key, title, *_ in COLUMNS:
            table.add_column(title, key=key, width=widths[key])
        self._fill()

    def on_resize(self, event: events.Resize) -> None:
        """Narrower or wider columns for the new width."""
        self._set_columns(event.size.width)

    def _filter_words(self) -> list[str]:
        return self.query_one("#picker-filter", Input).value.casefold().split()

    def _fill(self) -> None:
        """The table again: every entry the filter lets through, in file order."""
        table = self.query_one(DataTable)
        table.clear()
        words = self._filter_words()
        for entry in self.entries.values():
            if entry_matches(entry, words):
                self._add_row(entry)
        self._show_title()
        self._show_preview()

    def _add_row(self, entry: CaptureEntry) -> None:
        state = Text(entry.state, STATE_STYLES.get(entry.state, "bold red"))
        if entry.detail:
            state.append(" · ", "dim")
            state.append_text(one_line(entry.detail, 40))
        cells = {
            "provider": one_line(entry.provider, 20),
            "scenario": one_line(entry.scenario, 60),
            "state": state,
        }
        for key, cell in cells.items():
            # Cut with an ellipsis to the column: the table itself crops without one.
            width = self._widths.get(key)
            if width is not None and cell.cell_len > width:
                cell.truncate(width, overflow="ellipsis")
        self.query_one(DataTable).add_row(
            *cells.values(),
            Text(str(entry.frames), justify="right"),
            Text(size_label(entry.size), justify="right"),
            key=str(entry.path),
        )

    def on_picker_screen_scanned(self, message: Scanned) -> None:
        """Add the summarized capture as a row (when the filter lets it through)."""
        entry = message.entry
        self.entries[str(entry.path)] = entry
        if entry_matches(entry, self._filter_words()):
            self._add_row(entry)
            if self.query_one(DataTable).row_count == 1:
                self._show_preview()
        if self.query_one("#picker-filter", Input).value.strip() or len(self.entries) == len(
            self.files
        ):
            self._show_title()

    @on(Input.Changed, "#picker-filter")
    def _filter_changed(self) -> None:
        self._fill()

    @on(Input.Submitted, "#picker-filter")
    def _filter_submitted(self) -> None:
        self.action_open()

    def on_key(self, event: events.Key) -> None:
        """A printable key typed in the table starts (or continues) the filter."""
        bar = self.query_one("#picker-filter", Input)
        if bar.has_focus or not event.is_printable or event.character is None:
            return
        if event.character == "q" and not bar.value:
            return  # q quits
        event.stop()
        event.prevent_default()
        bar.focus()
        bar.insert_text_at_cursor(event.character)

    def action_move(self, delta: int) -> None:
        """Move the table's highlight (the filter line keeps the focus)."""
        table = self.query_one(DataTable)
        if delta > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_clear_filter(self) -> None:
        """Empty the filter and go back to the table."""
        bar = self.query_one("#picker-filter", Input)
        bar.value = ""
        self.query_one(DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter (or a click on the selected row) opens the capture."""
        if event.row_key.value is not None:
            self.open_capture(Path(event.row_key.value))

    def action_open(self) -> None:
        """Open the highlighted capture."""
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            if key is not None:
                self.open_capture(Path(key))

    def open_capture(self, path: Path) -> None:
        """Load the capture and show it on a main screen (escape comes back here)."""
        from .main import MainScreen

        try:
            trace = load_trace(path)
        except (ProviderUnknown, ValueError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.app.push_screen(MainScreen(trace, source=source_label(str(path)), from_picker=True))

    def action_quit(self) -> None:
        """Leave the application; while a filter is typed, q is one more letter of it."""
        bar = self.query_one("#picker-filter", Input)
        if bar.value:
            bar.focus()
            bar.insert_text_at_cursor("q")
            return
        self.app.exit(0)
