"""A row-cursor table whose Home and End go to the first and last row."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

__all__ = ["RowTable"]


class RowTable(DataTable[Any]):
    """:class:`DataTable` with ``cursor_type="row"``, where Home and End move the selection.

    Textual's table scrolls sideways on Home and End in row mode, which moves
    nothing a list of rows can show: a list user expects the first and the
    last row.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")

    def action_scroll_home(self) -> None:
        """The first row."""
        self.action_scroll_top()

    def action_scroll_end(self) -> None:
        """The last row."""
        self.action_scroll_bottom()
