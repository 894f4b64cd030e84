"""The status line: one line, check's violation words, live progress, the untimed play rate."""

from __future__ import annotations

import re

from rich.text import Text

from inspector.capture import load_recording
from inspector.cli.check import summary
from inspector.core.invariants import check_invariants
from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets.status import Segment, fit
from inspector.viewmodel.cursor import Cursor
from inspector.viewmodel.index import TraceIndex
from inspector.viewmodel.playback import UNTIMED_RATE, FixedRatePlayer

from ..conftest import ROOT
from .helpers import TEXT_THEN_TOOL, VIOLATION, app_for, panes
from .test_live import StepFeed, settle

LIBRARY_CAPTURE = ROOT / "captures" / "anthropic" / "tool-call-fragmented-json.jsonl"
#: A raw SSE body (no timing) of 118 frames.
UNTIMED = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "thinking-long.sse"


def test_fit_drops_the_least_important_segments_first_and_keeps_the_order() -> None:
    segments = [
        Segment(100, Text("state")),
        Segment(20, Text("source-file-name")),
        Segment(60, Text("timings")),
        Segment(30, Text("· model")),
    ]
    assert fit(segments, None).plain == " state  source-file-name  timings · model"
    assert fit(segments, 30).plain == " state  timings · model"
    assert fit(segments, 12).plain == " state"
    assert fit(segments, 3).plain == " state", "priority 100 is never dropped"


async def test_at_200_columns_everything_shows_once_on_one_line() -> None:
    app = InspectorApp(load_trace(LIBRARY_CAPTURE))
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("n")
        status = panes(app.screen).status
        assert "\n" not in status and len(status) <= 200
        assert status.count("anthropic") == 1, "the provider's folder is not repeated"
        assert "anthropic · claude-sonnet-4-20250514 · tool-call-fragmented-json.jsonl" in status
        assert status.startswith(
            " ● receiving  frame 1 of 0–14 · event 2 of 13  violations 0 · rejected 0"
        )


async def test_the_violation_counts_read_like_inspector_check() -> None:
    trace = load_trace(VIOLATION)
    line = summary(trace, len(check_invariants(trace.events)))
    expected = dict(re.findall(r"(violations|rejected)=(\d+)", line))
    app = app_for(VIOLATION)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()  # the output checker
        await pilot.pause()
        status = panes(app.screen).status
        shown = dict(re.findall(r"(violations|rejected) (\d+)", status))
        assert shown == expected == {"violations": "0", "rejected": "1"}
        assert "rejected 1 (rule 5)" in status, "the rule is named"


async def test_live_says_connecting_then_waiting_then_following_then_ended() -> None:
    feed = StepFeed(load_recording(TEXT_THEN_TOOL))
    response = feed.exchange.pop("response")
    app = InspectorApp(feed)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert "ended" not in panes(screen).status, "the first paint, before the feed starts"
        await pilot.pause()
        assert "◌ connecting…" in panes(screen).status
        feed.exchange["response"] = response  # headers, no body yet: no notify either
        for _ in range(200):  # the screen looks again on its own (bounded wait)
            if "◌ waiting for the first byte…" in panes(screen).status:
                break
            await pilot.pause(0.01)
        assert "◌ waiting for the first byte…" in panes(screen).status
        feed.release.release()
        await settle(pilot, screen, 1)
        assert "◉ live · following" in panes(screen).status
        await pilot.press("home")
        assert "◉ live · not following" in panes(screen).status
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = panes(screen).status
        assert "◉ live · ended" in status and "following" not in status


def test_an_untimed_capture_plays_at_a_fixed_rate() -> None:
    index = TraceIndex(load_trace(UNTIMED))
    assert not index.timed and index.n_frames > 20
    cursor = Cursor(index, -1)
    player = FixedRatePlayer(cursor, UNTIMED_RATE)
    player.start(100.0)
    assert not player.tick(100.04)  # the first frame comes at 1/20 s
    assert player.tick(100.26) and cursor.position == 4  # frames 0-4: 5 × 1/20 s
    player.change_speed(1, 100.26)  # 2×: 40 frames a second from here
    player.tick(100.51)
    assert cursor.position == 14


async def test_the_status_line_shows_the_untimed_rate_and_plus_changes_it() -> None:
    app = app_for(UNTIMED)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.untimed_rate == UNTIMED_RATE
        status = panes(screen).status
        assert "untimed" in status and "⏸ 20 frames/s" in status and "TTFT" not in status
        assert isinstance(screen.player, FixedRatePlayer)
        await pilot.press("home", "space")
        # (How far it got depends on the machine's speed: only the words are checked.)
        assert re.search(r"[▶⏸] 20 frames/s", panes(screen).status)
        await pilot.press("plus")
        assert re.search(r"[▶⏸] 40 frames/s", panes(screen).status)
        await pilot.press("minus", "minus")
        assert re.search(r"[▶⏸] 10 frames/s", panes(screen).status)
