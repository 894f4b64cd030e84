"""Provider text made safe to show in a terminal.

Everything that came from a provider — frame data, model text, tool
arguments, error messages, even a model name or an SSE ``id`` — is untrusted
data. Two rules keep it harmless:

* it is never parsed as Rich markup: we build :class:`rich.text.Text`
  objects piece by piece (``Text.append``), which take ``[bold red]`` as
  those ten characters, and never pass provider strings to anything that
  interprets markup;
* every character a terminal would *act on* instead of print (ESC starting
  an ANSI sequence, CR moving the cursor, other C0/C1 controls, DEL, and
  the invisible bidirectional overrides that can reorder a line) is replaced
  by a visible escape such as ``\\x1b`` or ``\\r``, styled so it cannot be
  mistaken for the same characters typed literally.
"""

from __future__ import annotations

from typing import Final

import orjson
from rich.highlighter import JSONHighlighter
from rich.style import Style
from rich.text import Text

from ..terminal import escape_char, escape_controls, unsafe_pattern

__all__ = [
    "ESCAPE_STYLE",
    "escape_plain",
    "json_text",
    "one_line",
    "plain_value",
    "quoted",
    "safe_text",
]

#: How an escaped character looks: distinct from ordinary text.
ESCAPE_STYLE: Final = Style(color="magenta", bold=True)

_JSON_HIGHLIGHTER: Final = JSONHighlighter()


def escape_plain(value: str, multiline: bool = False) -> str:
    """``value`` with every unsafe character replaced by its escape (no styling)."""
    return escape_controls(value, multiline)


def safe_text(value: str, style: str | Style = "", multiline: bool = False) -> Text:
    """A :class:`Text` showing ``value`` literally, unsafe characters escaped."""
    pattern = unsafe_pattern(multiline)
    text = Text(style=style, end="")
    position = 0
    for match in pattern.finditer(value):
        if match.start() > position:
            text.append(value[position : match.start()])
        text.append(escape_char(match.group()), ESCAPE_STYLE)
        position = match.end()
    if position < len(value):
        text.append(value[position:])
    return text


def one_line(value: str, limit: int = 400, style: str | Style = "") -> Text:
    """A single-line preview: at most ``limit`` source characters, newlines escaped."""
    if len(value) > limit:
        text = safe_text(value[:limit], style)
        text.append("…", "dim")
        return text
    return safe_text(value, style)


def plain_value(value: object) -> str:
    """A provider value as JSON writes it: strings as they are, else ``null``, ``true``, ``[…]``.

    Never Python's ``repr`` (``None``, ``{'type': …}``): the panes show the
    provider's data in the provider's notation.
    """
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return escape_controls(repr(value))  # not JSON data at all: say what it is


def quoted(value: str, style: str | Style = "green", limit: int = 120) -> Text:
    """``value`` JSON-quoted, escapes shown (``"a\\nb"``), cut at ``limit``.

    A string of only whitespace says so (``"  " (whitespace)``): quotes make it
    visible, the note makes it impossible to misread as nothing.
    """
    cut = value[:limit]
    text = one_line(orjson.dumps(cut).decode(), limit * 6 + 2, style)
    if len(value) > limit:
        text.append("…", "dim")
    if value and not value.strip():
        text.append(" (whitespace)", "dim italic")
    return text


def json_text(data: str, limit: int = 64 * 1024) -> tuple[Text, bool]:
    """Pretty-printed, highlighted JSON when ``data`` parses, else the raw text.

    Returns the text and whether it was JSON. Only the first ``limit``
    characters of the result are shown, so one enormous frame cannot stall
    the interface; a note says how much was left out.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        pretty, is_json = data, False
    else:
        pretty = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        is_json = True
    omitted = max(0, len(pretty) - limit)
    text = safe_text(pretty[:limit] if omitted else pretty, multiline=True)
    if is_json:
        _JSON_HIGHLIGHTER.highlight(text)
    if omitted:
        text.append(f"\n… {omitted:,} more characters not shown", "dim italic")
    return text, is_json
