"""A Static that repaints only when what it shows actually changed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

__all__ = ["TextView"]


class TextView(Static):
    """Shows one :class:`Text`; :meth:`show` skips the repaint when it is unchanged.

    Panes rebuild their texts on every step, but most of them come out the
    same (a block that did not grow, a heading). Comparing two texts is far
    cheaper than re-wrapping and re-laying out the screen.
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown: Text | None = None

    def show(self, text: Text) -> bool:
        """Show ``text``; True when it differed from what was shown."""
        if self._shown is not None and self._shown == text:
            return False
        self._shown = text
        self.update(text)
        return True
