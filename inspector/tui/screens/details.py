"""The details screen (``d``): the HTTP exchange and how the bytes ended.

Shows the request as sent (already redacted by whoever recorded it), the
response status and headers — and for an HTTP error the body the provider
sent instead of a stream —, the feed's timings when live, and the trace's
notes: transport end, undispatched tail, decoder error, damaged capture
lines. Every value is provider or user data and is shown escaped, in JSON
notation (``null``, never ``None``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import orjson
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...core.trace import Trace
from ...viewmodel.http import error_body_text, headers_text, is_error
from ...viewmodel.textsafe import json_text, one_line, plain_value
from ..widgets.frames import end_summary

__all__ = ["DetailsScreen", "exchange_text"]


def _section(text: Text, title: str) -> None:
    text.append(f"\n{title}\n", "bold underline")


def _headers(text: Text, headers: Any) -> None:
    text.append_text(headers_text(headers))


def _timing(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value * 1000:.0f} ms"
    return "—" if value is None else plain_value(value)


def exchange_text(trace: Trace, exchange: Mapping[str, Any], source: str) -> Text:
    """The whole details page as one text."""
    text = Text(end="")
    text.append("source  ", "bold")
    text.append_text(one_line(source, 300))
    text.append("\nstream  ", "bold")
    text.append_text(one_line(f"{trace.stream_id} · {trace.provider}", 120))
    request = exchange.get("request")
    _section(text, "Request")
    if isinstance(request, Mapping):
        text.append("  ")
        method, url = request.get("method", "?"), request.get("url", "?")
        text.append_text(one_line(f"{plain_value(method)} {plain_value(url)}", 400))
        text.append("\n")
        _headers(text, request.get("headers"))
        body = request.get("body")
        if body is not None:
            raw = body if isinstance(body, str) else orjson.dumps(body).decode()
            pretty, _ = json_text(raw, 16 * 1024)
            text.append_text(pretty)
            text.append("\n")
    else:
        text.append("  (not recorded)\n", "dim")
    response = exchange.get("response")
    _section(text, "Response")
    if isinstance(response, Mapping):
        status = response.get("status")
        ok = isinstance(status, int) and status < 400
        text.append(f"  HTTP {plain_value(status)}\n", "bold green" if ok else "bold red")
        _headers(text, response.get("headers"))
        if is_error(trace):
            text.append("  body\n", "bold")
            text.append_text(error_body_text(trace))
            text.append("\n")
    else:
        text.append("  (not recorded)\n", "dim")
    timings = exchange.get("timings")
    if isinstance(timings, Mapping) and timings:
        _section(text, "Timings")
        for name, value in timings.items():
            text.append("  ")
            text.append_text(one_line(f"{plain_value(name):<14}", 60))
            text.append_text(one_line(_timing(value), 60))
            text.append("\n")
    _section(text, "End of the bytes")
    text.append("  ")
    text.append_text(end_summary(trace))
    text.append(f"\n  {trace.bytes_received:,} bytes in {len(trace.chunks):,} chunk(s)\n", "dim")
    for problem in trace.problems:
        text.append("  ")
        text.append_text(one_line(problem, 400, "yellow"))
        text.append("\n")
    return text


class DetailsScreen(ModalScreen[None]):
    """A modal page; escape, d or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,d,q", "close", "Close", id="details.close"),
    ]

    def __init__(self, trace: Trace, exchange: Mapping[str, Any], source: str) -> None:
        super().__init__()
        self.trace = trace
        self.exchange = exchange
        self.source = source

    def compose(self) -> ComposeResult:
        """The page in a scrollable box."""
        with VerticalScroll(id="details-box") as box:
            box.border_title = "Exchange"
            yield Static(exchange_text(self.trace, self.exchange, self.source), id="details-text")

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)
