"""A virtual list on Textual's Line API: no widget per row.

``LineList`` knows only how many rows there are; it asks its subclass for
the :class:`Text` of a row when that row scrolls into view, and keeps the
rendered :class:`Strip` in an LRU cache keyed by everything that changes
the row's look. A list of a million frames costs what its visible rows
cost, which is what keeps stepping independent of the capture's size.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["MATCH_STYLE", "LineList"]

#: How a search match looks inside a row.
MATCH_STYLE: Final = Style(color="black", bgcolor="yellow", bold=True)


class LineList(ScrollView, can_focus=True, inherit_bindings=False):
    """Base class: rows rendered on demand, one highlighted cursor row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "up",
            "move(-1)",
            "Up",
            show=False,
            id="list.up",
            tooltip="Previous row: frame, event or transition (moves the cursor)",
        ),
        Binding(
            "down",
            "move(1)",
            "Down",
            show=False,
            id="list.down",
            tooltip="Next row: frame, event or transition (moves the cursor)",
        ),
        Binding(
            "pageup",
            "page(-1)",
            "Page up",
            show=False,
            id="list.page_up",
            tooltip="A page of rows up",
        ),
        Binding(
            "pagedown",
            "page(1)",
            "Page down",
            show=False,
            id="list.page_down",
            tooltip="A page of rows down",
        ),
        Binding(
            "enter",
            "choose",
            "Choose",
            show=False,
            id="list.choose",
            tooltip="Go to the row's frame",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"linelist--cursor"}

    class Chosen(Message):
        """The user picked a row (click, arrow keys or enter)."""

        def __init__(self, lines: LineList, row: int) -> None:
            super().__init__()
            self.lines = lines
            self.row = row

        @property
        def control(self) -> LineList:
            """The list the row belongs to."""
            return self.lines

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._cache: LRUCache[tuple[Hashable, ...], Strip] = LRUCache(256)
        self.rows = 0
        self.cursor_row: int | None = None
        self._look: Hashable = None
        self._base: Style | None = None
        self.highlight: re.Pattern[str] | None = None
        self._reveal: int | None = None  # the row to keep in view (default: the cursor)

    # -- what subclasses provide ---------------------------------------------

    def row_text(self, row: int) -> Text:
        """The content of row ``row`` (0 ≤ row < :attr:`rows`)."""
        raise NotImplementedError

    def row_key(self, row: int) -> Hashable:
        """Whatever besides the row number changes how ``row`` looks."""
        return None

    # -- updating ----------------------------------------------------------------

    def show(
        self,
        rows: int,
        cursor_row: int | None,
        look: Hashable = None,
        *,
        extent: int | None = None,
        reveal: int | None = None,
        dirty: Iterable[int] = (),
    ) -> None:
        """Set the row count and cursor, bring ``reveal`` (default: the cursor) into view.

        ``extent`` is the scrollable height (rows past ``rows`` are blank): a
        list whose rows appear one by one keeps a constant extent, because
        every change of a widget's virtual size re-lays out the screen. Only
        what changed is repainted — the old and new cursor rows, rows that
        appeared or vanished, and ``dirty`` — unless the list scrolled or
        ``look`` (state that changes how every row looks) differs.
        """
        old_rows, old_cursor, old_top = self.rows, self.cursor_row, self.scroll_offset.y
        self.rows = rows
        self._set_height(max(rows, extent or 0))
        self.cursor_row = cursor_row
        target = reveal if reveal is not None else cursor_row
        self._reveal = target
        if target is not None:
            self.scroll_to_row(target)
        if rows < old_rows or target is None:
            self._scroll_up_to_fill(rows)
        if look != self._look or self.scroll_offset.y != old_top:
            self._look = look
            self.refresh()
            return
        changed = set(dirty)
        if old_cursor != cursor_row:
            changed.update(row for row in (old_cursor, cursor_row) if row is not None)
        low, high = sorted((old_rows, rows))
        top = self.scroll_offset.y
        bottom = top + self.scrollable_content_region.height
        changed.update(range(max(low, top), min(high, bottom)))
        for row in changed:
            if top <= row < bottom:
                self.refresh_line(row)

    def _scroll_up_to_fill(self, rows: int) -> None:
        """Scroll back so no row stays hidden above blank ones (the list shrank).

        Not while it grows: rows then fill the blank ones below as they come.
        """
        window = self.scrollable_content_region.height
        fill = max(0, rows - window)
        if window > 0 and self.scroll_offset.y > fill:
            self.scroll_to(y=fill, animate=False, immediate=True)

    def _set_height(self, height: int) -> None:
        """Make the list ``height`` rows tall, re-laying out the screen only when needed.

        A list that grows while its scrollbar is already shown (a live capture,
        every repaint) keeps its place and width: only the scrollbar changes,
        so the screen-wide layout that setting ``virtual_size`` asks for is
        skipped (it re-arranged and repainted every widget on every repaint).
        """
        old = self.virtual_size
        if height == old.height:
            return
        size = Size(self.scrollable_content_region.width, height)
        window = self.scrollable_content_region.height
        growing = old.height < height and old.width == size.width
        if growing and self.show_vertical_scrollbar and 0 < window < old.height:
            self.set_reactive(LineList.virtual_size, size)
            scrollbar = self.vertical_scrollbar
            scrollbar.window_virtual_size = height
            scrollbar.refresh()
            return
        self.virtual_size = size

    def set_highlight(self, pattern: re.Pattern[str] | None) -> None:
        """Mark what ``pattern`` matches in every row (None: nothing)."""
        if pattern != self.highlight:
            self.highlight = pattern
            self.clear_cache()

    def clear_cache(self) -> None:
        """Forget every rendered row (their content changed)."""
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        """The theme or focus changed: cached strips carry the old colours."""
        super().notify_style_update()
        self._cache.clear()

    def scroll_to_row(self, row: int) -> None:
        """Bring ``row`` into view, jumping a third of a page so steps rarely scroll."""
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=max(0, row - height // 3), animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - (2 * height) // 3, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        """Keep the virtual width in step and the revealed row visible after a resize.

        A list hidden under a tab has no height, so it could not scroll when
        its rows changed; it scrolls here, when it is shown again.
        """
        height = max(self.rows, self.virtual_size.height)
        self.virtual_size = Size(self.scrollable_content_region.width, height)
        if self._reveal is not None:
            self.scroll_to_row(self._reveal)

    # -- rendering -------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """Compute the widget's base style once per pass, not once per line."""
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Render one visible line from the row cache."""
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self._base if self._base is not None else self.rich_style
        if row >= self.rows or width <= 0:
            return Strip.blank(width, base)
        selected = row == self.cursor_row
        key = (row, selected, width, self.row_key(row))
        strip = self._cache.get(key)
        if strip is None:
            text = self.row_text(row)
            text.truncate(width, overflow="ellipsis")
            text.stylize_before(base)
            fill = base
            if selected:
                # On top of the row's own styles, so the highlight shows through them.
                cursor_style = self.get_component_rich_style("linelist--cursor")
                # Only its background and weight: a row's own colour (a red error) stays.
                text.stylize(Style(bgcolor=cursor_style.bgcolor, bold=cursor_style.bold))
                fill = base + cursor_style
            if self.highlight is not None:
                # Last, so a match shows on the cursor row too.
                for hit in self.highlight.finditer(text.plain):
                    text.stylize(MATCH_STYLE, hit.start(), hit.end())
            strip = Strip(list(text.render(self.app.console)), text.cell_len)
            strip = strip.adjust_cell_length(width, fill)
            self._cache[key] = strip
        return strip

    # -- choosing ----------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        """A click picks the row under the pointer."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = self.scroll_offset.y + offset.y
        if 0 <= row < self.rows:
            self.post_message(self.Chosen(self, row))

    def _move_to(self, row: int) -> None:
        if self.rows:
            self.post_message(self.Chosen(self, max(0, min(self.rows - 1, row))))

    def action_move(self, delta: int) -> None:
        """Pick the row above or below the cursor."""
        if self.cursor_row is None:
            self._move_to(0 if delta > 0 else self.rows - 1)
        else:
            self._move_to(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        """Pick the row a page above or below."""
        page = max(1, self.scrollable_content_region.height - 1)
        self._move_to((self.cursor_row or 0) + direction * page)

    def action_choose(self) -> None:
        """Pick the cursor row again (lists that jump elsewhere act on it)."""
        if self.cursor_row is not None:
            self.post_message(self.Chosen(self, self.cursor_row))
