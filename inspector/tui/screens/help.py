"""The help screen: every key as bound right now (a remapped key shows its new key)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HelpScreen", "help_text"]

_ABOUT = (
    "All four panes show the stream as of one cursor, a frame: stepping back undoes "
    "what came later. The cursor can also sit before the first frame and, once the "
    "bytes ended, on the end row after the last frame.\n"
    "Choosing an event (click, or ↑/↓ in the Events pane) moves the cursor to its "
    "frame; choosing a block (↑/↓ in the Blocks pane) marks the events that built it. "
    "With the Events pane focused, b sets a breakpoint on the event's type instead of "
    "the frame's. Tab moves between panes. Ctrl+P opens the command palette."
)


def help_text(bindings: dict[str, ActiveBinding], key_display: dict[str, str]) -> Text:
    """One line per action: its keys and what it does."""
    rows: dict[str, tuple[list[str], str]] = {}
    for key, active in bindings.items():
        binding = active.binding
        name = binding.id or binding.action
        keys, description = rows.setdefault(
            name, ([], binding.tooltip or binding.description or binding.action)
        )
        display = key_display.get(key, key)
        if display not in keys:
            keys.append(display)
    text = Text(end="")
    for keys, description in rows.values():
        text.append(f"{' '.join(keys):>16}  ", "bold cyan")
        text.append(f"{description}\n")
    text.append("\n")
    text.append(_ABOUT, "dim")
    return text


class HelpScreen(ModalScreen[None]):
    """A modal list of the keys; any of escape, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    def __init__(self, bindings: dict[str, ActiveBinding]) -> None:
        super().__init__()
        self.bindings = bindings

    def compose(self) -> ComposeResult:
        """The list of keys in a scrollable box."""
        display = {
            key: self.app.get_key_display(active.binding.with_key(key))
            for key, active in self.bindings.items()
        }
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            yield Static(help_text(self.bindings, display), id="help-text")

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)
