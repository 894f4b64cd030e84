"""``inspector diff``'s one-line descriptions cut text at a word's end, never mid-word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector.stream_diff_report import clip_words, describe_event


@given(st.text(alphabet="ab c", max_size=200), st.integers(min_value=6, max_value=120))
def test_a_clipped_text_ends_at_a_word_with_an_ellipsis_within_its_limit(
    text: str, limit: int
) -> None:
    shown = clip_words(text, limit)
    if len(text) <= limit:
        assert shown == text
        return
    assert len(shown) <= limit and shown.endswith("…")
    kept = shown[:-1]
    assert text.startswith(kept)
    if text.rfind(" ", 0, limit) >= limit * 2 // 3:
        assert text[len(kept) :].startswith(" ")


def test_an_error_message_is_cut_after_a_word() -> None:
    message = "The server had an error while processing your request. Sorry about that!"
    event = {"type": "stream.error", "error": {"category": "server_error", "message": message}}
    line = describe_event(event, limit=40)
    assert line.endswith('"The server had an error while…"'), line
