"""The leak scan's escape undoing: decoding from the first backslash on is decoding it all."""

from __future__ import annotations

import codecs
import random
import warnings

import pytest

from inspector.export.leaks import _unescape


def reference(text: str) -> str:
    """The whole text encoded and decoded at once, as the scan always did."""
    data = text.encode("utf-8", "backslashreplace").replace(b"\\/", b"/")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return codecs.decode(data, "unicode_escape", "backslashreplace")


PIECES = [
    "\\", "\\\\", "\\n", "\\/", "/", "\\u00e9", "\\u12", "\\U0001F600", "\\U0011FFFF",
    "\\x4", "\\x41", "\\101", "\\8", "\\N{BULLET}", "\\N{NO SUCH NAME}", "\\N{", "}", "\\q",
    "\\\n", '\\"', "a", "b", " ", "{", '"', "é", "😀", "sk-", "\n", "\t", "%2D",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_unescape_is_the_whole_text_decoded(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        head = "x" * rng.choice((0, 1, 5, 300, 3000))
        text = head + "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
        if "\\" not in text:
            continue
        assert _unescape([text]) == reference(text), text


@pytest.mark.parametrize(
    "text",
    [
        "plain text then \\u00e9 and \\n",
        "a" * 100_000 + '{\\"city\\": \\"Paris\\"}',
        "ascii head \\N{BULLET} tail",
        "ascii head \\N{BULLET tail",
        "ascii head \\",
        "é non-ASCII before \\u00e9",  # decoded whole: its UTF-8 bytes read as Latin-1
        "\\ at the start",
    ],
)
def test_unescape_examples(text: str) -> None:
    holder = [text]
    assert _unescape(holder) == reference(text)
    assert holder == []  # taken out of the holder
