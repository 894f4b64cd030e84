"""Small terminals: 120x30 and 80x24 keep help and quit in the footer, two panes, a fitting picker.

``captures/anthropic/several-blocks.jsonl`` has 29 frames and 7 transitions,
more than the State pane shows at 80x24.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Tabs

from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.picker import PickerScreen, column_widths
from inspector.tui.widgets import (
    BlocksPane,
    EventsList,
    FramesList,
    KeysFooter,
    StatusLine,
    TransitionsList,
)

from ..conftest import ROOT
from .helpers import DATA, TEXT_THEN_TOOL, app_for

SEVERAL_BLOCKS = ROOT / "captures" / "anthropic" / "several-blocks.jsonl"
PANE_NAMES = ("frames", "events", "blocks", "state")


def shown_panes(screen: MainScreen) -> list[str]:
    """The panes on screen, top to bottom / left to right."""
    return [name for name in PANE_NAMES if screen.query_one(f"#{name}").display]


def visible_footer_keys(app: InspectorApp, width: int) -> list[str]:
    """The footer keys that are entirely inside the terminal."""
    footer = app.screen.query_one(KeysFooter)
    return [key.key for key in footer.query("FooterKey") if key.region.right <= width]


@pytest.mark.parametrize("size", [(120, 30), (80, 24)])
async def test_the_footer_always_shows_help_and_quit(size: tuple[int, int]) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        keys = visible_footer_keys(app, size[0])
        assert keys[:2] == ["question_mark", "q"]


async def test_the_footer_keeps_a_rebound_help_key_in_view() -> None:
    app = app_for(TEXT_THEN_TOOL, keymap={"help.open": "f1", "app.quit": "ctrl+x"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert visible_footer_keys(app, 80)[:2] == ["f1", "ctrl+x"]


@pytest.mark.parametrize("size", [(120, 30), (80, 24)])
async def test_the_status_line_is_one_line(size: tuple[int, int]) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n", "n")
        status = app.screen.query_one(StatusLine)
        assert status.region.height == 1
        text = status.content.plain  # type: ignore[union-attr]
        assert len(text) <= size[0] and "frame 2 of 0–13 · event 3 of" in text


async def test_below_100_columns_frames_stays_and_one_other_pane_is_shown_under_tabs() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.has_class("-narrow")
        tabs = screen.query_one("#pane-tabs", Tabs)
        # Blocks first: where the README says to watch the arguments arrive.
        assert tabs.display and tabs.active == "tab-blocks"
        assert shown_panes(screen) == ["frames", "blocks"]
        frames, blocks = screen.query_one("#frames"), screen.query_one("#blocks")
        assert frames.region.width == blocks.region.width == 80, "stacked, full width"
        assert frames.region.height >= 8 and blocks.region.height >= 8
        assert screen.query_one(FramesList).has_focus
        await pilot.press("tab")
        assert screen.query_one(BlocksPane).has_focus and shown_panes(screen) == [
            "frames", "blocks",
        ]  # fmt: skip
        await pilot.press("tab")
        assert screen.query_one(EventsList).has_focus
        assert tabs.active == "tab-events" and shown_panes(screen) == ["frames", "events"]
        await pilot.press("n")
        assert screen.cursor.position == 1, "the keys still step"
        await pilot.press("shift+tab", "shift+tab")  # back through Blocks to Frames
        assert screen.query_one(FramesList).has_focus
        assert shown_panes(screen) == ["frames", "blocks"], "the last lower pane stays"
        await pilot.click("#pane-tabs", offset=(18, 0))  # the State tab
        await pilot.pause()
        assert tabs.active == "tab-state" and shown_panes(screen) == ["frames", "state"]
        assert screen.query_one(TransitionsList).has_focus


async def test_the_state_pane_follows_the_cursor_when_it_comes_back_into_view() -> None:
    app = app_for(SEVERAL_BLOCKS)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("end")  # while Events is shown, State is hidden
        transitions = screen.query_one(TransitionsList)
        await pilot.click("#pane-tabs", offset=(18, 0))
        await pilot.pause()
        newest = transitions.rows - 1
        top = transitions.scroll_offset.y
        height = transitions.scrollable_content_region.height
        assert height > 0 and top <= newest < top + height


async def test_the_picker_fits_80_columns() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        table = app.screen.query_one(DataTable)
        assert table.virtual_size.width <= 80
        assert "q" in visible_footer_keys(app, 80)


def test_picker_columns_shrink_below_120_columns_and_the_scenario_takes_the_rest() -> None:
    wide, narrow = column_widths(160), column_widths(80)
    assert wide["state"] > narrow["state"] and wide["provider"] > narrow["provider"]
    assert sum(narrow.values()) + 2 * len(narrow) + 2 <= 80
    assert narrow["scenario"] >= 16
