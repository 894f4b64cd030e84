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

from ..terminal import UNSAFE_MULTI_LINE, UNSAFE_ONE_LINE, escape_char, escape_controls

__all__ = [
    "ESCAPE_STYLE",
    "escape_plain",
    "json_text",
    "one_line",
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
    pattern = UNSAFE_MULTI_LINE if multiline else UNSAFE_ONE_LINE
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
