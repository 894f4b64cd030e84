"""The RGB the TUI draws named ANSI colours with: magenta is not red.

Textual converts ANSI colour names to RGB with its own terminal theme, and
its dark default (Monokai) gives red, magenta, bright red and bright magenta
one and the same colour. Every "internal" thing in the panes — reasoning
text, signatures, live status words, the chosen block's mark, escaped
control characters — is drawn magenta, so it read as the error red. This
theme is Monokai with its magentas made orchid, apart from red (errors)
and from blue (open states); the light default (Alabaster) already keeps
them apart.
"""

from __future__ import annotations

from typing import Final

from rich.terminal_theme import TerminalTheme

__all__ = ["DARK_ANSI", "distinct_hues"]

_RED: Final = (244, 0, 95)
_MAGENTA: Final = (205, 110, 235)
_BRIGHT_MAGENTA: Final = (225, 160, 245)

#: The dark theme's ANSI colours (Monokai, magentas apart).
DARK_ANSI: Final = TerminalTheme(
    (12, 12, 12),
    (217, 217, 217),
    [
        (26, 26, 26),
        _RED,
        (152, 224, 36),
        (253, 151, 31),
        (157, 101, 255),
        _MAGENTA,
        (88, 209, 235),
        (196, 197, 181),
    ],
    [
        (98, 94, 76),
        _RED,
        (152, 224, 36),
        (224, 213, 97),
        (157, 101, 255),
        _BRIGHT_MAGENTA,
        (88, 209, 235),
        (246, 246, 239),
    ],
)


def _hsv(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    import colorsys

    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    return h * 360, s, v


def distinct_hues(a: tuple[int, int, int], b: tuple[int, int, int], degrees: float = 30) -> bool:
    """True when ``a`` and ``b`` cannot be taken for each other: a grey beside a
    colour, or two colours at least ``degrees`` apart on the colour wheel."""
    (hue_a, sat_a, _), (hue_b, sat_b, _) = _hsv(a), _hsv(b)
    if (sat_a < 0.25) != (sat_b < 0.25):
        return True
    if sat_a < 0.25:
        return False  # two greys: told apart by brightness alone, not by colour
    gap = abs(hue_a - hue_b) % 360
    return min(gap, 360 - gap) >= degrees
