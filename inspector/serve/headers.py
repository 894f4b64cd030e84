"""The headers the replay server sends: a fixed, safe set, whatever a capture recorded.

A capture is a file anyone may hand over, and ``inspector serve`` answers
browsers too. So a recorded header is *never* passed on by default: only the
few that clients of a provider API read (``retry-after``, the rate-limit
families, request ids) are replayed, and only with values that are plain
tokens. The content type is the framing's (:data:`.framings.CONTENT_TYPES`)
for a stream, and one of :data:`CONTENT_TYPES` for an SSE or error body (a
capture saying ``text/html`` is served as what the stream is). CORS, cookies, redirects and
caching headers from a capture are dropped; :data:`SAFETY` goes on every
response — the server's own errors and refusals included — through
:class:`SafeHeaders`.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .catalog import Entry
from .framings import CONTENT_TYPES as FRAMING_TYPES

__all__ = ["CONTENT_TYPES", "REPLAYED", "SAFETY", "SafeHeaders", "replayed_headers"]

#: The only content types served (by media type, lower case).
CONTENT_TYPES: Final = frozenset({"text/event-stream", "application/json", "text/plain"})
#: Recorded response headers that are replayed: exact names, and name prefixes.
REPLAYED: Final = frozenset({"retry-after", "retry-after-ms", "request-id", "x-request-id",
                             "x-vercel-ai-ui-message-stream"})  # fmt: skip
_REPLAYED_PREFIXES: Final = ("x-ratelimit-", "anthropic-ratelimit-", "openai-", "x-amzn-")
#: A replayed value: a short run of visible ASCII without separators a header could abuse.
_SAFE_VALUE: Final = re.compile(r"[A-Za-z0-9 ._:/+=,%-]{0,256}")
#: On every response: no sniffing an SSE body into HTML, and a page that still
#: renders one runs no script, loads nothing and cannot be framed.
SAFETY: Final[dict[str, str]] = {
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'; frame-ancestors 'none'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
}
#: Response headers only the server itself may set; anything else carrying them is removed.
_OWN: Final = frozenset(SAFETY) | frozenset(
    {"access-control-allow-origin", "access-control-allow-credentials",
     "access-control-allow-headers", "access-control-allow-methods",
     "access-control-expose-headers", "set-cookie", "location", "refresh", "expires",
     "pragma", "etag", "last-modified", "vary", "age", "clear-site-data", "link"}
)  # fmt: skip


def _is_replayed(name: str) -> bool:
    return name in REPLAYED or name.startswith(_REPLAYED_PREFIXES)


def content_type(recorded: str | None, status: int, framing: str = "sse") -> str:
    """The content type to serve: a stream's framing's; else the recorded one if it is in
    the fixed set, else by status."""
    if status < 400 and framing != "sse":
        return FRAMING_TYPES[framing]
    media = (recorded or "").split(";")[0].strip().lower()
    if media in CONTENT_TYPES:
        return media
    return "text/event-stream" if status < 400 else "application/json"


def replayed_headers(entry: Entry) -> dict[str, str]:
    """The headers a replay of ``entry`` is sent with (see the module docstring)."""
    response = (entry.recording.header or {}).get("response") or {}
    recorded = response.get("headers") if isinstance(response, dict) else None
    items = recorded.items() if isinstance(recorded, dict) else []
    lowered = {str(k).lower(): str(v) for k, v in items}
    headers = {
        name: value
        for name, value in lowered.items()
        if _is_replayed(name) and _SAFE_VALUE.fullmatch(value)
    }
    status = entry.recording.status or 200
    headers["content-type"] = content_type(lowered.get("content-type"), status, entry.framing)
    headers["x-inspector-capture"] = quote(entry.name, safe="")
    return headers


class SafeHeaders:
    """ASGI middleware: every response gets :data:`SAFETY`, and no header only the server sets."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_safe(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = [(k, v) for k, v in message.get("headers", []) if k.lower().decode(
                    "latin-1") not in _OWN]  # fmt: skip
                headers = MutableHeaders(raw=raw)
                for name, value in SAFETY.items():
                    headers[name] = value
                message = {**message, "headers": headers.raw}
            await send(message)

        await self.app(scope, receive, send_safe)
