"""Running the replay server with uvicorn: in the foreground (CLI) or a background thread (tests).

The listening socket is bound here, before uvicorn starts, so port 0 gives a
free port whose number is known at once. uvicorn's own access log is off:
it would print request query strings, and a Gemini client may put its key
there. The app logs each request itself, without the query.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any, Final

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from .app import Connections, Log, create_app
from .catalog import Catalog

__all__ = ["ReplayServer", "bind"]

_STOP_WAIT: Final = 10.0


def _protocol_for(connections: Connections) -> type[H11Protocol]:
    """uvicorn's h11 protocol, also registering each connection's transport."""

    class RegisteringProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = get_remote_addr(transport)
            if address is not None:
                connections[address] = transport

        def connection_lost(self, exc: Exception | None) -> None:
            if self.client is not None and connections.get(self.client) is self.transport:
                del connections[self.client]
            super().connection_lost(exc)

    return RegisteringProtocol


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port). Raises OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=False)


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
    ) -> None:
        self.connections = Connections()
        self.app = create_app(catalog, speed=speed, connections=self.connections, log=log)
        self.socket = bind(host, port)
        bound_host, bound_port = self.socket.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}"
        self.port: int = bound_port
        config = uvicorn.Config(
            self.app,
            http=_protocol_for(self.connections),
            ws="none",
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve in the foreground until Ctrl+C / SIGTERM (uvicorn handles both)."""
        self.server.run(sockets=[self.socket])

    def start(self) -> ReplayServer:
        """Serve in a background thread; returns once it accepts connections."""
        self._thread = threading.Thread(target=self.run, name="inspector-serve", daemon=True)
        self._thread.start()
        pause = threading.Event()
        while not self.server.started and self._thread.is_alive():
            pause.wait(0.005)
        if not self.server.started:
            raise RuntimeError("the replay server did not start")
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
