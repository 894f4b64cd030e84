"""The Blocks pane: each block's content as assembled by the cursor.

A fixed pool of :data:`WINDOW` block views is reused: the pane shows the
window of blocks around the one in focus (the block the user chose, else
the block of the selected event, else the newest), so a stream with
thousands of blocks costs what a dozen do. Each view shows only the last
:data:`TAIL` characters of its text for the same reason, and says how many
came before.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import ClassVar, Final

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message

from ...viewmodel.cursor import Cursor
from ...viewmodel.index import BlockInfo, TraceIndex
from ...viewmodel.rows import STATE_STYLES
from ...viewmodel.textsafe import one_line, plain_value, quoted, safe_text
from .textview import TextView

__all__ = ["TAIL", "WINDOW", "BlockView", "BlocksPane", "block_text"]

#: Blocks shown at once.
WINDOW: Final = 12
#: Characters of a block's content shown (the newest ones).
TAIL: Final = 1200
#: Closed tool arguments up to this long are shown whole, pretty-printed.
PRETTY_SHOWN: Final = TAIL

_BADGES: Final = {
    "partial": "bold black on yellow",
    "valid JSON": "bold black on green",
    "invalid JSON": "bold white on red",
    "internal": "bold black on magenta",
    "refusal": "bold white on red",
}
_JSON = JSONHighlighter()


def _badge(text: Text, label: str) -> None:
    text.append("  ")
    text.append(f" {label} ", _BADGES[label])


def block_text(block: BlockInfo, k: int, chosen: bool, several_choices: bool = False) -> Text:
    """Everything about one block as of ``k`` events.

    With ``several_choices`` (``n > 1``) each block first says which choice it
    belongs to, so the answers of two choices are not read as one.
    """
    state = block.state_at(k)
    text = Text(end="")
    if several_choices and block.choice is not None:
        text.append(f"choice {block.choice}", "bold reverse")
        text.append(" ")
    text.append(block.id, "bold")
    text.append(f" {block.kind}", "cyan")
    text.append(" · ", "dim")
    text.append(state, STATE_STYLES.get(state, ""))
    if block.aborted_at(k):
        text.append(" (aborted: the stream ended)", "red")
    if block.kind == "tool_call":
        if state == "closed":
            valid, _ = block.arguments_check()
            _badge(text, "valid JSON" if valid else "invalid JSON")
        else:
            _badge(text, "partial")
    elif block.kind == "reasoning":
        _badge(text, "internal")
    elif block.kind == "refusal":
        _badge(text, "refusal")
    if block.kind == "tool_call":
        text.append("\n")
        if block.name is None:
            text.append("no name", "dim italic")
        else:
            text.append_text(one_line(plain_value(block.name), 60, "bold"))
        text.append(" · ", "dim")
        if block.call_id is None:
            text.append("no call id", "dim italic")
        else:
            text.append_text(one_line(plain_value(block.call_id), 60))
    elif block.provider_type and block.provider_type != block.kind:
        text.append("\n")
        text.append_text(one_line(block.provider_type, 60, "dim"))
    content, omitted = block.text.text_at(k, TAIL)
    text.append("\n")
    pretty = None
    if block.kind == "tool_call" and state == "closed" and not block.aborted_at(k):
        # Complete, valid arguments read best pretty-printed (when short enough to show whole).
        pretty = block.pretty_arguments(PRETTY_SHOWN)
    if pretty is not None:
        body = safe_text(pretty, multiline=True)
        _JSON.highlight(body)
        text.append_text(body)
    elif block.kind in ("tool_call", "opaque"):
        if omitted:
            text.append(f"… {omitted:,} earlier characters\n", "dim italic")
        body = safe_text(content, multiline=True)
        _JSON.highlight(body)
        text.append_text(body)
    else:
        if omitted:
            text.append(f"… {omitted:,} earlier characters\n", "dim italic")
        style = "italic" if block.kind == "reasoning" else "red" if block.kind == "refusal" else ""
        if content and not content.strip() and not omitted:
            # Only whitespace so far: quoted, or it would look like nothing at all.
            text.append_text(quoted(content, style or "green"))
        else:
            text.append_text(safe_text(content, style, multiline=True))
    if not content and not omitted:
        text.append("(nothing yet)", "dim italic")
    if block.kind == "tool_call" and state == "closed":
        valid, problem = block.arguments_check()
        if not valid and problem:
            text.append("\n")
            text.append_text(one_line(problem, 200, "red"))
    signature, _ = block.signature.text_at(k)
    if signature:
        text.append("\nsignature ", "magenta")
        text.append_text(one_line(signature, 32, "magenta"))
        text.append(f" ({len(signature):,} chars, internal)", "dim")
    citations = bisect_left(block.citations, k)
    if citations:
        text.append(f"\n{citations} citation(s)", "dim")
    if chosen:
        text.append("\n┃ built by ", "magenta")
        span = block.built_span(k)
        if span is not None:
            built, first, last = span
            text.append(f"{built} event(s) #{first}–#{last}", "bold magenta")
        else:
            text.append("no event yet", "dim")
    return text


class BlockView(TextView):
    """One block of the window (the pane reuses these)."""

    def __init__(self, slot: int) -> None:
        super().__init__(classes="block", id=f"block-{slot}")
        self.slot = slot
        self.block: BlockInfo | None = None

    def on_click(self) -> None:
        """Clicking a block chooses it."""
        if self.block is not None:
            self.post_message(BlocksPane.Chosen(self.block.index))


class BlocksPane(VerticalScroll, inherit_bindings=False):
    """Title ``Blocks``: the window of blocks around the one in focus."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous block", show=False, id="blocks.previous"),
        Binding("down", "move(1)", "Next block", show=False, id="blocks.next"),
        Binding("pageup", "scroll_page(-1)", "Scroll up", show=False, id="blocks.page_up"),
        Binding("pagedown", "scroll_page(1)", "Scroll down", show=False, id="blocks.page_down"),
    ]

    can_focus = True

    class Chosen(Message):
        """A block was chosen (``None``: back to following the cursor)."""

        def __init__(self, block: int | None) -> None:
            super().__init__()
            self.block = block

    def __init__(self, index: TraceIndex, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.index = index
        self.border_title = "Blocks"
        self.chosen: int | None = None
        self._anchor: int | None = None
        self._started = 0

    def compose(self) -> ComposeResult:
        """A note line and the pool of block views."""
        yield TextView(id="blocks-note", classes="heading")
        for slot in range(WINDOW):
            yield BlockView(slot)

    def anchor_order(self, cursor: Cursor, started: int) -> int:
        """Which block (by start order) the window is built around."""
        index = self.index
        focus: BlockInfo | None = None
        if self.chosen is not None:
            focus = index.blocks.get(self.chosen)
        if (focus is None or focus.start_event >= cursor.k) and cursor.event is not None:
            focus = index.block_of_event(cursor.event)
        if focus is None or focus.start_event >= cursor.k:
            return started - 1
        return bisect_left(index.block_starts, focus.start_event)

    def refresh_from(self, cursor: Cursor) -> None:
        """Show the window of blocks as of the cursor."""
        index = self.index
        k = cursor.k
        started = index.blocks_at(k)
        self._started = started
        note = self.query_one("#blocks-note", TextView)
        views = list(self.query(BlockView))
        if not started:
            note.show(Text("no block yet", "dim"))
            note.display = True
            for view in views:
                view.display = False
                view.block = None
            self._anchor = None
            return
        anchor = self.anchor_order(cursor, started)
        self._anchor = anchor
        lo = max(0, min(anchor - WINDOW // 2, started - WINDOW))
        hi = min(started, lo + WINDOW)
        note.display = started > WINDOW
        if started > WINDOW:
            note.show(Text(f"blocks {lo + 1}–{hi} of {started} (↑/↓ to move)", "dim"))
        for slot, view in enumerate(views):
            order = lo + slot
            if order >= hi:
                view.display = False
                view.block = None
                continue
            block = index.block_at_order(order)
            view.block = block
            view.display = True
            view.set_class(block.index == self.chosen, "-chosen")
            view.set_class(block.state_at(k) == "open", "-open")
            view.show(block_text(block, k, block.index == self.chosen, index.several_choices))
        target = views[anchor - lo]
        if anchor == hi - 1:
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
        else:
            self.call_after_refresh(self.scroll_to_widget, target, animate=False, top=True)

    def action_move(self, delta: int) -> None:
        """Choose the block before or after the one in focus."""
        if not self._started or self._anchor is None:
            return
        order = max(0, min(self._started - 1, self._anchor + delta))
        self.post_message(self.Chosen(self.index.block_order[order]))

    def action_scroll_page(self, direction: int) -> None:
        """Scroll the pane by a page."""
        if direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)
