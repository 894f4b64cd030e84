"""What a live repaint may skip: a screen-wide layout when nothing changed size, O(frames) work.

A live stream repaints ~30 times a second, and on each the status line, the
selected event, its source line and both lists change. Textual lays out the
whole screen (and repaints every pane) whenever a widget asks for it, so the
widgets ask only when their size really changes.
"""

from __future__ import annotations

import random
from array import array

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget

from inspector.tui.widgets.gaps import BLOCK, block_peaks, bucket_gaps
from inspector.tui.widgets.lines import LineList
from inspector.tui.widgets.textview import TextView


class _Rows(LineList):
    def row_text(self, row: int) -> Text:
        return Text(f"row {row}")


class _Views(App[None]):
    def compose(self) -> ComposeResult:
        yield TextView(id="view")
        yield _Rows(id="rows")


def _count_layouts(widget: Widget) -> list[int]:
    """Record every refresh of ``widget`` that asks for a layout."""
    asked: list[int] = []
    real = widget.refresh

    def refresh(*regions: object, **kwargs: bool) -> Widget:
        if kwargs.get("layout"):
            asked.append(1)
        return real(*regions, **kwargs)  # type: ignore[arg-type]

    widget.refresh = refresh  # type: ignore[method-assign]
    return asked


async def test_a_text_that_keeps_its_height_is_shown_without_a_layout() -> None:
    app = _Views()
    async with app.run_test(size=(40, 20)) as pilot:
        view = app.query_one(TextView)
        view.show(Text("one\ntwo"))
        await pilot.pause()
        assert view.region.height == 2
        layouts = _count_layouts(view)
        assert view.show(Text("three\nfour"))
        await pilot.pause()
        assert layouts == [] and view.region.height == 2
        assert view.render().plain == "three\nfour"  # type: ignore[union-attr]


async def test_a_text_that_changes_height_still_resizes_its_widget() -> None:
    app = _Views()
    async with app.run_test(size=(40, 20)) as pilot:
        view = app.query_one(TextView)
        view.show(Text("one"))
        await pilot.pause()
        view.show(Text("a\nb\nc"))
        await pilot.pause()
        assert view.region.height == 3
        # Two changes before the layout ran: the height of the last one wins.
        view.show(Text("x"))
        view.show(Text("y" * 100))  # wraps to 3 lines at 40 columns
        await pilot.pause()
        assert view.region.height == 3
        view.show(Text("z"))
        await pilot.pause()
        assert view.region.height == 1


async def test_a_growing_list_with_a_scrollbar_grows_without_a_layout_and_scrolls_to_the_end() -> (
    None
):
    app = _Views()
    async with app.run_test(size=(40, 20)) as pilot:
        rows = app.query_one(_Rows)
        rows.show(5, 4)  # fits: no scrollbar yet
        await pilot.pause()
        rows.show(100, 99)  # overflows: the scrollbar appears (a layout, once)
        await pilot.pause()
        assert rows.show_vertical_scrollbar
        rows.show(100, 99)  # the scrollbar took a column: the next growth re-fits the width once
        rows.show(101, 100)
        await pilot.pause()
        layouts = _count_layouts(rows)
        for n in range(102, 400, 37):
            rows.show(n, n - 1)
            await pilot.pause()
            assert rows.virtual_size.height == n
            assert rows.scroll_offset.y == rows.max_scroll_y > 0
            assert rows.vertical_scrollbar.window_virtual_size == n
        assert layouts == []


def test_block_peaks_give_every_column_the_same_longest_gap_as_reading_every_frame() -> None:
    rng = random.Random(7)
    for n in (1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 1000, 20_000):
        gaps = array("d", [0.0] + [rng.random() ** 8 * 2 for _ in range(n - 1)])
        heartbeat = bytearray(rng.getrandbits(1) for _ in range(n))
        peaks = array("d")
        block_peaks(gaps[: n // 2], peaks)  # grown in two steps, as live frames come
        block_peaks(gaps, peaks)
        assert len(peaks) == n // BLOCK
        for width in (1, 3, 7, 80, 200, 500):
            assert bucket_gaps(gaps, heartbeat, width, peaks) == bucket_gaps(gaps, heartbeat, width)
