"""``inspector diff A B --tui``: either side opens on the four panes at the selected event."""

from __future__ import annotations

from inspector.stream_diff import diff_streams
from inspector.tui.screens.diff import DiffApp, DiffScreen
from inspector.tui.screens.main import MainScreen

from ..test_diff import CUT, TOOL


async def test_a_and_b_open_either_stream_at_the_selected_event_and_escape_comes_back() -> None:
    diff = diff_streams(TOOL, CUT)
    app = DiffApp(diff)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        row = screen.row  # the first divergence
        for key, side in (("a", diff.left), ("b", diff.right)):
            await pilot.press(key)
            main = app.screen
            assert isinstance(main, MainScreen)
            assert main.trace is side.trace
            assert main.cursor.event == min(row, len(side.events) - 1)
            await pilot.press("escape")
            assert app.screen is screen
