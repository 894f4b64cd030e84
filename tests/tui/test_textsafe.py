"""Provider text is data: shown literally, never interpreted by Rich or the terminal."""

from __future__ import annotations

from rich.console import Console

from inspector.viewmodel.textsafe import ESCAPE_STYLE, escape_plain, json_text, one_line, safe_text


def rendered(text: object) -> str:
    """What a terminal would receive for ``text`` (colour off)."""
    console = Console(width=200, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(text, end="")
    return capture.get()


def test_markup_looking_text_stays_those_characters() -> None:
    text = safe_text("[bold red]alarm[/bold red]")
    assert text.plain == "[bold red]alarm[/bold red]"
    assert rendered(text) == "[bold red]alarm[/bold red]"


def test_ansi_escape_and_carriage_return_become_visible_escapes() -> None:
    text = safe_text("\x1b[2J wiped\r over")
    assert text.plain == "\\x1b[2J wiped\\r over"
    assert "\x1b" not in rendered(text)
    assert "\r" not in rendered(text)


def test_escapes_are_styled_apart_from_the_same_characters_typed_literally() -> None:
    text = safe_text("a\x1bb")
    styled = [(text.plain[s.start : s.end], s.style) for s in text.spans]
    assert styled == [("\\x1b", ESCAPE_STYLE)]


def test_other_controls_c1_and_bidi_overrides_are_escaped() -> None:
    assert escape_plain("\x00\x07\x7f\x9b\u202etxt\u2066") == "\\0\\x07\\x7f\\x9b\\u202etxt\\u2066"


def test_one_line_escapes_newlines_and_tabs_multi_line_keeps_them() -> None:
    assert escape_plain("a\nb\tc") == "a\\nb\\tc"
    assert escape_plain("a\nb\tc\r", multiline=True) == "a\nb\tc\\r"


def test_one_line_preview_is_cut_with_an_ellipsis() -> None:
    assert one_line("abcdef", limit=3).plain == "abc…"
    assert one_line("abc", limit=3).plain == "abc"


def test_json_is_pretty_printed_highlighted_and_still_escaped() -> None:
    text, is_json = json_text('{"text": "\\u001b[2J [b]x[/b]", "n": 1}')
    assert is_json
    assert text.plain == '{\n  "text": "\\u001b[2J [b]x[/b]",\n  "n": 1\n}'
    assert text.spans, "JSON keys, strings and numbers are highlighted"


def test_non_json_data_is_shown_raw_and_escaped() -> None:
    text, is_json = json_text("[DONE]\x1b")
    assert not is_json
    assert text.plain == "[DONE]\\x1b"


def test_a_huge_frame_is_cut_with_a_note_of_what_was_left_out() -> None:
    text, _ = json_text("x" * 100, limit=10)
    assert text.plain == "x" * 10 + "\n… 90 more characters not shown"
