"""Running the replay server with uvicorn: in the foreground (CLI) or a background thread (tests).

The listening socket is bound here, before uvicorn starts, so port 0 gives a
free port whose number is known at once. uvicorn's own access log is off:
it would print request query strings, and a Gemini client may put its key
there. The app logs each request itself, without the query, escaped.

Slow and greedy clients are bounded by the front both servers share
(:mod:`inspector.net`, "The servers" in ``docs/security.md``): a deadline
for request headers, an idle time, a connection cap, a header size cap.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import uvicorn

from ..net import Connections, FrontLimits, uvicorn_settings
from ..net.limits import SERVE_LIMITS
from ..net.server import BackgroundServer
from .app import Log, create_app
from .catalog import Catalog

__all__ = ["HEADER_TIMEOUT", "MAX_CONNECTIONS", "MAX_HEADER_BYTES", "ReplayServer"]

#: The front's defaults for serve, under the names they had here.
HEADER_TIMEOUT: Final = SERVE_LIMITS.header_timeout
KEEP_ALIVE_TIMEOUT: Final = SERVE_LIMITS.idle_timeout
MAX_CONNECTIONS: Final = SERVE_LIMITS.max_connections
MAX_HEADER_BYTES: Final = SERVE_LIMITS.max_header_bytes


class ReplayServer(BackgroundServer):
    """The replay server on one socket; ``url`` is where it listens."""

    thread_name = "inspector-serve"

    def __init__(
        self,
        catalog: Catalog,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        speed: float = 1.0,
        log: Log | None = None,
        max_body: int | None = None,
        header_timeout: float | None = None,
        max_connections: int | None = None,
        limits: FrontLimits = SERVE_LIMITS,
    ) -> None:
        if max_body is not None:
            limits = replace(limits, max_body=max_body)
        if header_timeout is not None:
            limits = replace(limits, header_timeout=header_timeout)
        if max_connections is not None:
            limits = replace(limits, max_connections=max_connections)
        if limits.max_json < limits.max_body:
            limits = replace(limits, max_json=limits.max_body)
        self.limits = limits
        self.connections = Connections()
        self.app = create_app(
            catalog,
            speed=speed,
            connections=self.connections,
            log=log,
            host=host,
            limits=limits,
        )
        self._listen(host, port)
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            timeout_graceful_shutdown=2,
            **uvicorn_settings(limits, self.connections),
        )
        self.server = uvicorn.Server(config)

    def run(self) -> None:
        """Serve in the foreground until Ctrl+C / SIGTERM (uvicorn handles both)."""
        self.server.run(sockets=[self.socket])

    def _serve(self) -> None:
        self.run()
