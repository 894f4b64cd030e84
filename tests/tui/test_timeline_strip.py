"""The timeline strip: inter-frame gaps as bars, stalls and heartbeats marked, labels, clicks.

``anthropic-text-then-tool.jsonl``: frame 2 carries the first text, frame 5 is a
ping, frame 6 comes after a 630 ms gap (the longest), frame 7 is ignored.
"""

from __future__ import annotations

from array import array

import pytest
from textual import events

from inspector.tui.widgets import gaps
from inspector.tui.widgets.gaps import GapStrip, bucket_gaps

from ..conftest import ROOT
from .helpers import TEXT_THEN_TOOL, app_for

UNTIMED = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "thinking-long.sse"


def test_each_column_is_the_longest_gap_of_its_frames_and_says_what_kind_it_is() -> None:
    frame_gaps = array("d", [0.0, 0.01, 1.5, 0.3, 0.01, 0.01])
    heartbeat = bytearray([0, 0, 0, 0, 1, 1])
    one_per_frame = bucket_gaps(frame_gaps, heartbeat, 10)
    assert one_per_frame.starts == [0, 1, 2, 3, 4, 5]
    assert one_per_frame.kinds == ["normal", "normal", "stall", "long", "heartbeat", "heartbeat"]
    three = bucket_gaps(frame_gaps, heartbeat, 3)
    assert three.starts == [0, 2, 4] and three.peaks == [0.01, 1.5, 0.01]
    assert three.kinds == ["normal", "stall", "heartbeat"]
    assert [three.column_of(p) for p in (-1, 0, 1, 2, 5, 6)] == [None, 0, 0, 1, 2, None]
    assert three.frames_of(1) == range(2, 4)


def test_a_column_with_any_content_is_not_heartbeat_only() -> None:
    cut = bucket_gaps(array("d", [0.0, 0.01, 0.01]), bytearray([1, 0, 1]), 1)
    assert cut.kinds == ["normal"]


async def test_the_strip_marks_the_ping_and_the_long_gap_and_labels_them() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        strip = app.screen.query_one(GapStrip)
        cut = strip.buckets()
        assert len(cut.starts) == 14, "fewer frames than columns: one column per frame"
        assert cut.kinds[5] == "heartbeat" and cut.kinds[6] == "long"
        assert cut.kinds[7] == "normal", "an ignored frame is no heartbeat"
        labels = strip.labels(cut, strip.size.width).plain
        scale = strip.scale(cut, strip.size.width)
        assert scale == 8, "a short capture's frames are widened to fill the strip"
        assert labels.index("▲ TTFT") == 2 * scale, "under the first text's column"
        assert "▲ longest gap 630 ms · f6" in labels


async def test_a_click_on_a_column_moves_the_cursor_there() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        strip = screen.query_one(GapStrip)
        scale = strip.scale(strip.buckets(), strip.size.width)
        # The strip is padded by one cell; each frame is ``scale`` cells wide.
        await pilot.click("#gaps", offset=(1 + 6 * scale + scale // 2, 0))
        assert screen.cursor.position == 6
        assert strip.cursor_column == 6
        await pilot.press("n")
        assert strip.cursor_column == 7, "the strip follows the cursor"


async def test_many_frames_share_a_column_and_a_click_picks_its_longest_gap() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(12, 30)) as pilot:  # 10 columns for 14 frames
        screen = app.screen
        cut = screen.query_one(GapStrip).buckets()
        column = cut.column_of(6)
        assert column is not None and len(cut.starts) == 10 and 6 in cut.frames_of(column)
        await pilot.click("#gaps", offset=(1 + column, 0))
        assert screen.cursor.position == 6


async def test_columns_are_cut_once_per_width_not_on_every_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = gaps.bucket_gaps

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(gaps, "bucket_gaps", counting)
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        before = len(calls)
        await pilot.press(*["n"] * 10, "home", "end")
        assert len(calls) == before
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert len(calls) == before + 1


async def test_an_untimed_capture_says_there_is_no_timing() -> None:
    app = app_for(UNTIMED)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        strip = app.screen.query_one(GapStrip)
        assert "no timing recorded" in strip.labels(strip.buckets(), 198).plain


async def test_dragging_along_the_strip_scrubs_and_hovering_does_not() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        strip = screen.query_one(GapStrip)

        def move(x: int, button: int) -> events.MouseMove:
            # x counts from the widget's edge: the strip's padding is one cell.
            region = strip.region
            return events.MouseMove(
                strip, 1 + x, 0, 0, 0, button, False, False, False,
                screen_x=region.x + 1 + x, screen_y=region.y,
            )  # fmt: skip

        strip.post_message(move(9, 0))  # no button: only hovering
        await pilot.pause()
        assert screen.cursor.position == 0
        scale = strip.scale(strip.buckets(), strip.size.width)
        for x in (3, 9, 12):
            strip.post_message(move(x * scale, 1))
            await pilot.pause()
            assert screen.cursor.position == x


async def test_an_http_error_without_a_stream_says_so_instead_of_waiting() -> None:
    app = app_for(ROOT / "captures" / "openai-chat" / "http-429-rate-limited.jsonl")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        strip = app.screen.query_one(GapStrip)
        labels = strip.labels(strip.buckets(), strip.size.width).plain
        assert labels == "no frames: the response had no stream"
