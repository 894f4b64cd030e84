"""SVG snapshots of the main screens (pytest-textual-snapshot).

Fixed sizes, no blinking cursor, bundled test captures, and every worker
finished before the picture is taken, so each run draws the same SVG.
Update after an intended change with ``pytest tests/tui --snapshot-update``
and look at the new SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from inspector.tui import InspectorApp

from .helpers import DATA, TEXT_THEN_TOOL, UNTRUSTED, VIOLATION, app_for

SnapCompare = Callable[..., bool]


async def settled(pilot: Pilot[Any]) -> None:
    """Let background work (the output checker, the picker's scan) finish."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def test_main_screen_with_a_tool_call_mid_stream(snap_compare: SnapCompare) -> None:
    app = app_for(TEXT_THEN_TOOL, position=9)
    assert snap_compare(app, terminal_size=(160, 40), run_before=settled)


def test_main_screen_of_a_failed_stream_with_a_violation(snap_compare: SnapCompare) -> None:
    app = app_for(VIOLATION)
    assert snap_compare(app, press=["e"], terminal_size=(160, 40), run_before=settled)


def test_main_screen_in_a_medium_terminal_is_a_grid(snap_compare: SnapCompare) -> None:
    app = app_for(TEXT_THEN_TOOL, position=10)
    assert snap_compare(app, terminal_size=(120, 30), run_before=settled)


def test_main_screen_at_80x24_shows_frames_and_one_pane(snap_compare: SnapCompare) -> None:
    app = app_for(TEXT_THEN_TOOL, position=10)
    assert snap_compare(app, press=["tab"], terminal_size=(80, 24), run_before=settled)


def test_search_counter_and_highlighted_matches(snap_compare: SnapCompare) -> None:
    app = app_for(TEXT_THEN_TOOL)
    keys = ["slash", *"block_delta", "enter", "enter"]
    assert snap_compare(app, press=keys, terminal_size=(200, 50), run_before=settled)


def test_untrusted_text_shown_literally(snap_compare: SnapCompare) -> None:
    app = app_for(UNTRUSTED)
    assert snap_compare(app, press=["end"], terminal_size=(160, 30), run_before=settled)


def test_help_screen(snap_compare: SnapCompare) -> None:
    app = app_for(TEXT_THEN_TOOL)
    assert snap_compare(app, press=["question_mark"], terminal_size=(120, 40), run_before=settled)


def test_picker(snap_compare: SnapCompare) -> None:
    app = InspectorApp(None, captures=DATA)
    assert snap_compare(app, terminal_size=(120, 20), run_before=settled)


def test_picker_at_80_columns_filtered(snap_compare: SnapCompare) -> None:
    app = InspectorApp(None, captures=DATA)
    assert snap_compare(app, press=[*"anth"], terminal_size=(80, 24), run_before=settled)
