"""``]`` / ``[`` stop at every event, and every pane shows the state after exactly it.

One frame may produce many events — a Gemini frame can carry a whole
response: ``captures/gemini/parallel-tool-calls.jsonl`` is one frame that
produces eight (start, two tool calls opened, filled and closed, done).
Stepping by event walks through them one at a time; the Blocks and State
panes and the status line show the stream as of the selected event, and the
frame's later events stay listed, dimmed, as what is still to come.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.core.choices import key_of
from inspector.session import load_trace
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import EventsList
from inspector.tui.widgets.state import state_summary
from inspector.viewmodel.cursor import Cursor
from inspector.viewmodel.index import TraceIndex

from ..conftest import CAPTURES
from .helpers import app_for, panes

SIZE = (200, 50)
ONE_FRAME = CAPTURES / "gemini" / "parallel-tool-calls.jsonl"


def step_view(screen: MainScreen) -> tuple[str, str, list[str], str]:
    """(status position, stream state, block headers, selected event row) on screen."""
    view = panes(screen)
    where = next(part for part in view.status.split("  ") if "· event" in part)
    assert view.event_cursor is not None
    return (
        where.strip(),
        view.state.splitlines()[0],
        [block.splitlines()[0].rstrip() for block in view.blocks],
        " ".join(view.events[view.event_cursor].split()[:3]),
    )


async def test_bracket_stops_at_each_event_of_one_frame_with_the_state_after_it() -> None:
    app = app_for(ONE_FRAME)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("home")
        seen = []
        for _ in range(8):
            await pilot.press("right_square_bracket")
            seen.append(step_view(screen))
        closed, partial = "tool_call · closed   valid JSON", "tool_call · open   partial"
        at = "frame 0 of 0 · event {} of 8".format
        assert seen == [
            (at(1), "stream     open", [], "1 stream.start gemini"),
            (at(2), "stream     receiving", [f"b_0 {partial}"],
             "2 block.start 0"),
            (at(3), "stream     receiving", [f"b_0 {partial}"],
             "3 block.delta 0"),
            (at(4), "stream     receiving", [f"b_0 {closed}"],
             "4 block.stop 0"),
            (at(5), "stream     receiving", [f"b_0 {closed}", f"b_1 {partial}"],
             "5 block.start 1"),
            (at(6), "stream     receiving", [f"b_0 {closed}", f"b_1 {partial}"],
             "6 block.delta 1"),
            (at(7), "stream     receiving", [f"b_0 {closed}", f"b_1 {closed}"],
             "7 block.stop 1"),
            (at(8), "stream     completed", [f"b_0 {closed}", f"b_1 {closed}"],
             "8 stream.done tool_calls"),
        ]  # fmt: skip
        # The arguments of the second call exist from its delta on, not before.
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        assert step_view(screen)[2] == [f"b_0 {closed}", f"b_1 {partial}"]
        assert panes(screen).blocks[1].splitlines()[2] == "(nothing yet)"
        await pilot.press("right_square_bracket")
        assert panes(screen).blocks[1].splitlines()[2] == '{"country":"Italy"}'


async def test_the_frames_later_events_are_listed_dimmed_until_reached() -> None:
    app = app_for(ONE_FRAME)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "right_square_bracket", "right_square_bracket")
        events = app.screen.query_one(EventsList)
        assert events.rows == 8 and events.cursor_row == 1

        def dimmed(row: int) -> bool:
            text = events.row_text(row)
            whole = (0, len(text))
            return any((s.start, s.end) == whole and str(s.style) == "dim" for s in text.spans)

        assert [dimmed(row) for row in range(8)] == [False, False] + [True] * 6
        await pilot.press("end")
        assert not any(dimmed(row) for row in range(events.rows))


async def test_n_after_stepping_by_event_goes_on_to_the_next_frame() -> None:
    app = app_for(CAPTURES / "gemini" / "text-several-objects.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("home", "right_square_bracket", "right_square_bracket")
        assert (screen.cursor.position, screen.cursor.event) == (0, 1)
        await pilot.press("n")
        assert (screen.cursor.position, screen.cursor.event) == (1, screen.cursor.frame_k - 1)


def naive_state(events: list[dict[str, object]]) -> tuple[dict[int, str], dict[int, str]]:
    """Block states and texts after ``events``, replayed from scratch."""
    states: dict[int, str] = {}
    texts: dict[int, str] = {}
    for event in events:
        block = event.get("block")
        if not isinstance(block, dict):
            if event["type"] == "stream.error":
                states.update({i: "closed" for i, s in states.items() if s == "open"})
            continue
        index = key_of(block)  # several choices: (choice, index) as one int
        if event["type"] == "block.start":
            states[index], texts[index] = "open", ""
        elif event["type"] == "block.stop":
            states[index] = "closed"
        elif event["type"] == "block.delta":
            delta = event["delta"]
            assert isinstance(delta, dict)
            if delta["kind"] in ("text", "json_text"):
                texts[index] += str(delta["text"])
    return states, texts


GEMINI = sorted(p for p in CAPTURES.glob("gemini/*.jsonl") if not p.name.endswith(".events.jsonl"))
# Several candidates (v1.1) included: the TUI keys a block by its choice and index.
MANY_EVENT_FRAMES = [*GEMINI, CAPTURES / "anthropic" / "parallel-tool-calls.jsonl"]


@pytest.mark.parametrize("path", MANY_EVENT_FRAMES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_at_every_selected_event_blocks_and_state_match_a_replay_up_to_it(path: Path) -> None:
    trace = load_trace(path)
    index = TraceIndex(trace)
    cursor = Cursor(index, -1)
    events = list(trace.events)
    for e in range(len(events)):
        cursor.select_event(e)
        assert cursor.k == e + 1 <= cursor.frame_k
        states, texts = naive_state(events[: e + 1])
        shown = {i: b.state_at(cursor.k) for i, b in index.blocks.items() if b.start_event <= e}
        assert shown == states, (path.name, e)
        assert {i: index.blocks[i].text.text_at(cursor.k)[0] for i in texts} == texts
        summary = state_summary(index, cursor).plain.splitlines()[0].split()
        assert summary[1] == index.stream_state_at(e + 1)


@pytest.mark.parametrize("path", [ONE_FRAME, CAPTURES / "anthropic" / "several-blocks.jsonl"])
async def test_down_in_the_events_pane_walks_every_event_as_up_walks_back(path: Path) -> None:
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("home")
        screen.query_one(EventsList).focus()
        n = screen.index.n_events
        seen = []
        for _ in range(n + 2):  # two more than there are: the last one stays
            await pilot.press("down")
            seen.append(screen.cursor.event)
        assert seen == [*range(n), n - 1, n - 1]
        back = []
        for _ in range(n - 1):
            await pilot.press("up")
            back.append(screen.cursor.event)
        assert back == list(range(n - 2, -1, -1))


async def test_stepping_back_never_leaves_events_hidden_above_blank_rows() -> None:
    app = app_for(CAPTURES / "anthropic" / "several-blocks.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        events = screen.query_one(EventsList)
        await pilot.press("end")
        for _ in range(screen.index.n_frames):
            await pilot.press("p")
            await pilot.pause()
            window = events.scrollable_content_region.height
            if window > 0:
                assert events.scroll_offset.y <= max(0, events.rows - window), (
                    f"rows {events.rows}, window {window}, top {events.scroll_offset.y}"
                )


ALL_CAPTURES = sorted(p for p in CAPTURES.glob("*/*.jsonl") if not p.name.endswith(".events.jsonl"))


@pytest.mark.parametrize("path", ALL_CAPTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_state_pane_calls_a_block_the_streams_end_closed_aborted_never_closed(
    path: Path,
) -> None:
    trace = load_trace(path)
    index = TraceIndex(trace)
    cursor = Cursor(index, -1)
    cursor.end()
    blocks_line = state_summary(index, cursor).plain.splitlines()[1]
    stopped = {key_of(e["block"]) for e in trace.events if e["type"] == "block.stop"}
    for i, block in index.blocks.items():
        if len(index.blocks) > 8:
            break  # summarized as counts: checked below
        word = "closed" if i in stopped else "aborted" if block.close_event is not None else "open"
        assert f"{block.id} {word}" in blocks_line, (path.name, blocks_line)
    aborted = sum(
        1 for i, b in index.blocks.items() if b.close_event is not None and i not in stopped
    )
    assert ("aborted" in blocks_line) == bool(aborted), blocks_line
