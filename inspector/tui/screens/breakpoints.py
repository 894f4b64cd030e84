"""The breakpoints list (``B``): every breakpoint set; clear one, or all at once."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...viewmodel.cursor import Breakpoint
from ...viewmodel.textsafe import quoted

__all__ = ["BreakpointsScreen", "breakpoint_label"]

_HINT = "d or delete: clear the selected one · D: clear all · esc: close"


def breakpoint_label(breakpoint: Breakpoint) -> Text:
    """``frames of type "content_block_delta"`` (the type is provider text: quoted, escaped)."""
    kind, name = breakpoint
    text = Text("frames" if kind == "frame" else "events", "bold", end="")
    text.append(" of type ")
    text.append_text(quoted(name))
    return text


class BreakpointsScreen(ModalScreen[None]):
    """The breakpoints of one cursor; changes apply to that set at once."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,B,q", "close", "Close", id="breakpoints.close",
                tooltip="Close the breakpoints list"),
        Binding("d,delete", "clear_one", "Clear", id="breakpoints.clear",
                tooltip="Clear the selected breakpoint"),
        Binding("D", "clear_all", "Clear all", id="breakpoints.clear_all",
                tooltip="Clear every breakpoint"),
    ]  # fmt: skip

    def __init__(self, breakpoints: set[Breakpoint]) -> None:
        super().__init__()
        self.breakpoints = breakpoints
        self._order: list[Breakpoint] = []

    def compose(self) -> ComposeResult:
        """The list, and what the keys do."""
        with Vertical(id="breakpoints-box") as box:
            box.border_title = "Breakpoints"
            box.border_subtitle = "esc: close"
            yield OptionList(id="breakpoints-list")
            yield Static(Text(_HINT, "dim"), id="breakpoints-hint")

    def on_mount(self) -> None:
        """Fill the list and focus it."""
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        self._order = sorted(self.breakpoints)
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not self._order:
            empty = Text("no breakpoint set: b sets one on a frame's type", "dim")
            options.add_option(Option(empty, disabled=True))
            return
        options.add_options([Option(breakpoint_label(b)) for b in self._order])
        options.highlighted = min(highlighted or 0, len(self._order) - 1)

    def action_clear_one(self) -> None:
        """Clear the highlighted breakpoint."""
        at = self.query_one(OptionList).highlighted
        if at is not None and at < len(self._order):
            self.breakpoints.discard(self._order[at])
            self._fill()

    def action_clear_all(self) -> None:
        """Clear every breakpoint."""
        self.breakpoints.clear()
        self._fill()

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)
