"""What the export does to hold less at once must not change what it finds or writes.

Each step that works on a long text a piece at a time (or keeps a digest
rather than the columns) is compared here with doing it whole: the same
result for any text, cut anywhere.
"""

from __future__ import annotations

import re
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.export import leaks
from inspector.export.layout import frames_digest

# The characters line breaks are spelled with, and a few others.
BREAKY = st.text(alphabet="\r\n\\rnab=", max_size=200)


@given(BREAKY, st.integers(min_value=1, max_value=8))
def test_line_breaks_removed_a_window_at_a_time_as_from_the_whole_text(
    text: str, window: int
) -> None:
    whole = re.sub(r"\r\n|\n|\\r\\n|\\n", "", text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(leaks, "_JOIN_WINDOW", window)
        assert leaks._without_line_breaks([text]) == whole


def test_the_text_is_taken_out_of_its_holder() -> None:
    holder = ["a\nb" * 10]
    assert leaks._without_line_breaks(holder) == "ab" * 10
    assert holder == []


def columns(*values: list[int]) -> tuple[array[int], ...]:
    return tuple(array("q", v) for v in values)


@given(st.lists(st.lists(st.integers(0, 2**40), max_size=6), min_size=4, max_size=4))
def test_frame_columns_have_the_same_digest_exactly_when_they_are_equal(
    values: list[list[int]],
) -> None:
    one = columns(*values)
    assert frames_digest(one) == frames_digest(columns(*values))
    # Moving the border between two columns is a change.
    if values[0]:
        moved = [values[0][:-1], [values[0][-1], *values[1]], *values[2:]]
        assert frames_digest(columns(*moved)) != frames_digest(one)
    bumped = [[v + 1 for v in values[0]], *values[1:]]
    if values[0]:
        assert frames_digest(columns(*bumped)) != frames_digest(one)
