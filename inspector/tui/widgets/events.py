"""The Events pane: the normalized contract events that exist at the cursor."""

from __future__ import annotations

from collections.abc import Hashable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ..cursor import Cursor
from ..index import BlockInfo, TraceIndex
from ..rows import event_row
from ..textsafe import one_line
from .lines import LineList
from .textview import TextView

__all__ = ["EventsList", "EventsPane"]


class EventsList(LineList):
    """One row per event emitted by the cursor's position (later ones are not there yet)."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.cursor = cursor
        self.marked: BlockInfo | None = None  # the block chosen in the Blocks pane
        self._rules: dict[int, list[int]] = {}
        self._rules_version = -1

    def rules_of(self, event: int) -> list[int]:
        """Rule numbers of the violations attached to ``event``."""
        if self._rules_version != self.index.version:
            self._rules = {}
            for v in self.index.problems.violations:
                self._rules.setdefault(v.event, []).append(v.rule)
            self._rules_version = self.index.version
        return self._rules.get(event, [])

    def _is_marked(self, row: int) -> bool:
        block = self.marked
        if block is None or row < block.start_event:
            return False
        events = block.events
        position = block.events_at(row)
        return position < len(events) and events[position] == row

    def row_text(self, row: int) -> Text:
        """The event row, with a bar in the gutter for the chosen block's events."""
        breakpoint = ("event", str(self.index.trace.events[row].get("type"))) in (
            self.cursor.breakpoints
        )
        text = event_row(self.index, row, self.rules_of(row), breakpoint)
        if self._is_marked(row):
            text = Text.assemble(("┃", "bold magenta"), text, end="")
        else:
            text = Text.assemble(" ", text, end="")
        return text

    def row_key(self, row: int) -> Hashable:
        """Violations, breakpoints and the chosen block change a row's look."""
        event_type = self.index.trace.events[row].get("type")
        return (
            self.index.version,
            ("event", event_type) in self.cursor.breakpoints,
            self._is_marked(row),
        )

    def refresh_from(self, cursor: Cursor, marked: BlockInfo | None) -> None:
        """Show the events that exist at the cursor, the selected one highlighted."""
        self.marked = marked
        look = (
            self.index.version,
            frozenset(cursor.breakpoints),
            None if marked is None else marked.index,
        )
        self.show(cursor.k, cursor.event, look, extent=self.index.n_events)


class EventsPane(Vertical):
    """Title ``Events``: column header, the list, where the selected event came from."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.index = index
        self.cursor = cursor
        self.border_title = "Events"

    def compose(self) -> ComposeResult:
        """Column header, list, and the provenance line of the selected event."""
        yield Static(Text("  seq type        blk kind summary", "bold"), classes="columns")
        yield EventsList(self.index, self.cursor, id="events-list")
        yield TextView(id="event-source", classes="heading")

    def refresh_from(self, cursor: Cursor, marked: BlockInfo | None) -> None:
        """Update the list and say which frame, bytes and chunks the event came from."""
        self.query_one(EventsList).refresh_from(cursor, marked)
        self.query_one("#event-source", TextView).show(self._source_line(cursor, marked))

    def _source_line(self, cursor: Cursor, marked: BlockInfo | None) -> Text:
        trace = self.index.trace
        text = Text(end="")
        event = cursor.event
        if event is None:
            text.append("no event yet", "dim")
        else:
            frame = trace.frame_of_event(event)
            text.append(f"#{event + 1} ← ", "bold")
            if frame < 0:
                text.append("no frame: the end of the bytes", "dim")
            else:
                f = trace.frames[frame]
                chunks = trace.chunks_of_frame(frame)
                where = (
                    f"chunk {chunks.start}"
                    if len(chunks) == 1
                    else f"chunks {chunks.start}–{chunks.stop - 1}"
                )
                text.append(f"frame {frame} · bytes {f.start}–{f.end} · {where}")
        if marked is not None:
            k = cursor.k
            built = marked.events_at(k)
            text.append("\n┃ ", "bold magenta")
            text.append_text(one_line(marked.id, 20, "bold"))
            if built:
                first, last = marked.events[0] + 1, marked.events[built - 1] + 1
                text.append(f" built by {built} event(s): #{first}–#{last}", "magenta")
            else:
                text.append(" not started yet", "dim")
        return text
