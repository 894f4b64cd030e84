"""The HTTP side of a trace: the response status, its headers, an error body.

A provider that refuses a request (429, 401, 529 …) answers with an HTTP
error and a JSON body instead of a stream: there are no frames, only that
body. The Frames pane's end row, the end-of-bytes detail and the details
screen all show it through these functions, so it reads the same
everywhere. Everything here is provider data and is shown escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson
from rich.text import Text

from ..core.trace import Trace
from .textsafe import json_text, one_line, plain_value

__all__ = [
    "BODY_LIMIT",
    "error_body",
    "error_body_text",
    "headers_text",
    "http_line",
    "never_connected",
    "response",
]

#: Bytes of an error body read for display (bodies are small; this bounds a hostile one).
BODY_LIMIT: Final = 64 * 1024


def response(trace: Trace) -> Mapping[str, Any] | None:
    """The recorded response (``status``, ``headers``), if the header has one."""
    value = (trace.header or {}).get("response")
    return value if isinstance(value, Mapping) else None


def never_connected(trace: Trace) -> bool:
    """Whether the request got no response at all (refused, unreachable, timed out connecting).

    A live recording says so with a header whose ``response`` is null; such a
    stream ended ``reset`` or ``timeout`` before a byte, which "reset" alone
    would misread as a connection that broke.
    """
    header = trace.header
    return (
        isinstance(header, Mapping)
        and "response" in header
        and header["response"] is None
        and not trace.bytes_received
    )


def status_of(trace: Trace) -> int | None:
    """The HTTP status, when recorded."""
    status = (response(trace) or {}).get("status")
    return status if isinstance(status, int) else None


def is_error(trace: Trace) -> bool:
    """Whether the response was an HTTP error (status 400 or more)."""
    status = status_of(trace)
    return status is not None and status >= 400


def error_body(trace: Trace) -> str:
    """The body of an HTTP error response as text (at most :data:`BODY_LIMIT` bytes)."""
    size = min(trace.bytes_received, BODY_LIMIT)
    return trace.chunks.span(0, size).decode("utf-8", "replace") if size else ""


def headers_text(headers: object, indent: str = "  ") -> Text:
    """``name: value`` lines, escaped; a note when none were recorded."""
    text = Text(end="")
    if not isinstance(headers, Mapping) or not headers:
        text.append(f"{indent}(no headers recorded)\n", "dim")
        return text
    for name, value in headers.items():
        text.append(indent)
        text.append_text(one_line(plain_value(name), 60, "cyan"))
        text.append(": ")
        text.append_text(one_line(plain_value(value), 300))
        text.append("\n")
    return text


def http_line(trace: Trace) -> Text | None:
    """``HTTP 429 · body {"error": …} · retry-after: 20`` for an error response, else None.

    The body comes before the headers: on a narrow row it is what says why.
    """
    if not is_error(trace):
        return None
    found = response(trace) or {}
    text = Text(f"HTTP {status_of(trace)}", "bold red", end="")
    body = _one_line_body(error_body(trace))
    if body:
        text.append(" · body ", "dim")
        text.append_text(one_line(body, 400, "red"))
    headers = found.get("headers")
    if isinstance(headers, Mapping):
        for name, value in headers.items():
            text.append(" · ", "dim")
            text.append_text(one_line(plain_value(name), 40, "cyan"))
            text.append(": ", "dim")
            text.append_text(one_line(plain_value(value), 80))
    return text


def _one_line_body(body: str) -> str:
    # JSON compacted; anything else with its runs of whitespace made one space.
    try:
        return orjson.dumps(orjson.loads(body)).decode()
    except orjson.JSONDecodeError:
        return " ".join(body.split())


def error_body_text(trace: Trace) -> Text:
    """The error body, pretty-printed when it is JSON, escaped either way."""
    body = error_body(trace)
    if not body:
        return Text("(empty body)", "dim", end="")
    text, _ = json_text(body, BODY_LIMIT)
    if trace.bytes_received > BODY_LIMIT:
        text.append(f"\n… {trace.bytes_received - BODY_LIMIT:,} more bytes not shown", "dim")
    return text
