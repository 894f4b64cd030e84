"""How the main screen shares its rows: at each size the lists get room, a maximized
pane keeps the status line, a prompt's footer lists the prompt's keys, and the Blocks
pane (where the README says to watch a stream build) is shown from the start at 80x24."""

from __future__ import annotations

from textual.widgets import Tabs

from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import FramesList, StatusLine
from inspector.tui.widgets.blocks import BlocksPane

from ..conftest import CAPTURES
from .helpers import app_for, plain
from .test_keys import footer_keys

REASONING = CAPTURES / "anthropic" / "reasoning.jsonl"


def main_screen(app: object) -> MainScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, MainScreen)
    return screen


async def test_at_120x30_the_frames_list_shows_more_rows_than_the_frame_in_full() -> None:
    app = app_for(REASONING)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        listed = screen.query_one(FramesList).size.height
        data = screen.query_one("#frame-data-scroll").size.height
        assert listed >= 8 and listed > data, (listed, data)


async def test_at_80x24_the_blocks_pane_is_shown_first_and_tab_goes_frames_blocks_events() -> None:
    app = app_for(REASONING)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "n", "n", "n")
        screen = main_screen(app)
        blocks = screen.query_one(BlocksPane)
        assert blocks.display and blocks.region.height > 0
        assert "b_0 reasoning" in " ".join(plain(v) for v in blocks.query("BlockView"))
        assert screen.query_one("#pane-tabs", Tabs).active == "tab-blocks"
        await pilot.press("tab")
        assert screen.query_one("#blocks").has_class("-active")
        await pilot.press("tab")
        assert screen.query_one("#events").has_class("-active")


async def test_a_maximized_pane_keeps_the_status_line_above_it() -> None:
    for size in [(80, 24), (200, 50)]:
        app = app_for(REASONING)
        async with app.run_test(size=size) as pilot:
            await pilot.press("n", "m")
            screen = main_screen(app)
            assert screen.maximized is not None
            status = screen.query_one(StatusLine)
            assert status.region.height == 1 and status.region.y == 0, size
            assert screen.maximized.region.y == 1, size
            assert "frame 1 of 0–23" in plain(status)
            await pilot.press("m")
            assert screen.maximized is None


async def test_while_a_prompt_is_open_the_footer_lists_the_keys_that_work_in_it() -> None:
    app = app_for(REASONING)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("slash")
        assert footer_keys(app) == ["⏎", "↓", "↑", "esc", "^p"]
        await pilot.press("escape", "escape", "colon")
        assert footer_keys(app) == ["⏎", "esc", "^p"]
        await pilot.press("escape")
        assert footer_keys(app)[:2] == ["?", "q"]
