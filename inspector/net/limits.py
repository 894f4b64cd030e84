"""The front's limits: one table, the defaults of both servers, and their options' names.

The options themselves are built by :mod:`inspector.cli.front_options` (the CLI
layer sits above this one).

Each limit bounds one thing a client controls — how slowly it sends headers
or a body, how many connections it opens, how large a request it sends, how
many request bytes all clients together make the server hold, how much JSON
it makes the server parse. ``docs/security.md`` ("The servers") lists what a
client sees when it hits each one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

__all__ = ["FRONT_OPTIONS", "KIB", "MIB", "PROXY_LIMITS", "SERVE_LIMITS", "FrontLimits"]

KIB: Final = 1024
MIB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FrontLimits:
    """What one server lets any client make it wait for or hold."""

    #: Seconds a connection may take to send a request's line and headers
    #: (from opening, or from its previous response): slowloris.
    header_timeout: float = 10.0
    #: Seconds an idle kept-alive connection stays open.
    idle_timeout: float = 5.0
    #: Seconds a request body may take to arrive in full (408 after).
    body_timeout: float = 30.0
    #: Connections served at once; more get 503.
    max_connections: int = 256
    #: The request line and headers together (431 / connection closed beyond).
    max_header_bytes: int = 64 * KIB
    #: One request body (413 beyond; Content-Length is checked before reading).
    max_body: int = 1 * MIB
    #: Request-body bytes held at once across every connection (503 beyond).
    max_pending: int = 64 * MIB
    #: The largest request body parsed as JSON (in a worker thread).
    max_json: int = 1 * MIB

    def __post_init__(self) -> None:
        for item in fields(self):
            if not getattr(self, item.name) > 0:
                raise ValueError(f"{item.name} must be above 0")


#: ``inspector serve``: a replay needs only the request's model.
SERVE_LIMITS: Final = FrontLimits()
#: ``inspector proxy``: real requests carry images and long prompts.
PROXY_LIMITS: Final = FrontLimits(max_body=32 * MIB, max_pending=256 * MIB, max_json=32 * MIB)

#: field -> (option, kind, help). ``kind`` is "seconds", "count" or "size".
FRONT_OPTIONS: Final[dict[str, tuple[str, str, str]]] = {
    "header_timeout": ("--header-timeout", "seconds",
                       "close a connection that has not sent its request headers in S seconds"),
    "idle_timeout": ("--idle-timeout", "seconds",
                     "close a kept-alive connection idle for S seconds"),
    "body_timeout": ("--body-timeout", "seconds",
                     "answer 408 when a request body takes longer than S seconds"),
    "max_connections": ("--max-connections", "count",
                        "serve at most N connections at once (503 beyond)"),
    "max_header_bytes": ("--max-header-bytes", "size",
                         "the request line and headers together at most SIZE"),
    "max_body": ("--max-body", "size", "refuse request bodies larger than SIZE with 413"),
    "max_pending": ("--max-pending", "size",
                    "request-body bytes held at once over all connections (503 beyond)"),
    "max_json": ("--max-json", "size", "parse request JSON only up to SIZE"),
}  # fmt: skip
