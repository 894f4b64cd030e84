"""The two one-line prompts under the panes: search (``/``) and go to frame (``:``)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

__all__ = ["GotoBar", "SearchBar"]


class SearchBar(Input):
    """The search query, docked under the panes (hidden until opened).

    Enter (or ↓) goes to the next match, ↑ to the previous; the border shows
    the counter ("2 of 5"). Escape leaves the bar with the search still
    active (``N`` / ``ctrl+g`` step through it); a second escape ends it.
    """

    # Shown: while the bar has the focus the footer lists only these (KeysFooter).
    # (fmt: skip: one binding per two lines, as every BINDINGS list of the TUI.)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Next match", id="search.bar_submit",
                tooltip="Search, or go to the next match"),
        Binding("down", "screen.search_step(1)", "Next", key_display="↓",
                id="search.bar_next", tooltip="Next match (in the search bar)"),
        Binding("up", "screen.search_step(-1)", "Previous", key_display="↑",
                id="search.bar_previous", tooltip="Previous match (in the search bar)"),
        Binding("escape", "screen.back", "Leave", id="search.bar_leave",
                tooltip="Leave the bar (the search stays: N / ctrl+g); again: end it"),
    ]  # fmt: skip

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder="search frames and text · enter/↓ next · ↑ previous · esc: leave",
            id=id,
        )
        # A blinking cursor would make screenshots and snapshots differ run to run.
        self.cursor_blink = False
        self.border_title = "search"

    def show_counter(self, counter: str | None) -> None:
        """``2 of 5`` on the border (nothing while no search is active)."""
        self.border_subtitle = counter or ""


class GotoBar(Input):
    """``:`` asks for a frame number; enter goes there, escape closes."""

    # Shown: while the bar has the focus the footer lists only these (KeysFooter).
    # (fmt: skip: one binding per two lines, as every BINDINGS list of the TUI.)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Go", id="goto.bar_go", tooltip="Go to the frame typed"),
        Binding("escape", "screen.back", "Close", id="goto.bar_close",
                tooltip="Close the bar without moving"),
    ]  # fmt: skip

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder="frame number · enter: go · esc: close",
            type="integer",
            id=id,
        )
        self.cursor_blink = False
        self.border_title = "go to frame"
