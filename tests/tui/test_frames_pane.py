"""Frames that carry a problem are marked in the list and named in the detail.

``✗`` (red) marks a frame that produced a ``stream.error``, ``!`` (red) one a
violation is attached to, ``⚑`` (magenta) a refusal. The frame detail names
the problem: the error's status, category, provider code and message, the
rule broken, or where the frame's JSON stopped parsing.
"""

from __future__ import annotations

import pytest
from rich.text import Text

from inspector.session import load_trace
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import FramesList
from inspector.tui.widgets.frames import frame_problems
from inspector.viewmodel.index import TraceIndex
from inspector.viewmodel.rows import frame_row

from ..conftest import CAPTURES
from .helpers import VIOLATION, app_for, panes

SIZE = (200, 50)


def mark(text: Text) -> tuple[str, str]:
    """The marker column of a frame row: its character and colour."""
    style = next(
        (str(span.style) for span in text.spans if span.start <= 1 < span.end and span.style),
        "",
    )
    return text.plain[1], style


@pytest.mark.parametrize(
    ("path", "frame", "symbol", "colour"),
    [
        ("anthropic/overloaded-after-text.jsonl", 6, "✗", "bold red"),
        ("openai-chat/malformed-json-frame.jsonl", 4, "✗", "bold red"),
        ("openai-responses/error-after-partial-text.jsonl", 8, "✗", "bold red"),
        ("gemini/prompt-blocked.jsonl", 0, "✗", "bold red"),
        ("openai-chat/refusal.jsonl", 1, "⚑", "bold magenta"),
        ("anthropic/refusal.jsonl", None, "⚑", "bold magenta"),
    ],
)
def test_problem_frames_are_marked_with_a_symbol_and_a_colour(
    path: str, frame: int | None, symbol: str, colour: str
) -> None:
    index = TraceIndex(load_trace(CAPTURES / path))
    marked = [i for i in range(index.n_frames) if index.frame_marks.get(i)]
    assert marked, path
    if frame is not None:
        assert frame in marked
    target = frame if frame is not None else marked[0]
    assert mark(frame_row(index, target, False)) == (symbol, colour)
    # A frame with nothing wrong keeps the plain marker column.
    for clean in (i for i in range(index.n_frames) if i not in index.frame_marks):
        assert frame_row(index, clean, False).plain[1] in " ·⊘"


def test_a_violation_marks_its_frame_with_a_bang() -> None:
    index = TraceIndex(load_trace(VIOLATION))
    frames = {v.frame for v in index.problems.violations if v.frame >= 0}
    assert frames
    for frame in frames:
        assert mark(frame_row(index, frame, False))[0] in ("!", "✗")
        assert "rule " in frame_problems(index, frame).plain


def test_the_detail_names_an_error_with_its_type_and_message() -> None:
    index = TraceIndex(load_trace(CAPTURES / "anthropic" / "overloaded-after-text.jsonl"))
    assert frame_problems(index, 6).plain.startswith(
        "✗ #7 stream.error failed · upstream_overloaded · overloaded_error · Overloaded"
    )
    assert frame_problems(index, 5).plain == ""


async def test_the_detail_of_a_frame_that_is_not_json_says_where_parsing_stopped() -> None:
    app = app_for(CAPTURES / "openai-chat" / "malformed-json-frame.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        for _ in range(4):
            await pilot.press("n")
        detail = panes(screen).frame_detail
        assert "✗ #6 stream.error failed · protocol_error" in detail
        assert "✗ invalid JSON: unexpected end of data: line 1 column 159 (char 158)" in detail
        rows = screen.query_one(FramesList)
        assert rows.row_text(4).plain[1] == "✗"
        assert "invalid JSON unexpected end of data" in rows.row_text(4).plain


def test_an_error_frame_after_the_end_is_marked_though_it_produced_nothing() -> None:
    # OpenAI Responses sends ``error`` and then ``response.failed``: the first
    # ends the stream, the second is ignored — and still carries an error.
    index = TraceIndex(load_trace(CAPTURES / "openai-responses" / "error-then-failed.jsonl"))
    assert 3 in index.problems.ignored and 3 not in index.frame_marks
    row = frame_row(index, 3, False)
    assert mark(row) == ("✗", "bold red")
    assert "resp.failed" in row.plain and "insufficient_quota: You exceeded" in row.plain
    assert frame_problems(index, 3).plain.startswith(
        "✗ carries an error, after the stream had ended: failed · insufficient_quota: You exceeded"
    )
