"""The selected event in full, and no Python notation anywhere in the panes.

Selecting an event (``]``, or ↑/↓ in the Events pane) shows, below the list,
where it came from (frame and the provider's own event name), a
``stream.error``'s fields one per line with the whole message, violations,
a closed tool call's arguments pretty-printed, and the event as JSON.
"""

from __future__ import annotations

import re

import orjson
import pytest
from rich.style import Style
from rich.text import Text

from inspector.session import load_trace
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import EventsList
from inspector.tui.widgets.blocks import block_text
from inspector.tui.widgets.events import event_detail
from inspector.viewmodel.buffers import BlockInfo
from inspector.viewmodel.index import TraceIndex
from inspector.viewmodel.rows import event_row, event_summary

from ..conftest import CAPTURES
from .helpers import REAL, app_for, panes, plain

SIZE = (200, 50)
OVERLOADED = CAPTURES / "anthropic" / "overloaded-after-text.jsonl"
TOOL = CAPTURES / "anthropic" / "tool-call-fragmented-json.jsonl"

#: Python's notation for JSON values: must never reach a pane.
PYTHON_REPR = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|': ")
#: A JSON-quoted string: provider text inside may say anything (even Python code).
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def python_notation(shown: str) -> re.Match[str] | None:
    """Python notation outside the quoted provider strings of ``shown``."""
    return PYTHON_REPR.search(QUOTED.sub('""', shown))


def detail(screen: MainScreen) -> str:
    return plain(screen.query_one("#event-detail"))  # type: ignore[arg-type]


async def test_a_stream_error_shows_every_field_and_the_whole_message() -> None:
    app = app_for(OVERLOADED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        lines = detail(screen).splitlines()
        assert lines[0].startswith("#") and " stream.error · frame 6 · provider error" in lines[0]
        assert lines[1:6] == [
            "status    failed",
            "category  upstream_overloaded",
            "retryable true",
            "code      overloaded_error",
            "message   Overloaded",
        ]
        body = detail(screen).split("\n\n", 1)[1]
        assert orjson.loads(body) == screen.trace.events[screen.cursor.event]


async def test_the_selected_error_row_keeps_its_red() -> None:
    app = app_for(OVERLOADED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        events = app.screen.query_one(EventsList)
        row = events.cursor_row
        assert row is not None and "stream.error" in events.row_text(row).plain
        strip = events.render_line(row - events.scroll_offset.y)
        colours = {
            segment.style.color.name
            for segment in strip
            if segment.text.strip() and segment.style and segment.style.color
        }
        assert any("red" in colour for colour in colours), colours


async def test_a_closed_tool_call_shows_its_arguments_pretty_printed() -> None:
    app = app_for(TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("end")
        stop = next(
            i
            for i in range(screen.index.n_events)
            if screen.trace.events[i]["type"] == "block.stop"
            and screen.trace.events[i]["block"]["kind"] == "tool_call"
        )
        screen.cursor.select_event(stop)
        screen.refresh_view()
        text = detail(screen)
        assert "arguments valid JSON\n{\n" in text
        assert '\n  "location": "Paris"\n}' in text
        # The Blocks pane shows the same pretty form once the call is complete.
        assert '{\n  "location": "Paris"\n}' in panes(screen).blocks[-1]


async def test_a_delta_names_the_provider_event_it_came_from_and_quotes_its_text() -> None:
    app = app_for(TOOL)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(8):
            await pilot.press("n")
        text = detail(app.screen)  # type: ignore[arg-type]
        first = text.splitlines()[0]
        assert "block.delta · frame 8 · provider content_block_delta (cb.delta)" in first
        assert text.splitlines()[1] == 'json_text "{\\"locati"'


def test_whitespace_only_text_is_visible_and_said_to_be_whitespace() -> None:
    event = {
        "type": "block.delta",
        "seq": 5,
        "block": {"id": "b_0", "index": 0, "kind": "text"},
        "delta": {"kind": "text", "text": "  "},
    }
    assert event_summary(event).plain == '"  " (whitespace)'
    event["delta"] = {"kind": "text", "text": "\n"}
    assert event_summary(event).plain == '"\\n" (whitespace)'


@pytest.mark.parametrize(
    "event",
    [
        {"type": "block.start", "block": {"id": "b_0", "index": 0, "kind": "tool_call"},
         "name": None, "call_id": None, "provider_type": "function_call"},
        {"type": "block.delta", "block": {"id": "b_0", "index": 0, "kind": "text"},
         "delta": {"kind": "citation", "text": "", "citation": {"type": "url", "x": None}}},
        {"type": "stream.done", "finish_reason": None, "usage": {"output_tokens": 3}},
        {"type": "stream.error", "status": "failed",
         "error": {"category": None, "message": None, "retryable": False}},
        {"type": "stream.warning", "code": None, "message": {"k": [True]}},
        {"type": "stream.start", "provider": None, "model": ["m"]},
    ],
)  # fmt: skip
def test_no_summary_shows_python_notation(event: dict[str, object]) -> None:
    shown = event_summary(event).plain  # type: ignore[arg-type]
    assert not python_notation(shown), shown


def test_no_pane_text_shows_python_notation_on_any_capture() -> None:
    # Every event row and every event detail of every bundled capture and real fixture.
    paths = [p for p in CAPTURES.glob("*/*.jsonl") if not p.name.endswith(".events.jsonl")]
    paths += sorted(REAL.glob("*/*.sse"))
    assert len(paths) > 100
    for path in paths:
        index = TraceIndex(load_trace(path))
        for i in range(index.n_events):
            row = event_row(index, i, [], False).plain
            assert not python_notation(row), (path, row)
            shown = event_detail(index, i, []).plain.split("\n\n", 1)[0]
            assert not python_notation(shown), (path, shown)


def test_event_detail_text_is_never_markup() -> None:
    index = TraceIndex(load_trace(CAPTURES / "anthropic" / "text-simple.jsonl"))
    text = event_detail(index, 0, [(1, "output", "[bold red]x[/bold red]")])
    assert isinstance(text, Text)
    assert "[bold red]x[/bold red]" in text.plain
    assert all(not isinstance(span.style, Style) or not span.style.link for span in text.spans)


def test_a_block_of_only_whitespace_is_shown_quoted_not_blank() -> None:
    block = BlockInfo(
        index=0, id="b_0", kind="text", provider_type="text", name=None, call_id=None,
        start_event=1,
    )  # fmt: skip
    block.text.add(2, "\n  ")
    assert block_text(block, 3, False).plain == 'b_0 text · open\n"\\n  " (whitespace)'
    block.text.add(3, "x")
    assert block_text(block, 4, False).plain == "b_0 text · open\n\n  x"


async def test_under_100_columns_the_event_in_full_waits_for_m() -> None:
    # Two panes share 24 rows: the list keeps them; m (maximize) shows the event in full.
    app = app_for(OVERLOADED)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("end", "tab", "tab")  # Frames, Blocks, Events
        screen = app.screen
        assert screen.query_one(EventsList).has_focus
        scroll = screen.query_one("#event-detail-scroll")
        assert not scroll.display
        await pilot.press("m")
        assert scroll.display and detail(screen).startswith("#7 stream.error")  # type: ignore[arg-type]
