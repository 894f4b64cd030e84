"""Several choices (``n > 1``; contract v1.1): blocks carry ``choice`` and an ``index``
within it, so two choices' block 0 are two blocks, each labelled with its choice.

The traces are built by hand: a scripted stream of two text blocks, whose
block objects are then given the v1.1 fields (``choice``, and the index
within the choice) as an adapter for ``n > 1`` emits them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from inspector.core.choices import CHOICE_SHIFT
from inspector.core.trace import Trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets.blocks import BlocksPane, BlockView
from inspector.viewmodel.index import TraceIndex, block_key

from .helpers import panes, plain
from .scripted import scripted_trace


def two_choices(choices: tuple[int, int] = (0, 1)) -> Trace:
    """Choice 0 answers "Paris", choice 1 "Lyon": each its own block 0."""
    trace = scripted_trace(
        [
            [["start"], ["open", 0, "text"], ["open", 1, "text"]],
            [["delta", 0, "text", "Paris"], ["delta", 1, "text", "Lyon"]],
            [["close", 0], ["close", 1], ["finish"]],
        ]
    )
    for event in trace.events:
        ref: dict[str, Any] | None = event.get("block")
        if ref is not None and "choice" not in ref:
            choice = choices[ref["index"]]
            ref.update(choice=choice, index=0, id=f"c{choice}.b_0")
    return trace


def test_blocks_of_two_choices_with_the_same_index_are_two_blocks() -> None:
    index = TraceIndex(two_choices())
    index.sync()
    assert index.several_choices
    by_id = {block.id: block for block in index.blocks.values()}
    assert sorted(by_id) == ["c0.b_0", "c1.b_0"]
    k = index.n_events
    assert by_id["c0.b_0"].text.text_at(k)[0] == "Paris"
    assert by_id["c1.b_0"].text.text_at(k)[0] == "Lyon"
    assert (by_id["c0.b_0"].choice, by_id["c1.b_0"].choice) == (0, 1)


async def test_the_blocks_pane_labels_each_block_with_its_choice() -> None:
    app = InspectorApp(two_choices())
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        shown = [
            plain(view).splitlines()
            for view in screen.query_one(BlocksPane).query(BlockView)
            if view.display
        ]
        assert [lines[0].split(" · ")[0] for lines in shown] == [
            "choice 0 c0.b_0 text",
            "choice 1 c1.b_0 text",
        ]
        assert [lines[-1] for lines in shown] == ["Paris", "Lyon"]
        events = panes(screen).events
        assert any("c1.0" in row and "Lyon" in row for row in events), events


async def test_a_stream_of_one_choice_shows_no_choice_label() -> None:
    app = InspectorApp(scripted_trace([[["start"], ["open", 0, "text"]], [["close", 0]]]))
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        views = app.screen.query_one(BlocksPane).query(BlockView)
        assert not any("choice" in plain(view) for view in views if view.display)


@given(st.integers(0, 1023), st.integers(0, (1 << CHOICE_SHIFT) - 1))
def test_a_block_key_is_one_int_per_choice_and_index(choice: int, index: int) -> None:
    key = block_key({"index": index, "choice": choice})
    assert key is not None
    assert (key >> CHOICE_SHIFT, key & ((1 << CHOICE_SHIFT) - 1)) == (choice, index)
    assert block_key({"index": index}) == block_key({"index": index, "choice": 0})


@given(
    st.one_of(
        st.booleans(),
        st.floats(),
        st.text(),
        st.integers(-5, -1),
        st.integers(1024, 1 << 40),
    )
)
def test_a_choice_that_is_no_number_in_range_names_no_block(choice: object) -> None:
    assert block_key({"index": 0, "choice": choice}) is None


@given(st.integers(1, 127), st.text(min_size=1, max_size=20))
def test_a_chat_chunk_of_another_choice_than_0_names_its_choice(choice: int, text: str) -> None:
    from inspector.viewmodel.previews import chat_preview

    def shown(index: int) -> str:
        chunk = {"choices": [{"index": index, "delta": {"content": text}}]}
        preview = chat_preview("message", chunk)
        assert preview is not None
        return preview.text.plain

    assert shown(choice).startswith(f"choice {choice}") and not shown(0).startswith("choice")
    assert shown(choice) != shown(0)


def test_a_gemini_chunk_of_two_candidates_shows_each_with_its_index() -> None:
    from inspector.viewmodel.previews import gemini_preview

    chunk = {
        "candidates": [
            {"index": 0, "content": {"parts": [{"text": "Paris"}]}},
            {"index": 1, "content": {"parts": [{"text": "Lyon"}]}, "finishReason": "STOP"},
        ]
    }
    preview = gemini_preview("chunk", chunk)
    assert preview is not None
    shown = preview.text.plain
    assert shown.index("candidate 0") < shown.index("Paris") < shown.index("candidate 1")
    assert shown.index("candidate 1") < shown.index("Lyon") < shown.index("finish STOP")
    one = gemini_preview("chunk", {"candidates": [{"content": {"parts": [{"text": "Paris"}]}}]})
    assert one is not None and "candidate" not in one.text.plain
