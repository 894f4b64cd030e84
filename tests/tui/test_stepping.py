"""Driving the real app with a pilot: what each pane shows as the cursor moves.

The capture is the real Anthropic stream whose tool arguments arrive in
fragments (``tests/fixtures/real/anthropic/tool-use-json-fragments.sse``):

    0 message_start · 1 content_block_start (tool_use "json") · 2 empty fragment
    3 ping · 4 fragment ``{"elements": [...]`` · 5 fragment ``}`` · 6 content_block_stop
    7 message_delta (tool_use) · 8 message_stop · then the end of the bytes
"""

from __future__ import annotations

from pathlib import Path

import orjson
from textual.widgets import Static

from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import EventsList, FramesList

from .helpers import ANTHROPIC_TOOL, TEXT_THEN_TOOL, VIOLATION, app_for, panes

SIZE = (200, 50)
ARGS = '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]'


async def test_the_capture_opens_on_the_first_frame_with_four_titled_panes() -> None:
    app = app_for(ANTHROPIC_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        titles = [screen.query_one(f"#{name}").border_title for name in ("frames", "events")]
        titles += [screen.query_one(f"#{name}").border_title for name in ("blocks", "state")]
        assert titles == ["Frames", "Events", "Blocks", "State"]
        view = panes(screen)
        assert "anthropic" in view.status and "claude-haiku-4-5-20251001" in view.status
        assert "tool-use-json-fragments.sse" in view.status
        assert "● open" in view.status and "frame 0 of 0–8 · event 1 of 7" in view.status
        assert len(view.frames) == 10 and view.frames[-1].startswith("  ■ end of bytes · eof")
        assert view.frame_cursor == 0
        # A raw .sse body has no timing: "—", never a fake 0 ms.
        assert view.frames[0].split()[:5] == ["0", "—", "—", "msg.start", "439"]
        assert view.frame_detail.startswith("frame 0 · message_start")
        assert '"type": "message_start"' in view.frame_detail
        assert view.events == ["   1 stream.start anthropic · claude-haiku-4-5-20251001"]
        assert view.blocks == []
        assert view.state.splitlines() == [
            "stream     open",
            "blocks     none yet",
            "violations none",
        ]
        assert view.transitions == ["▸ f0 stream idle → open"]


async def test_stepping_forward_fills_the_tool_arguments_fragment_by_fragment() -> None:
    app = app_for(ANTHROPIC_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        view = panes(app.screen)
        assert view.blocks == [
            "b_0 tool_call · open   partial \njson · toolu_01KFbKqPYSuAKujiL6mTfzYA\n(nothing yet)"
        ]
        assert view.state.splitlines()[:2] == ["stream     receiving", "blocks     b_0 open"]
        await pilot.press("n", "n", "n")
        view = panes(app.screen)
        assert view.blocks[0].splitlines()[2] == ARGS
        assert "partial" in view.blocks[0].splitlines()[0]
        # Delta text is JSON-quoted: quotes inside it are escaped, never ambiguous.
        assert view.events[-1].endswith("json " + orjson.dumps(ARGS).decode())
        assert view.frame_detail.startswith("frame 4 · content_block_delta")
        await pilot.press("right")
        view = panes(app.screen)
        assert view.blocks[0].splitlines()[2] == ARGS + "}"
        assert "partial" in view.blocks[0].splitlines()[0]
        await pilot.press("n")
        view = panes(app.screen)
        assert view.blocks[0].splitlines()[0] == "b_0 tool_call · closed   valid JSON "
        assert view.transitions[-1] == "▸ f6 b_0    open → closed"


async def test_stepping_back_takes_the_fragments_back() -> None:
    app = app_for(ANTHROPIC_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "n", "n", "n", "n")
        assert "valid JSON" in panes(app.screen).blocks[0]
        await pilot.press("p")
        view = panes(app.screen)
        assert view.blocks[0].splitlines()[2] == ARGS + "}"
        assert "partial" in view.blocks[0]
        await pilot.press("p", "left")
        view = panes(app.screen)
        assert view.blocks[0].splitlines()[2] == "(nothing yet)"
        assert [row.split()[1] for row in view.events] == [
            "stream.start",
            "block.start",
            "heartbeat",
        ]
        await pilot.press("p", "p", "p")
        view = panes(app.screen)
        assert view.frame_cursor == 0
        assert view.blocks == [] and view.state.startswith("stream     open")


async def test_end_shows_the_terminal_state_and_home_goes_before_the_first_frame() -> None:
    app = app_for(ANTHROPIC_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        view = panes(app.screen)
        assert "● completed" in view.status and "end · after frame 8 · event 7 of 7" in view.status
        assert view.frame_cursor == 9
        assert view.frame_detail.startswith("end of bytes · eof")
        assert view.events[-1].split()[1:3] == ["stream.done", "tool_calls"]
        assert view.state.splitlines()[0] == "stream     completed"
        assert view.transitions[-1] == "  f8 stream receiving → completed"
        await pilot.press("home")
        view = panes(app.screen)
        assert "● idle" in view.status and "before frame 0 of 0–8 · event — of 7" in view.status
        assert view.frame_cursor is None and view.events == [] and view.transitions == []
        assert view.frame_detail.startswith("before the first frame")


async def test_event_keys_walk_the_events_of_one_frame_then_move_on() -> None:
    app = app_for(VIOLATION)  # frame 0 of this OpenAI stream produces two events
    async with app.run_test(size=SIZE) as pilot:
        view = panes(app.screen)
        assert (view.frame_cursor, view.event_cursor) == (0, 1)
        await pilot.press("left_square_bracket")
        view = panes(app.screen)
        assert (view.frame_cursor, view.event_cursor) == (0, 0)
        assert len(view.events) == 2, "both events of the frame exist; the first is selected"
        await pilot.press("right_square_bracket", "right_square_bracket")
        view = panes(app.screen)
        assert (view.frame_cursor, view.event_cursor) == (1, 2)


async def test_choosing_an_event_selects_its_frame_and_the_bytes_it_came_from() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        app.screen.query_one(EventsList).focus()
        await pilot.press("up")
        view = panes(app.screen)
        assert view.event_cursor == 7
        assert view.frame_cursor == 6, "the frame that produced event #8"
        assert view.event_source.startswith("#8 ← frame 6 · bytes 1949–2254 · chunks 4–5")
        assert view.frame_detail.startswith("frame 6 · message")
        assert "bytes 1949–2254 (305 B) · chunks 4–5" in view.frame_detail
        assert "→ events #8" in view.frame_detail
        assert len(view.events) == 8, "stepping back to frame 6 took the error away"


async def test_choosing_a_block_marks_the_events_that_built_it() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        app.screen.query_one("#blocks").focus()
        await pilot.press("up")  # from the newest block (b_1) to b_0
        view = panes(app.screen)
        assert "┃ built by 4 event(s) #2–#5" in view.blocks[0]
        marked = [row.split()[1] for row in view.events if row.startswith("┃")]
        assert marked == ["2", "3", "4", "5"]
        assert "┃ b_0 built by 4 event(s): #2–#5" in view.event_source
        await pilot.press("escape")
        view = panes(app.screen)
        assert not any(row.startswith("┃") for row in view.events)


async def test_a_click_on_a_frame_row_moves_the_cursor_there() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        frames = app.screen.query_one(FramesList)
        await pilot.click(frames, offset=(10, 6))
        assert panes(app.screen).frame_cursor == 6
        assert app.screen.query_one("#frame-heading", Static).content.plain.startswith(
            "frame 6 · content_block_start"
        )


async def test_an_http_error_before_any_stream_opens_on_the_end_row(tmp_path: Path) -> None:
    capture = tmp_path / "429.jsonl"
    header = {"type": "header", "format": "llm-stream-capture", "version": 1,
              "provider": "openai-chat", "response": {"status": 429, "headers": {}}}  # fmt: skip
    body = {"error": {"type": "rate_limit_exceeded", "message": "Slow down [now]"}}
    capture.write_bytes(
        orjson.dumps(header) + b"\n"
        + orjson.dumps({"type": "chunk", "t": 0.1, "text": orjson.dumps(body).decode()}) + b"\n"
        + orjson.dumps({"type": "end", "t": 0.2, "reason": "eof", "error": None}) + b"\n"
    )  # fmt: skip
    app = app_for(capture)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = panes(app.screen)
        assert "● failed" in view.status and "end · no frames · event 2 of 2" in view.status
        assert view.frames == [
            '  ■ HTTP 429 · body {"error":{"type":"rate_limit_exceeded","message":"Slow down '
            '[now]"}} · end of bytes · eof at 200 ms'
        ]
        assert [row.split()[1] for row in view.events] == ["stream.start", "stream.error"]
        assert "rate_limited" in view.events[1] and "Slow down [now]" in view.events[1]
        await pilot.press("home")
        assert panes(app.screen).events == []
        await pilot.press("n")
        assert len(panes(app.screen).events) == 2
