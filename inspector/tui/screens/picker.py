"""The picker: the capture library (or any folder of streams) as a table.

Each file is normalized once in a background thread to learn its provider,
terminal state and size; the worker only posts messages and the screen adds
the rows, so the table fills while the user already moves in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...cli.common import is_stream_file
from ...core.trace import Trace
from ...session import ProviderUnknown, load_trace
from ..rows import STATE_STYLES, size_label
from ..textsafe import one_line
from ..widgets.status import source_label

__all__ = ["CaptureEntry", "PickerScreen", "capture_files", "describe_capture"]


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


def capture_files(root: Path) -> list[Path]:
    """Every stream file below ``root`` (golden event files excluded), sorted."""
    return sorted(p for p in root.rglob("*") if p.is_file() and is_stream_file(p))


def _outcome(trace: Trace) -> tuple[str, str]:
    terminal = trace.terminal_event
    if terminal is None:
        return trace.state, ""
    if terminal["type"] == "stream.done":
        return trace.state, str(terminal.get("finish_reason"))
    return trace.state, str((terminal.get("error") or {}).get("category"))


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
    state, detail = _outcome(trace)
    return CaptureEntry(
        path, trace.provider or "?", scenario, state, detail, len(trace.frames),
        trace.bytes_received,
    )  # fmt: skip


class PickerScreen(Screen[None]):
    """Choose a capture to open (enter); q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="picker.open", tooltip="Open the capture"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit"),
    ]

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

    def compose(self) -> ComposeResult:
        """Title line, the table, footer."""
        yield Static(id="picker-title")
        table: DataTable[str | Text] = DataTable(id="captures", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        """Columns, title, and the scan in the background."""
        table = self.query_one(DataTable)
        # Fixed widths: rows arrive one by one and the table must not jump around.
        table.add_column("provider", key="provider", width=16)
        table.add_column("scenario", key="scenario", width=40)
        table.add_column("terminal state", key="state", width=34)
        table.add_column("frames", key="frames", width=7)
        table.add_column("bytes", key="bytes", width=8)
        title = Text(" inspector · ", "bold", end="")
        if not self.files:
            where = str(self.root) if self.root is not None else "the bundled library"
            title.append("no captures found in ")
            title.append_text(one_line(where, 200))
            title.append(" — open a file with: inspector open PATH", "dim")
        else:
            name = self.root.name if self.root is not None else ""
            title.append_text(one_line(name, 80))
            title.append(f" · {len(self.files)} streams · enter opens one · q quits", "dim")
            self._scan(self.files)
        self.query_one("#picker-title", Static).update(title)
        table.focus()

    @work(thread=True, exclusive=True, group="picker-scan")
    def _scan(self, files: list[Path]) -> None:
        root = self.root or Path(".")
        for path in files:
            self.post_message(self.Scanned(describe_capture(path, root)))

    def on_picker_screen_scanned(self, message: Scanned) -> None:
        """Add the summarized capture as a row."""
        entry = message.entry
        self.entries[str(entry.path)] = entry
        state = Text(entry.state, STATE_STYLES.get(entry.state, "bold red"))
        if entry.detail:
            state.append(" · ", "dim")
            state.append_text(one_line(entry.detail, 40))
        self.query_one(DataTable).add_row(
            one_line(entry.provider, 20),
            one_line(entry.scenario, 60),
            state,
            Text(str(entry.frames), justify="right"),
            Text(size_label(entry.size), justify="right"),
            key=str(entry.path),
        )

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
        """Leave the application."""
        self.app.exit(0)
