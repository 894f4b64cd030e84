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

import socket
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

import uvicorn

from ..net import Connections, FrontLimits, uvicorn_settings
from ..net.limits import SERVE_LIMITS
from .app import Log, create_app
from .catalog import Catalog

__all__ = ["HEADER_TIMEOUT", "MAX_CONNECTIONS", "MAX_HEADER_BYTES", "ReplayServer", "bind"]

_STOP_WAIT: Final = 10.0
#: The front's defaults for serve, under the names they had here.
HEADER_TIMEOUT: Final = SERVE_LIMITS.header_timeout
KEEP_ALIVE_TIMEOUT: Final = SERVE_LIMITS.idle_timeout
MAX_CONNECTIONS: Final = SERVE_LIMITS.max_connections
MAX_HEADER_BYTES: Final = SERVE_LIMITS.max_header_bytes


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port). Raises OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=False)


def start_in_thread(server: Any, target: Callable[[], object], name: str) -> threading.Thread:
    """Run ``target`` (which serves ``server``, a uvicorn server) in a daemon thread.

    Returns once the server accepts connections; raises RuntimeError if the
    thread ended before it did.
    """
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    pause = threading.Event()
    while not server.started and thread.is_alive():
        pause.wait(0.005)
    if not server.started:
        raise RuntimeError(f"{name} did not start")
    return thread


class ReplayServer:
    """The replay server on one socket; ``url`` is where it listens."""

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
        self.socket = bind(host, port)
        bound_host, bound_port = self.socket.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}"
        self.port: int = bound_port
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            timeout_graceful_shutdown=2,
            **uvicorn_settings(limits, self.connections),
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve in the foreground until Ctrl+C / SIGTERM (uvicorn handles both)."""
        self.server.run(sockets=[self.socket])

    def start(self) -> ReplayServer:
        """Serve in a background thread; returns once it accepts connections."""
        self._thread = start_in_thread(self.server, self.run, "inspector-serve")
        return self

    def stop(self) -> None:
        """Stop the background server and wait for it."""
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(_STOP_WAIT)
        self.socket.close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
