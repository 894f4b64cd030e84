"""The proxy's ASGI app (Starlette): forward every request, relay and record the answer.

Theory of operation
-------------------
One catch-all route. A request is checked — ``Host`` must name this
machine, so a web page cannot reach the proxy through DNS rebinding (the
replay server's :class:`~inspector.serve.app.HostCheck`), and the body is
bounded — then routed (:mod:`.routes`) and sent upstream with the app's own
headers (:mod:`.headers`) on one shared httpx client. The upstream's status
and headers are passed on as they came, then the body is relayed chunk by
chunk: each chunk is handed to the app first and recorded after
(:class:`~.flow.Flow`), so recording adds no latency to the chunk it
records.

How the upstream ended is how the app's response ends: a clean end is a
clean end; a reset upstream resets the app's connection, a connection
closed mid-body closes the app's mid-body (:mod:`.connections`). An
upstream that cannot be reached at all is a ``502`` whose JSON body says
why. When the app goes away, the upstream request is closed and the
capture says ``cancelled``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Final

import anyio
import httpx
import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route as StarletteRoute
from starlette.types import Receive, Scope, Send

from ..core.trace import TransportEnd
from ..live.transport import transport_end
from ..redact import SecretSet
from ..serve.app import HostCheck, allowed_hosts
from .connections import ClientConnections, break_connection, reset_now
from .flow import Flow, FlowRequest
from .headers import request_headers, response_headers
from .log import FlowLog
from .routes import model_of, resolve, upstream_url

__all__ = ["DEFAULT_MAX_BODY", "METHODS", "ProxySettings", "create_app"]

#: Requests bigger than this are refused (413): images in a prompt fit, a runaway upload does not.
DEFAULT_MAX_BODY: Final = 32 * 1024 * 1024
METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

Peer = tuple[str, int] | None


class ProxySettings:
    """What the app needs to know about where it listens and forwards."""

    def __init__(
        self,
        *,
        listen_host: str = "127.0.0.1",
        upstream: str | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        connect_timeout: float = 30.0,
    ) -> None:
        self.listen_host = listen_host
        self.upstream = upstream
        self.max_body = max_body
        self.connect_timeout = connect_timeout
        #: Whether the server is shutting down (set by whoever runs the app).
        self.stopping: Callable[[], bool] = lambda: False


def _why_cancelled(flow: Flow, settings: ProxySettings) -> str:
    if flow.cancelled:
        return "stopped in the inspector"
    if settings.stopping():
        return "the proxy stopped"
    return "the app closed the connection"


def _error(status: int, kind: str, message: str) -> Response:
    body = {"error": {"type": kind, "message": f"inspector proxy: {message}"}}
    return Response(
        orjson.dumps(body),
        status_code=status,
        media_type="application/json",
        headers={"x-inspector-proxy": kind},
    )


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The whole request body, or None when it is longer than ``limit``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    parts: list[bytes] = []
    size = 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            return None
        parts.append(part)
    return b"".join(parts)


class _RelayResponse(StreamingResponse):
    """A streamed answer that always settles its flow and closes the upstream response.

    The relay generator settles the flow itself with the exact moment and
    reason; this covers the one case it cannot: the app leaving (or the flow
    being stopped) before the generator ever ran.
    """

    def __init__(self, body: AsyncIterator[bytes], upstream: httpx.Response, flow: Flow,
                 settings: ProxySettings) -> None:  # fmt: skip
        super().__init__(body, status_code=upstream.status_code)
        self.raw_headers = response_headers(upstream.headers.raw)
        self.upstream = upstream
        self.flow = flow
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await self.upstream.aclose()
            if self.flow.live:
                why = _why_cancelled(self.flow, self.settings)
                self.flow.finish(TransportEnd("cancelled", self.flow.now(), why))


def create_app(
    log: FlowLog,
    client: httpx.AsyncClient,
    settings: ProxySettings,
    connections: ClientConnections | None = None,
) -> Starlette:
    """The Starlette app that proxies to ``settings.upstream`` (or each provider's host)."""
    conns = connections if connections is not None else ClientConnections()

    async def relay(
        upstream: httpx.Response, flow: Flow, url: str, peer: Peer
    ) -> AsyncIterator[bytes]:
        try:
            # The body as sent (raw, matching its headers); the flow decodes its copy.
            async for data in upstream.aiter_raw():
                time = flow.now()
                try:
                    yield data  # to the app first…
                finally:
                    flow.chunk(time, data)  # …then to the capture
            end = TransportEnd("eof", flow.now())
        except httpx.RequestError as exc:
            end = transport_end(exc, url, flow.now(), settings.connect_timeout)
        except (asyncio.CancelledError, GeneratorExit):
            flow.finish(TransportEnd("cancelled", flow.now(), _why_cancelled(flow, settings)))
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await upstream.aclose()
        flow.finish(end)
        if end.reason != "eof":
            await break_connection(conns, peer, reset="reset" in (end.error or "").lower())

    def begin(request: Request, body: bytes) -> tuple[Flow, httpx.Request]:
        """The flow for this request, and the request to send upstream."""
        # The path as the app sent it (still percent-encoded): forwarded unchanged,
        # and the Gemini model in it is decoded exactly once.
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        path = raw_path.decode("latin-1")
        query = request.scope.get("query_string", b"").decode("latin-1")
        route = resolve(request.method, path, {k.lower(): v for k, v in request.headers.items()})
        url = upstream_url(route, path, query, settings.upstream)
        forwarded = request_headers(request.headers.raw)
        # Raises httpx.InvalidURL for a target httpx cannot send (before any flow exists).
        outgoing = client.build_request(request.method, url, headers=forwarded, content=body)
        as_sent = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in forwarded]
        flow = log.begin(
            FlowRequest(request.method, path, query, as_sent, body, url),
            route,
            model_of(route, body),
            SecretSet.for_request(url=url, headers=request.headers.items(), body=body),
        )
        return flow, outgoing

    async def send_upstream(
        outgoing: httpx.Request, flow: Flow, peer: Peer
    ) -> httpx.Response | Response:
        """The upstream's response, or (it could not be had) the proxy's answer to the app."""
        task = asyncio.current_task()
        if task is not None:
            flow.on_cancel = task.cancel
        flow.start()
        try:
            upstream = await client.send(outgoing, stream=True)
        except httpx.RequestError as exc:
            end = transport_end(exc, str(outgoing.url), flow.now(), settings.connect_timeout)
            flow.finish(end)
            return _error(502, "upstream_unreachable", end.error or "the upstream failed")
        except asyncio.CancelledError:
            flow.finish(TransportEnd("cancelled", flow.now(), _why_cancelled(flow, settings)))
            if not flow.cancelled or task is None:
                raise
            # Our own cancel (from a view), not the server's: the app's
            # connection is reset and gets no answer.
            task.uncancel()
            reset_now(conns, peer)
            return Response(status_code=499)
        # From now on stopping the flow resets the app's connection; Starlette
        # then cancels the relay, which ends the capture ``cancelled``.
        flow.on_cancel = lambda: reset_now(conns, peer)
        return upstream

    async def handle(request: Request) -> Response:
        try:
            body = await _read_body(request, settings.max_body)
        except ClientDisconnect:
            return Response(status_code=400)
        if body is None:
            return _error(413, "request_too_large", f"bodies over {settings.max_body} bytes")
        try:
            flow, outgoing = begin(request, body)
        except httpx.InvalidURL as exc:
            return _error(400, "bad_target", f"cannot forward this request: {exc}")
        peer = (request.client.host, request.client.port) if request.client else None
        upstream = await send_upstream(outgoing, flow, peer)
        if isinstance(upstream, Response):
            return upstream
        flow.response(
            upstream.status_code,
            upstream.http_version,
            {k.lower(): v for k, v in upstream.headers.items()},
            set_cookies=upstream.headers.get_list("set-cookie"),
        )
        body_stream = relay(upstream, flow, str(outgoing.url), peer)
        return _RelayResponse(body_stream, upstream, flow, settings)

    # The replay server's guard: a Host that is not this machine is a 421 (DNS rebinding).
    guard = Middleware(HostCheck, allowed=allowed_hosts(settings.listen_host))
    return Starlette(
        routes=[StarletteRoute("/{path:path}", handle, methods=METHODS)], middleware=[guard]
    )
