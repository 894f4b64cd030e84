"""The State pane: stream state, block states, violations, transitions so far."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from ...viewmodel.cursor import Cursor
from ...viewmodel.index import TraceIndex
from ...viewmodel.rows import STATE_STYLES, state_text, transition_row
from ...viewmodel.textsafe import one_line
from .lines import LineList
from .textview import TextView

__all__ = ["StatePane", "TransitionsList", "state_summary"]

#: Blocks listed one by one; past this the summary counts them.
LISTED_BLOCKS: Final = 8
#: Violations listed; the rest are counted.
LISTED_VIOLATIONS: Final = 20


def _link(position: int) -> Style:
    # A click on the text runs the screen's action: violations link to their frame.
    return Style(underline=True, meta={"@click": f"screen.goto_position({position})"})


def state_summary(index: TraceIndex, cursor: Cursor) -> Text:
    """Stream state, each block's state, and every violation as of the cursor."""
    k = cursor.k
    text = Text(end="")
    text.append("stream     ", "bold")
    text.append_text(state_text(index.stream_state_at(k)))
    started = index.blocks_at(k)
    text.append("\nblocks     ", "bold")
    if not started:
        text.append("none yet", "dim")
    elif started <= LISTED_BLOCKS:
        for order in range(started):
            block = index.block_at_order(order)
            # Closed by the stream's end, not by its stop: still open when it broke off.
            state = "aborted" if block.aborted_at(k) else block.state_at(k)
            if order:
                text.append(" · ", "dim")
            text.append_text(one_line(block.id, 12))
            text.append(f" {state}", STATE_STYLES.get(state, ""))
    else:
        open_blocks = index.open_blocks_at(k)
        aborted = sum(index.block_at_order(order).aborted_at(k) for order in range(started))
        text.append(f"{started - len(open_blocks) - aborted} closed", "green")
        if aborted:
            text.append(f" · {aborted} aborted", STATE_STYLES["aborted"])
        if open_blocks:
            names = ", ".join(index.blocks[i].id for i in open_blocks[:LISTED_BLOCKS])
            more = " …" if len(open_blocks) > LISTED_BLOCKS else ""
            text.append(" · open: ", "dim")
            text.append_text(one_line(names + more, 200, STATE_STYLES["open"]))
    ignored = index.problems.ignored_at(cursor.position)
    if ignored:
        text.append("\nignored    ", "bold")
        text.append(f"{ignored} frame(s)", "yellow")
    violations = index.problems.violations_at(k, cursor.on_end_row)
    text.append("\nviolations ", "bold")
    if not violations:
        text.append("none", "green")
    else:
        # The words of `inspector check` and the status line: violations=N rejected=M.
        rejected = sum(v.source != "output" for v in violations)
        text.append(f"{len(violations) - rejected} · rejected {rejected}", "bold red")
    for v in violations[:LISTED_VIOLATIONS]:
        position = v.frame if v.frame >= 0 else index.last_position
        where = f"frame {v.frame}" if v.frame >= 0 else "end"
        text.append("\n✗ ", "bold red")
        text.append(f"rule {v.rule}", "bold red")
        text.append(" · ")
        text.append(where, _link(position))
        text.append(f" · {'violation' if v.source == 'output' else 'rejected'}: ", "dim")
        text.append_text(one_line(v.message, 300, "red"))
    if len(violations) > LISTED_VIOLATIONS:
        text.append(f"\n… {len(violations) - LISTED_VIOLATIONS} more", "red")
    return text


class TransitionsList(LineList):
    """Every recorded transition up to the cursor; the cursor frame's are marked."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.cursor = cursor
        self._marked_at = -1

    def row_text(self, row: int) -> Text:
        """``▸`` marks transitions caused by the frame under the cursor."""
        transition = self.index.trace.transitions[row]
        current = self._current(row)
        text = Text("▸ " if current else "  ", "bold cyan", end="")
        text.append_text(transition_row(self.index, transition))
        return text

    def _current(self, row: int) -> bool:
        frame = self.index.trace.transitions[row].frame
        position = self.cursor.position
        return frame == position or (frame < 0 and self.cursor.on_end_row)

    def row_key(self, row: int) -> Hashable:
        """Whether the row belongs to the cursor's frame."""
        return self._current(row)

    def rows_of(self, position: int) -> range:
        """The transitions caused at ``position`` (contiguous: they follow the events)."""
        index = self.index
        return range(
            index.transitions_at(index.events_at(position - 1)) if position >= 0 else 0,
            index.transitions_at(index.events_at(position)),
        )

    def refresh_from(self, cursor: Cursor) -> None:
        """Show the transitions so far, the newest in view."""
        rows = self.index.transitions_at(cursor.k)
        # The ▸ marks follow the cursor's frame: repaint the rows that gain or lose one.
        dirty = [*self.rows_of(self._marked_at), *self.rows_of(cursor.position)]
        self._marked_at = cursor.position
        self.show(
            rows,
            None,
            extent=len(self.index.states.transition_events),
            reveal=rows - 1 if rows else None,
            dirty=dirty,
        )

    def position_of_row(self, row: int) -> int:
        """Where a chosen transition happened (its frame, or the end of the bytes)."""
        frame = self.index.trace.transitions[row].frame
        return frame if frame >= 0 else self.index.last_position


class StatePane(Vertical):
    """Title ``State``: the summary on top, the transitions below."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.index = index
        self.cursor = cursor
        self.border_title = "State"

    def compose(self) -> ComposeResult:
        """Summary, the transitions heading, the transitions."""
        yield TextView(id="state-summary")
        yield TextView(id="transitions-heading", classes="heading")
        yield TransitionsList(self.index, self.cursor, id="transitions-list")

    def refresh_from(self, cursor: Cursor) -> None:
        """Bring the summary and the transitions in step with the cursor."""
        self.query_one("#state-summary", TextView).show(state_summary(self.index, cursor))
        count = self.index.transitions_at(cursor.k)
        heading = self.query_one("#transitions-heading", TextView)
        heading.show(Text(f"─ transitions ({count}) ─", "bold"))
        self.query_one(TransitionsList).refresh_from(cursor)
