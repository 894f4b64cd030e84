"""The search bar: ``/`` opens it, enter finds the next match, escape closes it."""

from __future__ import annotations

from textual.widgets import Input

__all__ = ["SearchBar"]


class SearchBar(Input):
    """A one-line query docked under the panes (hidden until opened)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder="search frames and text · enter: next match · esc: close",
            id=id,
        )
        # A blinking cursor would make screenshots and snapshots differ run to run.
        self.cursor_blink = False
