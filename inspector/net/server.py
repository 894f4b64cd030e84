"""The uvicorn settings that carry the front's limits, shared by both servers."""

from __future__ import annotations

from typing import Any

from .limits import FrontLimits
from .protocol import Connections, front_protocol

__all__ = ["uvicorn_settings"]


def uvicorn_settings(limits: FrontLimits, connections: Connections) -> dict[str, Any]:
    """Keyword arguments for :class:`uvicorn.Config` enforcing ``limits``.

    The header deadline is the protocol's; the idle time, the connection cap
    and the header size are uvicorn's own settings. uvicorn's access log is
    off (it would print query strings, where a Gemini key may be), and so
    are its ``Server`` header and WebSockets.
    """
    return {
        "http": front_protocol(connections, limits.header_timeout),
        "ws": "none",
        "lifespan": "off",
        "access_log": False,
        "server_header": False,
        "timeout_keep_alive": limits.idle_timeout,
        "limit_concurrency": limits.max_connections,
        "h11_max_incomplete_event_size": limits.max_header_bytes,
    }
