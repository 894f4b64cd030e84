"""Every line a widget of ours draws covers the cells it claims.

A :class:`~textual.strip.Strip` built with a cell length longer than its
segments tells Textual the line is drawn when its right part is not: the
terminal keeps whatever was there before (the picker's column header under
the timeline labels, after opening a capture), while Textual's own
screenshot shows blank cells. So every widget with a ``render_line`` of its
own is checked, on every screen, at several sizes: the segments' cells add
up to the strip's length, and the strip is as wide as the widget's content.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.scroll_view import ScrollView
from textual.widget import Widget

from inspector.tui import InspectorApp

from ..conftest import ROOT
from .helpers import TEXT_THEN_TOOL, app_for

SIZES = [(200, 50), (120, 30), (80, 24)]


def own_line_renderers(screen: Any) -> list[Widget]:
    """The widgets on ``screen`` that draw their lines themselves, shown."""
    found = []
    for widget in screen.walk_children(with_self=False):
        renders = type(widget).render_line
        if renders in (Widget.render_line, ScrollView.render_line):
            continue
        if widget.display and widget.size.width > 0 and widget.size.height > 0:
            found.append(widget)
    return found


def lying_lines(widget: Widget) -> list[str]:
    """Each line of ``widget`` whose strip claims cells its segments do not draw."""
    wrong = []
    width = (
        widget.scrollable_content_region.width
        if isinstance(widget, ScrollView)
        else (widget.size.width)
    )
    for y in range(widget.size.height):
        strip = widget.render_line(y)
        drawn = sum(segment.cell_length for segment in strip)
        if drawn != strip.cell_length or strip.cell_length < width:
            wrong.append(f"{type(widget).__name__} line {y}: drew {drawn} of {width} cells")
    return wrong


async def check_screen(app: InspectorApp, pilot: Any) -> None:
    await pilot.pause()
    widgets = own_line_renderers(app.screen)
    assert widgets, "every screen here has widgets drawing their own lines"
    problems = [line for widget in widgets for line in lying_lines(widget)]
    assert problems == []


@pytest.mark.parametrize("size", SIZES)
async def test_the_main_screen_draws_every_cell_it_claims(size: tuple[int, int]) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=size) as pilot:
        for key in ["n", "n", "n", "end", "home"]:
            await pilot.press(key)
            await check_screen(app, pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_the_picker_and_the_capture_it_opens_draw_every_cell_they_claim(
    size: tuple[int, int],
) -> None:
    app = InspectorApp(captures=ROOT / "captures")
    async with app.run_test(size=size) as pilot:
        await check_screen(app, pilot)
        await pilot.press("enter", "n", "n")
        await check_screen(app, pilot)
