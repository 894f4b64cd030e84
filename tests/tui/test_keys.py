"""Keys: the help screen grouped by task, rebinding, and the keys for moving, copying, maximizing.

``anthropic-text-then-tool.jsonl`` frames: 0 message_start · 1 block start (text) ·
2–3 text deltas · 4 block stop · 5 ping · 6 block start (tool) · 7 unknown
(ignored) · 8–10 argument fragments · 11 block stop · 12 message_delta ·
13 message_stop. ``tool-call-violation.jsonl`` breaks rule 5 at frame 9.
"""

from __future__ import annotations

import orjson
import pytest
from textual.binding import Binding
from textual.widgets import Footer

from inspector.tui import InspectorApp
from inspector.tui.commands import commands_for
from inspector.tui.screens.details import DetailsScreen
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.help import GENERIC, GROUPS, HelpScreen
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.picker import PickerScreen
from inspector.tui.widgets import BlocksPane, EventsList, LineList
from inspector.tui.widgets.search import GotoBar, SearchBar
from inspector.viewmodel.problems import ViolationInfo

from .helpers import TEXT_THEN_TOOL, VIOLATION, app_for, plain

SIZE = (200, 50)


def footer_keys(app: InspectorApp) -> list[str]:
    """The keys the footer shows, as displayed, left to right."""
    footer = app.screen.query_one(Footer)
    return [plain_key.key_display for plain_key in footer.query("FooterKey")]


def help_listing(app: InspectorApp) -> str:
    """The help screen's text (the help screen must be open)."""
    assert isinstance(app.screen, HelpScreen)
    return "\n".join(plain(column) for column in app.screen.query("#help-text, #help-text-right"))


@pytest.mark.parametrize(
    "screen",
    [MainScreen, PickerScreen, HelpScreen, DetailsScreen, ExportDialog, InspectorApp,
     LineList, BlocksPane, SearchBar],
)  # fmt: skip
def test_every_binding_has_an_id_and_a_description(screen: type) -> None:
    for binding in screen.BINDINGS:
        assert isinstance(binding, Binding)
        assert binding.id, f"{screen.__name__}: {binding.key} has no id"
        assert binding.tooltip or binding.description, f"{binding.id} has no description"


async def test_help_lists_the_keys_grouped_by_task_with_textuals_own_last() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        lines = help_listing(app).splitlines()
        titles = [title for title, _ in GROUPS] + [GENERIC]
        shown = [line for line in lines if line in titles]
        # No live feed here, so no Live group; the others in task order.
        assert shown == ["Stepping", "Jumping", "Search", "Views", "Export", "App", "Textual"]

        def group(title: str) -> str:
            start = lines.index(title)
            end = lines.index("", start)
            return "\n".join(lines[start:end])

        assert "→ n j  Next frame" in group("Stepping")
        assert "home g  Before the first frame" in group("Stepping")
        assert "E  Previous error or violation" in group("Jumping")
        assert ":  Go to a frame by its number" in group("Jumping")
        assert "N  Previous match of the search" in group("Search")
        assert "m  Maximize the focused pane" in group("Views")
        assert "y  Copy the selected frame's data" in group("Views")
        assert "^p  Open the command palette" in group("Textual")
        assert "?  All keys" in group("App") and "q  Quit" in group("App")


async def test_a_live_feed_adds_the_live_group() -> None:
    from .test_live import StepFeed, many_chunks

    app = InspectorApp(StepFeed(many_chunks(3)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        listing = help_listing(app)
        assert "Live\n" in listing and "Cancel the live stream" in listing
        assert listing.index("Live\n") < listing.index("Export\n")


async def test_a_keymap_moves_a_key_in_the_footer_and_the_help() -> None:
    app = app_for(TEXT_THEN_TOOL, keymap={"help.open": "f1", "step.next": "ctrl+right"})
    async with app.run_test(size=(120, 30)) as pilot:
        keys = footer_keys(app)
        assert keys[:2] == ["f1", "q"] and "?" not in keys
        assert keys[2] == "^→", "the remapped key replaces the default's short form"
        await pilot.press("ctrl+right", "n")
        assert app.screen.cursor.position == 1, "from 0: ctrl+right steps, n no longer does"
        await pilot.press("question_mark")
        assert isinstance(app.screen, MainScreen), "? is no longer help"
        await pilot.press("f1")
        listing = help_listing(app)
        assert "f1  All keys" in listing and "^→  Next frame" in listing


async def test_j_k_g_and_shift_g_step_like_the_arrows_home_and_end() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("j", "j", "j")
        assert screen.cursor.position == 3
        await pilot.press("k")
        assert screen.cursor.position == 2
        await pilot.press("G")
        assert screen.cursor.at_end
        await pilot.press("g")
        assert screen.cursor.position == -1


async def test_shift_e_goes_back_to_the_previous_error() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        # A second problem, as the output checker would report it: event 4 (frame 3).
        await app.workers.wait_for_complete()
        screen.index.add_output_violations([ViolationInfo(9, "made up", 3, 4, "output")])
        await pilot.press("end")
        assert screen.cursor.event == 8, "the end selects the stream.error"
        await pilot.press("E")
        assert (screen.cursor.position, screen.cursor.event) == (3, 4)
        await pilot.press("E")  # nothing before it: stays, and says so
        assert screen.cursor.position == 3
        assert any("No error or violation before" in n.message for n in app._notifications)
        await pilot.press("e")
        assert (screen.cursor.position, screen.cursor.event) == (9, 8)


async def test_colon_then_a_number_goes_to_that_frame() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("colon")
        bar = screen.query_one(GotoBar)
        assert bar.has_focus and bar.has_class("-open")
        await pilot.press("1", "2", "enter")
        assert screen.cursor.position == 12
        assert not bar.has_class("-open") and screen.focused is not bar
        await pilot.press("colon", "9", "9", "enter")  # no such frame: stays open, cursor stays
        assert screen.cursor.position == 12 and bar.has_class("-open")
        assert any("No frame 99 (frames: 0–13)" in n.message for n in app._notifications)
        await pilot.press("escape")
        assert not bar.has_class("-open")


async def test_y_copies_the_frame_the_event_or_the_block() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("colon", "1", "2", "enter", "y")
        assert app.clipboard == screen.trace.frames[12].data
        assert orjson.loads(app.clipboard)["type"] == "message_delta"
        screen.query_one(EventsList).focus()
        await pilot.press("y")
        copied = orjson.loads(app.clipboard)
        assert copied == screen.trace.events[screen.cursor.event or 0]
        await pilot.press("colon", "9", "enter")
        screen.query_one(BlocksPane).focus()
        await pilot.press("y")
        assert app.clipboard == '{"date": "2026-07-23"', "the tool call's arguments so far"


async def test_m_maximizes_the_focused_pane_and_escape_restores_it() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("m")
        assert screen.maximized is screen.query_one("#frames")
        await pilot.press("n")
        assert screen.cursor.position == 1, "the keys still step"
        await pilot.press("escape")
        assert screen.maximized is None
        await pilot.press("tab", "m", "m")
        assert screen.maximized is None, "m again restores"


async def test_the_palette_offers_the_new_actions_when_they_apply() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        names = [c.name for c in commands_for(screen)]
        assert "Go to frame…" in names and "Copy the selection" in names
        assert "Maximize the focused pane" in names
        assert not any(name.startswith("Search: ") for name in names), "no search yet"
        await pilot.press("slash", *"block_delta", "enter", "escape", "m")
        names = [c.name for c in commands_for(screen)]
        assert "Search: next match" in names and "Search: previous match" in names
        assert "Restore the layout" in names and "Maximize the focused pane" not in names
        await pilot.press("home")
        names = [c.name for c in commands_for(screen)]
        assert "Copy the selection" not in names, "before the first frame there is none"


async def test_at_200x50_the_help_is_two_columns_and_needs_no_scrolling() -> None:
    from textual.containers import VerticalScroll

    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help-box", VerticalScroll)
        assert box.has_class("-wide")
        assert box.max_scroll_y == 0, "every key is in view"
        listing = help_listing(app)
        for title in ("Stepping", "Jumping", "Search", "Views", "Live", "Export", "App"):
            assert f"{title}\n" in listing or title == "Live"
