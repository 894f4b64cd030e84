"""What the leak scan reads of a text: the text, its escapes undone, its percent-encoding undone.

``_decodings`` hands out each reading once and lets go of each text before
the next is made; what it reads must stay exactly this list (in any order):
the text; the text with escapes undone once, twice, three times (stopping
at a level with no backslash left); and the percent-decoding of the text
and of the last unescaped level, wherever there is a percent escape.
"""

from __future__ import annotations

import codecs
import re
import warnings
from urllib.parse import unquote

from hypothesis import given
from hypothesis import strategies as st

from inspector.export.leaks import UNESCAPE_DEPTH, _decodings

PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def unescaped(text: str) -> str:
    data = text.encode("utf-8", "backslashreplace").replace(b"\\/", b"/")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return codecs.decode(data, "unicode_escape", "backslashreplace")


def expected(text: str) -> list[tuple[str, str]]:
    readings = [("f", text)]
    level = text
    for depth in range(1, UNESCAPE_DEPTH + 1):
        if "\\" not in level:
            break
        level = unescaped(level)
        readings.append((f"f, unescaped x{depth}", level))
    sources = [text] if level is text else [text, level]
    readings += [
        ("f, percent-decoded", unquote(s, errors="surrogateescape"))
        for s in sources
        if PERCENT_ESCAPE.search(s)
    ]
    if "\n" in level:
        # MIME-wrapped base64: the last reading with its line breaks removed.
        readings.append(("f, line breaks removed", re.sub(r"\r?\n|(?:\\r)?\\n", "", level)))
    return readings


PIECES = ["sk-", "%2d", "%", "\\", "\\\\", "\\u0041", '\\"', "\\/", "%5C", "a", "é", "\n", "%zz"]


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_every_reading_of_a_text_is_scanned_once(pieces: list[str]) -> None:
    text = "".join(pieces)
    got = list(_decodings([text], "f"))
    want = expected(text)
    assert sorted(got) == sorted(want)
    # Texts other than percent-decodings come in order: each level from the one before.
    assert [g for g in got if "percent" not in g[0]] == [w for w in want if "percent" not in w[0]]


def test_a_text_escaped_three_times_over_is_read_at_every_level() -> None:
    text = "key: \\\\\\\\u0041 and %41"
    forms = [form for form, _ in _decodings([text], "f")]
    assert forms == [
        "f",
        "f, percent-decoded",
        "f, unescaped x1",
        "f, unescaped x2",
        "f, unescaped x3",
        "f, percent-decoded",
    ]
