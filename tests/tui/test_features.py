"""Play, breakpoints, errors, search, help, details, palette, layouts, untrusted text.

``anthropic-text-then-tool.jsonl`` frames: 0 message_start · 1 block start (text) ·
2–3 text deltas · 4 block stop · 5 ping · 6 block start (tool, after a 630 ms gap) ·
7 unknown ``vendor_extension`` (ignored) · 8–10 argument fragments · 11 block stop ·
12 message_delta · 13 message_stop.
"""

from __future__ import annotations

from textual.command import CommandList
from textual.widgets import Input

from inspector.tui.commands import commands_for
from inspector.tui.screens.details import DetailsScreen
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import EventsList, FramesList, StatusLine

from .helpers import TEXT_THEN_TOOL, UNTRUSTED, VIOLATION, app_for, panes, plain
from .test_keys import help_listing

SIZE = (200, 50)


async def play_until_stopped(pilot: object, screen: MainScreen) -> None:
    """Wait (bounded) for playback to stop on its own."""
    for _ in range(400):
        if not screen.player.playing:
            return
        await pilot.pause(0.01)  # type: ignore[attr-defined]
    raise AssertionError("playback did not stop")


async def test_play_stops_at_a_breakpoint_on_the_frames_event_type() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("n", "b")  # frame 1 is a content_block_start
        view = panes(screen)
        assert view.frames[1].startswith("●") and view.frames[6].startswith("●")
        assert "● 1 breakpoint  " in view.status
        await pilot.press("home", *["plus"] * 9)  # 128x: the whole stream in ~10 ms
        assert screen.player.speed == 128.0
        await pilot.press("space")
        await play_until_stopped(pilot, screen)
        assert screen.cursor.position == 1
        assert "stopped at a breakpoint" in plain(screen.query_one(StatusLine))
        await pilot.press("space")
        await play_until_stopped(pilot, screen)
        assert screen.cursor.position == 6
        await pilot.press("space")
        await play_until_stopped(pilot, screen)
        assert screen.cursor.at_end and screen.player.stopped_by == "end"
        assert "● completed" in panes(screen).status


async def test_a_breakpoint_set_in_the_events_pane_is_on_the_event_type() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("end")
        screen.query_one(EventsList).focus()
        for _ in range(5):  # up to the stream.warning of the unknown event
            await pilot.press("up")
        assert panes(screen).events[screen.cursor.event or 0].split()[1] == "warning"
        await pilot.press("b")
        assert screen.cursor.breakpoints == {("event", "stream.warning")}
        await pilot.press("home", *["plus"] * 9, "space")
        await play_until_stopped(pilot, screen)
        assert screen.cursor.position == 7


async def test_e_jumps_to_the_violation_and_every_pane_shows_it() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        view = panes(app.screen)
        assert view.frame_cursor == 9 and "[DONE]" in view.frames[9]
        assert "● failed" in view.status and "rejected 1 (rule 5)" in view.status
        error = view.events[-1]
        assert "stream.error" in error and "✗ rule 5" in error and "protocol_error" in error
        state = view.state.splitlines()
        assert state[0] == "stream     failed"
        assert state[2] == "violations 0 · rejected 1", "the words of inspector check"
        assert state[3].startswith("✗ rule 5 · frame 9 · rejected: final signal 'length'")
        assert view.blocks[0].startswith("b_0 tool_call · closed (aborted: the stream ended)")
        assert "invalid JSON" in view.blocks[0]
        assert view.transitions[-2:] == [
            "▸  f9 stream receiving → failed",
            "▸  f9 b_0    open → closed",
        ]
        await pilot.press("p")
        assert "violations none" in panes(app.screen).state, "stepping back undoes it"


async def test_the_violation_link_in_the_state_pane_goes_to_its_frame() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "home")
        await app.screen.run_action("goto_position(9)")
        assert panes(app.screen).frame_cursor == 9


async def test_search_finds_frames_and_event_text_and_escape_closes_it() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        bar = app.screen.query_one("#search", Input)
        assert bar.has_focus and bar.has_class("-open")
        await pilot.press(*"schedule", "enter")
        assert panes(app.screen).frame_cursor == 3  # the text delta "schedule."
        await pilot.press("enter")
        assert panes(app.screen).frame_cursor == 6  # the tool get_schedule
        await pilot.press("escape")  # leaves the bar, the search stays active
        assert bar.has_class("-open") and app.screen.query_one(FramesList).has_focus
        await pilot.press("escape")  # ends it
        assert not bar.has_class("-open")
        assert app.screen.query_one(FramesList).has_focus


async def test_help_lists_every_key_and_a_keymap_rebinds_by_id() -> None:
    app = app_for(TEXT_THEN_TOOL, keymap={"step.next": "j", "step.previous": "k"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "j")
        assert panes(app.screen).frame_cursor == 2
        await pilot.press("k")
        assert panes(app.screen).frame_cursor == 1
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listing = help_listing(app)
        assert "j  Next frame" in listing and "k  Previous frame" in listing
        for description in (
            "Play / pause (recorded timing",
            "Search frames and the assembled text",
            "Next error or violation",
            "Toggle a breakpoint",
        ):
            assert description in listing
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_details_show_the_request_response_and_how_the_bytes_ended() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, DetailsScreen)
        text = plain(app.screen.query_one("#details-text"))
        assert "POST https://api.openai.com/v1/chat/completions" in text
        assert "authorization: [redacted]" in text
        assert "HTTP 200" in text and "content-type: text/event-stream" in text
        assert '"stream_options"' in text
        assert "eof at 428 ms" in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_the_palette_offers_only_what_makes_sense_now() -> None:
    app = app_for(VIOLATION)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        names = [c.name for c in commands_for(screen)]
        assert "Step: next frame" in names and "Jump to the next error or violation" in names
        assert "Play with the recorded timing" in names
        assert not any(name.startswith("Live:") for name in names), "no live feed here"
        await pilot.press("end")
        names = [c.name for c in commands_for(screen)]
        assert "Step: next frame" not in names and "Step: previous frame" in names
        assert "Jump to the next error or violation" not in names
        assert "Breakpoint: set on [DONE]" not in names, "the end row has no frame"
        await pilot.press("p")
        names = [c.name for c in commands_for(screen)]
        assert "Breakpoint: set on [DONE]" in names


async def test_the_command_palette_runs_the_same_actions() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p", *"step: next frame")
        hits = app.screen.query_one(CommandList)
        for _ in range(200):  # the palette searches in the background: wait for the hit
            if hits.option_count:
                break
            await pilot.pause(0.01)
        assert str(hits.get_option_at_index(0).prompt).startswith("Step: next frame")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert panes(app.screen).frame_cursor == 1


async def test_a_wide_terminal_shows_the_four_panes_side_by_side() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("-wide") and not screen.query_one("#pane-tabs").display
        regions = [
            screen.query_one(f"#{n}").region for n in ("frames", "events", "blocks", "state")
        ]
        assert len({r.y for r in regions}) == 1
        assert [r.x for r in regions] == sorted(r.x for r in regions)


async def test_untrusted_text_is_shown_literally_never_interpreted() -> None:
    app = app_for(UNTRUSTED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        view = panes(app.screen)
        block = view.blocks[0].splitlines()[2]
        assert block == "[bold red]alarm[/bold red] \\x1b[2J wiped\\r over"
        assert any("\\x1b[31mred comment" in row for row in view.frames)
        assert any('"[bold red]alarm[/bold red] "' in row for row in view.events)
        await pilot.press("home", "n", "n", "n")
        assert '"content": "\\u001b[2J wiped\\r over"' in panes(app.screen).frame_detail
        await pilot.press("n")
        assert panes(app.screen).frame_detail.endswith(": \\x1b[31mred comment")
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\r" not in svg
        assert "[bold&#160;red]alarm" in svg or "[bold red]alarm" in svg


async def test_stopped_at_a_breakpoint_is_said_only_until_the_cursor_moves() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("n", "b", "home", *["plus"] * 9, "space")
        await play_until_stopped(pilot, screen)
        assert "stopped at a breakpoint" in plain(screen.query_one(StatusLine))
        await pilot.press("n")
        assert "stopped at a breakpoint" not in plain(screen.query_one(StatusLine))
        await pilot.press("p")
        assert "stopped at a breakpoint" not in plain(screen.query_one(StatusLine))


async def test_shift_b_lists_the_breakpoints_and_clears_one_or_all() -> None:
    from textual.widgets import OptionList

    from inspector.tui.screens.breakpoints import BreakpointsScreen

    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("n", "b", "n", "n", "b")  # cb.start, then cb.delta
        assert len(screen.cursor.breakpoints) == 2
        assert "● 2 breakpoints" in panes(screen).status
        await pilot.press("B")
        listing = app.screen
        assert isinstance(listing, BreakpointsScreen)
        options = listing.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown == [
            'frames of type "content_block_delta"',
            'frames of type "content_block_start"',
        ]
        await pilot.press("d")
        assert screen.cursor.breakpoints == {("frame", "content_block_start")}
        await pilot.press("escape")
        assert app.screen is screen
        assert "● 1 breakpoint  " in panes(screen).status
        await pilot.press("B", "D")
        assert screen.cursor.breakpoints == set()
        options = app.screen.query_one(OptionList)
        assert "no breakpoint set" in str(options.get_option_at_index(0).prompt)
        await pilot.press("escape")
        assert "breakpoint" not in panes(screen).status
