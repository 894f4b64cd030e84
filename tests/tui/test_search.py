"""Search: the counter, previous match, highlights, text split across fragments, the picker filter.

``anthropic-text-then-tool.jsonl``: the text block arrives as ``"Checking the "``
(frame 2) + ``"schedule."`` (frame 3); the tool call's arguments as
``{"date": `` (8) + ``"2026-07-23"`` (9) + ``}`` (10). Frames 2, 3, 8, 9 and 10
are ``content_block_delta`` events.
"""

from __future__ import annotations

from textual.widgets import DataTable, Input

from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.picker import PickerScreen
from inspector.tui.widgets import EventsList, FramesList
from inspector.tui.widgets.lines import MATCH_STYLE
from inspector.tui.widgets.search import SearchBar
from inspector.viewmodel.cursor import SearchHit
from inspector.viewmodel.index import TraceIndex
from inspector.viewmodel.matches import find_matches

from .helpers import DATA, TEXT_THEN_TOOL, app_for, panes

SIZE = (200, 50)


def index_of(path: object) -> TraceIndex:
    """The index the main screen builds for a capture."""
    return TraceIndex(load_trace(path))  # type: ignore[arg-type]


def test_every_matching_frame_is_found_once_in_order() -> None:
    matches = find_matches(index_of(TEXT_THEN_TOOL), "BLOCK_DELTA")
    assert matches.positions == [2, 3, 8, 9, 10]
    assert [matches.counter(p) for p in (-1, 2, 3, 5, 10)] == [
        "– of 5", "1 of 5", "2 of 5", "– of 5", "5 of 5",
    ]  # fmt: skip


def test_next_and_previous_wrap_around_once() -> None:
    matches = find_matches(index_of(TEXT_THEN_TOOL), "block_delta")
    assert matches.next_after(3) == SearchHit(8, False)
    assert matches.next_after(10) == SearchHit(2, True)
    assert matches.previous_before(8) == SearchHit(3, False)
    assert matches.previous_before(2) == SearchHit(10, True)


def test_text_split_across_fragments_is_found_where_it_became_complete() -> None:
    index = index_of(TEXT_THEN_TOOL)
    # "the " came in frame 2 and "sched" in frame 3: no frame holds "the sched".
    assert find_matches(index, "the sched").positions == [3]
    # The wire escapes the quotes ({\"date\": ); the assembled arguments do not.
    assert find_matches(index, '"date": "2026').positions == [9]
    assert find_matches(index, "nowhere at all").positions == []


def test_tool_names_and_the_model_are_searched_too() -> None:
    index = index_of(TEXT_THEN_TOOL)
    assert 6 in find_matches(index, "get_schedule").positions
    assert find_matches(index, "claude-test").positions[0] == 0


async def test_the_search_bar_counts_matches_and_n_goes_back() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        bar = screen.query_one(SearchBar)
        await pilot.press("slash", *"block_delta", "enter")
        assert screen.cursor.position == 2 and bar.border_subtitle == "1 of 5"
        await pilot.press("enter")
        assert screen.cursor.position == 3 and bar.border_subtitle == "2 of 5"
        assert "/ 2 of 5" in panes(screen).status
        await pilot.press("down", "down")  # ↓ in the bar: next match
        assert screen.cursor.position == 9 and bar.border_subtitle == "4 of 5"
        await pilot.press("up")  # ↑ in the bar: previous match
        assert screen.cursor.position == 8
        await pilot.press("escape")  # leave the bar; the search goes on
        assert screen.query_one(FramesList).has_focus
        await pilot.press("N")
        assert screen.cursor.position == 3 and bar.border_subtitle == "2 of 5"
        await pilot.press("ctrl+g")
        assert screen.cursor.position == 8
        await pilot.press("p", "p")  # stepping off the matches
        assert screen.cursor.position == 6 and bar.border_subtitle == "– of 5"
        await pilot.press("escape")  # ends the search
        assert screen.matches is None and "/ " not in panes(screen).status


async def test_matches_are_highlighted_in_the_rows() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("slash", *"schedule", "enter")
        await pilot.pause()
        frames = screen.query_one(FramesList)
        events = screen.query_one(EventsList)
        assert frames.highlight is not None and events.highlight is frames.highlight

        def highlighted(lines: FramesList | EventsList, row: int) -> str:
            strip = lines.render_line(row - lines.scroll_offset.y)
            return "".join(
                s.text for s in strip if s.style and s.style.bgcolor == MATCH_STYLE.bgcolor
            )

        assert highlighted(frames, 3).casefold() == "schedule"
        await pilot.press("escape", "escape")
        assert frames.highlight is None and highlighted(frames, 3) == ""


async def test_a_word_split_across_fragments_moves_the_cursor_to_where_it_completed() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"the sched", "enter")
        assert app.screen.cursor.position == 3
        assert app.screen.query_one(SearchBar).border_subtitle == "1 of 1"


async def test_a_search_without_a_match_says_so_and_stays_put() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "slash", *"zzz", "enter")
        assert app.screen.cursor.position == 1
        assert app.screen.query_one(SearchBar).border_subtitle == "no match"


async def test_the_picker_filters_as_you_type() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(DataTable)
        assert table.row_count == 3
        await pilot.press(*"viol")  # typed in the table: goes to the filter
        bar = picker.query_one("#picker-filter", Input)
        assert bar.value == "viol" and bar.has_focus
        assert [str(table.get_row_at(i)[1]) for i in range(table.row_count)] == [
            "tool-call-violation"
        ]
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"anthropic")
        assert table.row_count == 1
        await pilot.press("enter")  # opens the one row left
        assert isinstance(app.screen, MainScreen)
        assert app.screen.source == "data/anthropic-text-then-tool.jsonl"
        await pilot.press("escape")
        await pilot.press("escape")  # clears the filter
        assert bar.value == "" and table.row_count == 3 and table.has_focus
        await pilot.press("q")
    assert app.return_code == 0


async def test_q_quits_the_picker_only_while_the_filter_is_empty() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        bar = picker.query_one("#picker-filter", Input)
        await pilot.press(*"tool")
        picker.query_one(DataTable).focus()
        await pilot.press("q")  # a letter of the filter now
        assert app.is_running and bar.value == "toolq" and bar.has_focus
        await pilot.press("escape", "q")
    assert app.return_code == 0
