"""Colours on the screen: what is internal (reasoning, signatures) is never drawn in the error red.

Textual draws a named ANSI colour with its own terminal theme, and its dark
default gives magenta and red one RGB. The test reads the colours the app
actually draws (its SVG screenshot), not the style names in the code.
"""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from inspector.viewmodel.palette import DARK_ANSI, distinct_hues

from ..conftest import CAPTURES
from .helpers import app_for

REASONING = CAPTURES / "anthropic" / "reasoning.jsonl"
FAILED = CAPTURES / "anthropic" / "overloaded-after-text.jsonl"


def drawn_colours(svg: str) -> dict[str, set[str]]:
    """Each piece of text in a screenshot → the fill colours it is drawn with."""
    fills = dict(re.findall(r"\.(terminal-[\w-]+-r\d+) \{ fill: (#[0-9a-f]{6})", svg))
    found: dict[str, set[str]] = {}
    for css, text in re.findall(r'<text class="(terminal-[\w-]+-r\d+)"[^>]*>([^<]*)</text>', svg):
        words = html.unescape(text).replace("\xa0", " ").strip()
        if words and css in fills:
            found.setdefault(words, set()).add(fills[css])
    return found


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def colour_of(found: dict[str, set[str]], words: str) -> set[str]:
    hits = {c for text, colours in found.items() if words in text for c in colours}
    assert hits, f"{words!r} is not on the screen"
    return hits


async def test_reasoning_text_and_signatures_are_drawn_apart_from_the_error_red() -> None:
    app = app_for(REASONING)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        found = drawn_colours(app.export_screenshot())
    failed = app_for(FAILED)
    async with failed.run_test(size=(200, 50)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        red = colour_of(drawn_colours(failed.export_screenshot()), "failed")
    internal = colour_of(found, "signature") | colour_of(found, "internal")
    for error in red:
        for colour in internal:
            assert distinct_hues(rgb(colour), rgb(error)), (colour, error)


def test_the_dark_theme_keeps_every_named_colour_apart_from_red() -> None:
    red = tuple(DARK_ANSI.ansi_colors[1])
    for number, colour in enumerate(DARK_ANSI.ansi_colors):
        if number % 8 in (1, 0, 7):  # red itself, black and white carry no hue
            continue
        assert distinct_hues(tuple(colour), red), number  # type: ignore[arg-type]


@given(st.tuples(*[st.integers(0, 255)] * 3), st.integers(0, 359))
def test_hue_distance_is_symmetric_and_zero_apart_is_never_distinct(
    colour: tuple[int, int, int], _: int
) -> None:
    assert not distinct_hues(colour, colour)
    other = (255 - colour[0], 255 - colour[1], 255 - colour[2])
    assert distinct_hues(colour, other) == distinct_hues(other, colour)
