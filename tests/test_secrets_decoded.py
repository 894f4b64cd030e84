"""Decoded views are built in C (``re.sub``) yet map back exactly as one built escape by escape.

:func:`reference_decode` is the plain loop the views were built with: copy
the text between escapes, write each escape's one character, note where it
sits in the view and where it started in the source. The views, their
order, and every span mapped back to the original text must be the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.export import decoded
from inspector.export.decoded import MAX_DEPTH, decoded_views, find_encoded_secrets


def reference_decode(
    text: str, pattern: re.Pattern[str], char: Callable[[re.Match[str]], str]
) -> tuple[str, list[int], list[int], list[int]]:
    out: list[str] = []
    view_at: list[int] = []
    source_at: list[int] = []
    source_len: list[int] = []
    last = 0
    size = 0
    for m in pattern.finditer(text):
        start, end = m.span()
        out.append(text[last:start])
        size += start - last
        out.append(char(m))
        view_at.append(size)
        source_at.append(start)
        source_len.append(end - start)
        size += 1
        last = end
    out.append(text[last:])
    return "".join(out), view_at, source_at, source_len


def reference_views(text: str) -> list[str]:
    views: list[tuple[str, int]] = [(text, 0)]
    seen = {text}
    i = 0
    while i < len(views):
        view, depth = views[i]
        i += 1
        if depth >= MAX_DEPTH:
            continue
        for trigger, pattern, char in decoded._DECODERS:
            if trigger in view:
                text_of, *_ = reference_decode(view, pattern, char)
                if text_of not in seen:
                    seen.add(text_of)
                    views.append((text_of, depth + 1))
    return [v for v, _ in views]


ESCAPED = (
    "\\n", "\\\\", '\\"', "\\/", "\\u0041", "\\u002d", "\\ud83d\\ude00", "\\ud83d", "\\ude00",
    "\\q", "\\", "\\\\u0073k-", "%2D", "%2d", "%41", "%E2", "%", "%%", "%7F", "%80", "\\u0025",
    "%5Cn", "sk", "-", "proj", "a", " ", "é", "汉", "\U0001f642", "\0",
)  # fmt: skip
escaped_texts = st.lists(st.sampled_from(ESCAPED), max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(escaped_texts)
def test_each_decoding_is_the_escape_by_escape_one(text: str) -> None:
    for _, pattern, char in decoded._DECODERS:
        view, step = decoded._decode(text, pattern, char)
        assert (view, step.view_at, step.source_at, step.source_len) == reference_decode(
            text, pattern, char
        )


@settings(max_examples=300, deadline=None)
@given(escaped_texts)
def test_the_views_are_the_distinct_decodings_in_the_same_order(text: str) -> None:
    assert decoded_views(text) == reference_views(text)


def test_a_key_spelled_with_escapes_of_every_kind_is_one_span_of_the_original() -> None:
    key = "sk-proj-" + "A1b2" * 6
    spelled = "say " + key.replace("-", "\\u002d").replace("p", "%70", 1) + " ok"
    [found] = find_encoded_secrets(spelled)
    assert spelled[found.start : found.end] == key.replace("-", "\\u002d").replace("p", "%70", 1)
    assert key in found.values
