"""The help screen: every key as bound right now, grouped by task.

The groups come from the binding ids (``step.next`` is stepping, ``search.open``
search ...), so a key rebound with ``--keymap`` shows its new key in its usual
place. Keys Textual itself binds (the command palette, ctrl+q) come last,
under "Textual"; bindings Textual marks as system keys are left out.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["GROUPS", "HelpScreen", "group_of", "help_text"]

#: (group title, binding id prefixes) in the order the help lists them.
GROUPS: Final = (
    ("Stepping", ("step.", "event.", "play.")),
    ("Jumping", ("jump.", "breakpoint.")),
    ("Search", ("search.",)),
    ("Views", ("pane.", "view.", "details.", "list.", "blocks.", "back")),
    ("Live", ("live.",)),
    ("Export", ("export.",)),
    ("App", ("help.", "app.")),
)
#: Where bindings without one of our ids go: Textual's own keys, last.
GENERIC: Final = "Textual"
#: From this width the help is two columns of groups.
WIDE_HELP: Final = 160
LEFT: Final = ["Stepping", "Jumping", "Search", "Live"]
RIGHT: Final = ["Views", "Export", "App", GENERIC]

_ABOUT = (
    "All four panes show the stream as of one cursor, a frame: stepping back undoes "
    "what came later. The cursor can also sit before the first frame and, once the "
    "bytes ended, on the end row after the last frame.\n"
    "Choosing an event (click, or ↑/↓ in the Events pane) moves the cursor to its "
    "frame; choosing a block (↑/↓ in the Blocks pane) marks the events that built it. "
    "With the Events pane focused, b sets a breakpoint on the event's type instead of "
    "the frame's, and y copies the event. A click on the timeline strip goes to the "
    "longest gap under the pointer. Ctrl+P opens the command palette."
)


def group_of(binding: Binding) -> str:
    """The help group of a binding, from its id."""
    if binding.id:
        for title, prefixes in GROUPS:
            if binding.id.startswith(prefixes):
                return title
    return GENERIC


def help_text(
    bindings: dict[str, ActiveBinding],
    key_display: dict[str, str],
    titles: list[str] | None = None,
    about: bool = True,
) -> Text:
    """Each group's keys and what they do, groups in :data:`GROUPS` order, Textual's last.

    ``titles`` keeps only those groups (a column of a wide help); ``about`` adds the
    paragraph on the cursor and the panes at the end.
    """
    rows: dict[str, dict[str, tuple[list[str], str]]] = {}
    for key, active in bindings.items():
        binding = active.binding
        if binding.system and not binding.id:
            continue
        group = rows.setdefault(group_of(binding), {})
        name = binding.id or binding.action
        keys, _ = group.setdefault(
            name, ([], binding.tooltip or binding.description or binding.action)
        )
        display = key_display.get(key, key)
        if display not in keys:
            keys.append(display)
    text = Text(end="")
    for title in [title for title, _ in GROUPS] + [GENERIC]:
        if title not in rows or (titles is not None and title not in titles):
            continue
        text.append(f"{title}\n", "bold underline")
        for keys, description in rows[title].values():
            text.append(f"{' '.join(keys):>16}  ", "bold cyan")
            text.append(f"{description}\n")
        text.append("\n")
    if about:
        text.append(_ABOUT, "dim")
    return text


class HelpScreen(ModalScreen[None]):
    """A modal list of the keys; any of escape, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close",
                tooltip="Close the help"),
    ]  # fmt: skip

    def __init__(self, bindings: dict[str, ActiveBinding]) -> None:
        super().__init__()
        self.bindings = bindings

    def compose(self) -> ComposeResult:
        """The list of keys in a scrollable box."""
        # Every key on its own ("→ n j"), not the footer's short form ("→/n").
        display = {
            key: self.app.get_key_display(active.binding.with_key(key, key_display=None))
            for key, active in self.bindings.items()
        }
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            if self.app.size.width >= WIDE_HELP:
                # Two columns: at 200x50 every key fits without scrolling.
                box.add_class("-wide")
                with Horizontal():
                    yield Static(help_text(self.bindings, display, LEFT, about=False),
                                 id="help-text", classes="help-column")  # fmt: skip
                    yield Static(help_text(self.bindings, display, RIGHT),
                                 id="help-text-right", classes="help-column")  # fmt: skip
            else:
                yield Static(help_text(self.bindings, display), id="help-text")

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)
