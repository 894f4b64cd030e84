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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "screen.search_step(1)", "Next match", show=False,
                id="search.bar_next", tooltip="Next match (in the search bar)"),
        Binding("up", "screen.search_step(-1)", "Previous match", show=False,
                id="search.bar_previous", tooltip="Previous match (in the search bar)"),
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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder="frame number · enter: go · esc: close",
            type="integer",
            id=id,
        )
        self.cursor_blink = False
        self.border_title = "go to frame"
