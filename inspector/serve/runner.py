"""Running the replay server with uvicorn: in the foreground (CLI) or a background thread (tests).

The listening socket is bound here, before uvicorn starts, so port 0 gives a
free port whose number is known at once. uvicorn's own access log is off:
it would print request query strings, and a Gemini client may put its key
there. The app logs each request itself, without the query, escaped.

Slow and greedy clients are bounded (see "Serving to untrusted clients" in
``docs/live.md``): a connection must finish its request headers within
:data:`HEADER_TIMEOUT` seconds of opening or of its previous response (uvicorn
itself only times out idle keep-alive connections, so a client trickling
headers would hold a connection for ever); at most :data:`MAX_CONNECTIONS`
are served at once (more get 503); request headers are capped at
:data:`MAX_HEADER_BYTES`.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any, Final

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from .app import DEFAULT_MAX_BODY, Connections, Log, create_app
from .catalog import Catalog

__all__ = ["HEADER_TIMEOUT", "MAX_CONNECTIONS", "MAX_HEADER_BYTES", "ReplayServer", "bind"]

_STOP_WAIT: Final = 10.0
#: Seconds a connection may take to send a request's headers (slowloris).
HEADER_TIMEOUT: Final = 10.0
#: Seconds an idle keep-alive connection stays open after a response.
KEEP_ALIVE_TIMEOUT: Final = 5
#: Connections served at once; beyond it requests get 503.
MAX_CONNECTIONS: Final = 256
#: Request line and headers together (h11's incomplete-event limit).
MAX_HEADER_BYTES: Final = 64 * 1024


def _protocol_for(connections: Connections, header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, registering each connection's transport and
    closing a connection that does not finish its request headers in time."""

    class RegisteringProtocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                # asyncio sets TCP_NODELAY only when the socket's proto is IPPROTO_TCP;
                # socket.create_server's is 0. Without it Nagle holds each small chunk
                # until the client acknowledges the last (up to 40 ms per chunk).
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = get_remote_addr(transport)
            if address is not None:
                connections[address] = transport
            self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_timer()
            if self.client is not None and connections.get(self.client) is self.transport:
                del connections[self.client]
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self._in_request():
                self._disarm_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_header_timer()  # the next request's headers are on the clock too

        def _in_request(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _arm_header_timer(self) -> None:
            self._disarm_header_timer()
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _disarm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self._in_request() and not self.transport.is_closing():
                self.transport.close()

    return RegisteringProtocol


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
        max_body: int = DEFAULT_MAX_BODY,
        header_timeout: float = HEADER_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.connections = Connections()
        self.app = create_app(
            catalog,
            speed=speed,
            connections=self.connections,
            log=log,
            max_body=max_body,
            host=host,
        )
        self.socket = bind(host, port)
        bound_host, bound_port = self.socket.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}"
        self.port: int = bound_port
        config = uvicorn.Config(
            self.app,
            http=_protocol_for(self.connections, header_timeout),
            ws="none",
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
            timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
            limit_concurrency=max_connections,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
            server_header=False,
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
