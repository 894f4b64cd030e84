"""The proxy's flow list as rows: column widths for a terminal, each flow's cells,
and a flow's request as a curl command — what :mod:`inspector.tui.screens.flows`
shows, without Textual. Every value is the provider's or the app's: escaped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import orjson
from rich.text import Text

from ..terminal import escape_controls
from .rows import STATE_STYLES, size_label
from .textsafe import one_line

if TYPE_CHECKING:
    from ..proxy import Flow

__all__ = ["COLUMNS", "FLEXIBLE", "column_widths", "curl_command", "flow_cells"]


#: (key, title, width) of the table's columns; path, model and state take what is left
#: (:data:`FLEXIBLE`), so the widths here are only where they start.
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("number", "#", 5),
    ("method", "method", 6),
    ("path", "path", 44),
    ("model", "model", 26),
    ("status", "status", 6),
    ("state", "terminal state", 28),
    ("duration", "duration", 8),
    ("bytes", "bytes", 8),
)

#: (key, least, most, share): the columns that share the width the others leave.
FLEXIBLE: Final = (("path", 11, 120, 4), ("model", 8, 60, 3), ("state", 10, 30, 3))
#: Each cell pads one column on either side; the scrollbar takes two.
_PADDING: Final = 2 * len(COLUMNS) + 2


def column_widths(width: int) -> dict[str, int]:
    """Every column's width on a screen ``width`` cells wide.

    The flexible columns start at their least width and share out the rest by
    their shares, up to their most; a cell longer than its column ends in ``…``
    (:func:`flow_cells`). Below the sum of the least widths the table scrolls.
    """
    widths = {key: w for key, _, w in COLUMNS}
    for key, least, _, _ in FLEXIBLE:
        widths[key] = least
    room = width - _PADDING - sum(widths.values())
    growing = [(key, most, share) for key, _, most, share in FLEXIBLE]
    while room > 0 and growing:
        shares = sum(share for _, _, share in growing)
        given = 0
        for key, most, share in growing:
            more = min(most - widths[key], max(1, room * share // shares), room - given)
            widths[key] += more
            given += more
        room -= given
        growing = [(k, most, share) for k, most, share in growing if widths[k] < most]
        if given == 0:
            break
    return widths


def _state_cell(flow: Flow) -> Text:
    word, _, detail = flow.state.partition(" ")
    text = Text(word, STATE_STYLES.get(word, "dim" if word == "passed" else "bold"))
    if detail:
        text.append(" " + detail, "dim")
    if flow.problem:
        text.append(" · not recorded", "bold red")
    return text


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def curl_command(header: dict[str, Any]) -> str | None:
    """The recorded request as a curl command (secret headers stay ``[redacted]``), or None."""
    request = header.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("url"), str):
        return None

    parts = ["curl", "-N", "-X", _shell_quote(str(request.get("method") or "POST"))]
    parts.append(_shell_quote(request["url"]))
    for name, value in (request.get("headers") or {}).items():
        if str(name).lower() not in ("content-length", "host", "accept-encoding"):
            parts += ["-H", _shell_quote(f"{name}: {value}")]
    body = request.get("body")
    if body is not None:
        data = body if isinstance(body, str) else orjson.dumps(body).decode()
        parts += ["--data-raw", _shell_quote(data)]
    return escape_controls(" ".join(parts))


def flow_cells(
    flow: Flow, marked: bool = False, widths: Mapping[str, int] | None = None
) -> dict[str, Text]:
    """One row of the table, by column key (client-controlled text escaped).

    With ``widths``, text longer than its column ends in ``…`` (the table
    itself would crop it without a sign).
    """
    duration = flow.duration if flow.duration is not None else flow.now()
    number = Text("● " if marked else "", "bold magenta", end="")
    number.append(str(flow.number))
    number.justify = "right"
    cells = {
        "number": number,
        "method": one_line(flow.method, 10),
        "path": one_line(flow.path, 120),
        "model": one_line(flow.model or "—", 60),
        "status": Text(str(flow.status) if flow.status is not None else "…", justify="right"),
        "state": _state_cell(flow),
        "duration": Text(f"{duration:.2f}s", justify="right", style="" if flow.live else "dim"),
        "bytes": Text(size_label(flow.bytes), justify="right"),
    }
    for key, cell in cells.items():
        if widths is not None and key in widths and cell.cell_len > widths[key]:
            cell.truncate(widths[key], overflow="ellipsis")
    return cells
