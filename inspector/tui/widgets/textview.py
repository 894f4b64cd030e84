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

    A text that did change but fills exactly the lines the widget has is
    repainted without a layout: a layout re-arranges the whole screen and repaints every
    widget in it, which a live stream would otherwise pay on every repaint
    (the status line, the selected event and its source all change then).
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown: Text | None = None

    def show(self, text: Text) -> bool:
        """Show ``text``; True when it differed from what was shown."""
        if self._shown is not None and self._shown == text:
            return False
        self._shown = text
        width = self.content_size.width
        rule = self.styles.width  # None: fill the parent, as "1fr"
        if not width or (rule is not None and rule.is_auto):
            # Not laid out yet, or sized by its text: only a layout knows.
            self.update(text)
            return True
        size = self.content_size
        self.update(text, layout=False)
        # Against the height it was given, not the old text's: a layout still
        # pending may not have applied that one yet.
        if self.get_content_height(size, size, width) != size.height:
            self.refresh(layout=True)
        return True
