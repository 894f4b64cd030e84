"""Running the proxy with uvicorn: in the current event loop, or a background thread.

The listening socket is bound here, before uvicorn starts, so port 0 gives a
free port whose number is known at once. The front's limits (header
deadline, idle time, connection cap, header size) are uvicorn settings here
(:func:`inspector.net.uvicorn_settings`), the rest live in the app. uvicorn's access log, ``Server``
and ``Date`` headers are off: requests are logged by the proxy without
their query (a Gemini key may be there), and the upstream's own ``Server``
and ``Date`` reach the app unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import uvicorn

from ..core.trace import TransportEnd
from ..live.keys import is_loopback_url
from ..net import uvicorn_settings
from ..net.server import BackgroundServer
from ..redact import warm_up
from .app import ProxySettings, create_app
from .connections import ClientConnections
from .headers import no_cookie_jar
from .log import FlowLog

__all__ = ["ProxyServer", "upstream_client"]

#: Streams still open when the proxy stops get this long to finish.
_GRACEFUL: Final = 2


def upstream_client(settings: ProxySettings) -> httpx.AsyncClient:
    """The one client every request goes upstream on.

    HTTP/2 where the upstream offers it; a connect timeout but no read
    timeout (the app decides how long it waits for a silent model, and when
    it gives up the proxy closes the upstream request); no default headers,
    so the upstream sees the app's own ``User-Agent``; no redirects followed
    (the app sees them). Proxy settings from the environment are used except
    for a loopback upstream.
    """
    loopback = settings.upstream is not None and is_loopback_url(settings.upstream)
    client = httpx.AsyncClient(
        http2=True,
        timeout=httpx.Timeout(settings.connect_timeout, read=None, pool=None),
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=32),
        trust_env=not loopback,
        follow_redirects=False,
        cookies=no_cookie_jar(),  # no state shared between exchanges or apps
    )
    for name in list(client.headers):
        del client.headers[name]
    return client


class _QuietServer(uvicorn.Server):
    """uvicorn without its signal handlers (the TUI, a test thread: the host owns signals)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class ProxyServer(BackgroundServer):
    """The recording proxy on one socket; ``url`` is where it listens."""

    thread_name = "inspector-proxy"

    def __init__(
        self,
        log: FlowLog,
        settings: ProxySettings,
        *,
        port: int = 0,
        handle_signals: bool = False,
        terminal_owned: bool = False,
    ) -> None:
        """Bind ``settings.listen_host:port``; raises OSError when that is impossible.

        ``handle_signals``: uvicorn stops on SIGINT/SIGTERM (headless).
        ``terminal_owned``: a TUI owns the terminal, so uvicorn writes nothing
        to stderr (its handler holds the real stderr and would draw over the
        screen).
        """
        self.log = log
        if log.max_record is None:
            log.max_record = settings.max_record
        if log.max_ratio is None:
            log.max_ratio = settings.max_ratio
        self.settings = settings
        warm_up()  # the secret patterns are built before the first exchange waits for them
        self.connections = ClientConnections()
        self.client = upstream_client(settings)
        self.app = create_app(log, self.client, settings, self.connections)
        self._listen(settings.listen_host, port)
        config = uvicorn.Config(
            self.app,
            log_level="critical" if terminal_owned else "warning",
            date_header=False,
            timeout_graceful_shutdown=_GRACEFUL,
            **uvicorn_settings(settings.limits, self.connections),
        )
        server_class = uvicorn.Server if handle_signals else _QuietServer
        self.server = server_class(config)
        #: Set once the proxy stops taking requests.
        self.stopped = False
        settings.stopping = lambda: self.stopped or self.server.should_exit

    @property
    def directory(self) -> Path | None:
        """Where captures go."""
        return self.log.directory

    async def serve(self) -> None:
        """Serve in the running event loop until :meth:`shutdown` (or a signal, when handled)."""
        try:
            await self.server.serve(sockets=[self.socket])
        finally:
            # Streams uvicorn did not wait for (or this task was cancelled) end
            # ``cancelled`` now, before closing the client breaks their reads.
            self.settle_open()
            await self.client.aclose()

    def settle_open(self) -> None:
        """End every exchange still open as ``cancelled`` ("the proxy stopped")."""
        self.stopped = True
        for flow in list(self.log.flows):
            if flow.live:
                flow.finish(TransportEnd("cancelled", flow.now(), "the proxy stopped"))

    def _serve(self) -> None:
        """The background thread serves on an event loop of its own."""
        import asyncio

        asyncio.run(self.serve())
