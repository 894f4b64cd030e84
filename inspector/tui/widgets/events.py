"""The Events pane: the normalized contract events that exist at the cursor.

Below the list, the selected event in full (:func:`event_detail`): where it
came from (frame, the provider's own event name), what is wrong with it
(``stream.error`` fields one per line, violations), and its JSON.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Final

import orjson
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ...viewmodel.cursor import Cursor
from ...viewmodel.index import BlockInfo, TraceIndex
from ...viewmodel.labels import short_label
from ...viewmodel.rows import EVENT_STYLES, event_row
from ...viewmodel.textsafe import json_text, one_line, plain_value, quoted, safe_text
from .lines import LineList
from .textview import TextView

__all__ = ["EventDetail", "EventsList", "EventsPane", "event_detail"]

#: The fields of a ``stream.error`` listed one per line: (label, where to read it).
_ERROR_FIELDS: Final = (
    ("status", ("status",)),
    ("category", ("error", "category")),
    ("retryable", ("error", "retryable")),
    ("code", ("error", "provider_code")),
)
#: Characters of an event shown as JSON (a delta may carry a whole document).
DETAIL_LIMIT: Final = 32 * 1024


def _field(event: dict[str, Any], path: tuple[str, ...]) -> object:
    value: object = event
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _error_lines(text: Text, event: dict[str, Any]) -> None:
    for label, path in _ERROR_FIELDS:
        text.append(f"\n{label:<10}", "bold")
        text.append_text(one_line(plain_value(_field(event, path)), 200, "red"))
    text.append(f"\n{'message':<10}", "bold")
    # The whole message (bounded), its own line breaks kept, anything else escaped.
    message = plain_value(_field(event, ("error", "message")))
    text.append_text(safe_text(message[:DETAIL_LIMIT], multiline=True))
    if len(message) > DETAIL_LIMIT:
        text.append(f" … {len(message) - DETAIL_LIMIT:,} more characters", "dim italic")


def _arguments(text: Text, block: BlockInfo) -> None:
    valid, problem = block.arguments_check()
    if not valid:
        text.append("\narguments ", "bold")
        text.append("invalid JSON: ", "bold red")
        text.append_text(one_line(problem or "", 200, "red"))
        return
    pretty = block.pretty_arguments()
    if pretty is not None:
        text.append("\narguments ", "bold")
        text.append("valid JSON\n", "green")
        body, _ = json_text(pretty, DETAIL_LIMIT)
        text.append_text(body)


def event_detail(index: TraceIndex, event: int, rules: list[tuple[int, str, str]]) -> Text:
    """Everything about one event: origin, problems, and its JSON (escaped)."""
    trace = index.trace
    e = trace.events[event]
    kind = plain_value(e.get("type"))
    text = Text(end="")
    text.append(f"#{event + 1} ", "bold")
    text.append_text(one_line(kind, 40, EVENT_STYLES.get(kind, "")))
    frame = trace.frame_of_event(event)
    if frame >= 0:
        label = index.frame_label(frame)
        text.append(f" · frame {frame} · provider ", "dim")
        text.append_text(one_line(label, 60, "bold"))
        short = short_label(trace.provider, label)
        if short != label:
            text.append(f" ({short})", "dim")
    else:
        text.append(" · no frame: the end of the bytes", "dim")
    delta = e.get("delta")
    if isinstance(delta, dict) and delta.get("kind") in ("text", "json_text"):
        text.append(f"\n{plain_value(delta.get('kind')):<10}", "bold")
        text.append_text(quoted(plain_value(delta.get("text", "")), limit=400))
    if kind == "stream.error":
        _error_lines(text, e)
    for rule, source, message in rules:
        text.append(f"\n✗ rule {rule} ({source}): ", "bold red")
        text.append_text(one_line(message, 400, "red"))
    block = index.block_of_event(event)
    if kind == "block.stop" and block is not None and block.kind == "tool_call":
        _arguments(text, block)
    text.append("\n\n")
    body, _ = json_text(orjson.dumps(e).decode(), DETAIL_LIMIT)
    text.append_text(body)
    return text


class EventDetail(TextView):
    """The selected event in full."""


class EventsList(LineList):
    """One row per event emitted by the cursor's position (later ones are not there yet)."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.cursor = cursor
        self.marked: BlockInfo | None = None  # the block chosen in the Blocks pane
        self._dim = range(0)  # the rows shown dimmed
        self._rules: dict[int, list[tuple[int, str, str]]] = {}
        self._rules_version = -1

    def violations_of(self, event: int) -> list[tuple[int, str, str]]:
        """(rule, source, message) of the violations attached to ``event``."""
        if self._rules_version != self.index.version:
            self._rules = {}
            for v in self.index.problems.violations:
                self._rules.setdefault(v.event, []).append((v.rule, v.source, v.message))
            self._rules_version = self.index.version
        return self._rules.get(event, [])

    def rules_of(self, event: int) -> list[int]:
        """Rule numbers of the violations attached to ``event``."""
        return [rule for rule, _, _ in self.violations_of(event)]

    def _later(self, row: int) -> bool:
        # Events of the cursor's frame after the selected one: not applied yet.
        event = self.cursor.event
        return event is not None and row > event

    def _is_marked(self, row: int) -> bool:
        block = self.marked
        if block is None or row < block.start_event:
            return False
        events = block.events
        position = block.events_at(row)
        return position < len(events) and events[position] == row

    def action_move(self, delta: int) -> None:
        """↓ past the cursor frame's last event selects the next event, in a later frame.

        The list holds only the events that exist at the cursor, so its last
        row is no end: the next event is one step on, as ↑ from the first row
        of a frame is one step back.
        """
        event = self.cursor.event
        if delta > 0 and (event is None or event + 1 >= self.rows):
            target = 0 if event is None else event + 1
            if target < self.index.n_events:
                self.post_message(self.Chosen(self, target))
            return
        super().action_move(delta)

    def row_text(self, row: int) -> Text:
        """The event row, a bar in the gutter for the chosen block's events, dim if not reached."""
        breakpoint = ("event", str(self.index.trace.events[row].get("type"))) in (
            self.cursor.breakpoints
        )
        text = event_row(self.index, row, self.rules_of(row), breakpoint)
        if self._is_marked(row):
            text = Text.assemble(("┃", "bold magenta"), text, end="")
        else:
            text = Text.assemble(" ", text, end="")
        if self._later(row):
            # The frame's events after the selected one: listed, not yet applied.
            text.stylize("dim")
        return text

    def row_key(self, row: int) -> Hashable:
        """Violations, breakpoints and the chosen block change a row's look."""
        event_type = self.index.trace.events[row].get("type")
        return (
            self.index.version,
            ("event", event_type) in self.cursor.breakpoints,
            self._is_marked(row),
            self._later(row),
        )

    def refresh_from(self, cursor: Cursor, marked: BlockInfo | None) -> None:
        """Show the events that exist at the cursor, the selected one highlighted."""
        self.marked = marked
        look = (
            self.index.version,
            frozenset(cursor.breakpoints),
            None if marked is None else marked.index,
        )
        # The frame's events after the selected one are listed, dimmed: repaint
        # the rows dimmed before and now (a frame's events, never the whole list).
        dim = range(cursor.k, cursor.frame_k)
        dirty = [*self._dim, *dim]
        self._dim = dim
        self.show(cursor.frame_k, cursor.event, look, extent=self.index.n_events, dirty=dirty)


class EventsPane(Vertical):
    """Title ``Events``: column header, the list, where the selected event came from."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.index = index
        self.cursor = cursor
        self.border_title = "Events"
        self._shown: tuple[int | None, int] | None = None

    def compose(self) -> ComposeResult:
        """Column header, list, and the provenance line of the selected event."""
        yield Static(Text("  seq type        blk kind summary", "bold"), classes="columns")
        yield EventsList(self.index, self.cursor, id="events-list")
        yield TextView(id="event-source", classes="heading")
        with VerticalScroll(id="event-detail-scroll"):
            yield EventDetail(id="event-detail")

    def refresh_from(self, cursor: Cursor, marked: BlockInfo | None) -> None:
        """Update the list, the provenance line and the selected event in full."""
        events = self.query_one(EventsList)
        events.refresh_from(cursor, marked)
        self.query_one("#event-source", TextView).show(self._source_line(cursor, marked))
        key = (cursor.event, self.index.version)
        if key != self._shown:
            self._shown = key
            if cursor.event is None:
                detail = Text("no event selected", "dim")
            else:
                detail = event_detail(self.index, cursor.event, events.violations_of(cursor.event))
            self.query_one(EventDetail).show(detail)
            self.query_one("#event-detail-scroll", VerticalScroll).scroll_home(animate=False)

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
                text.append(f"frame {frame} · bytes {f.start}–{f.end} · {where} · ")
                text.append_text(one_line(self.index.frame_label(frame), 60, "bold"))
        if marked is not None:
            text.append("\n┃ ", "bold magenta")
            text.append_text(one_line(marked.id, 20, "bold"))
            span = marked.built_span(cursor.k)
            if span is not None:
                built, first, last = span
                text.append(f" built by {built} event(s): #{first}–#{last}", "magenta")
            else:
                text.append(" not started yet", "dim")
        return text
