"""The proxy's ASGI app (Starlette): forward every request, relay and record the answer.

Theory of operation
-------------------
One catch-all route behind the front both servers share
(:mod:`inspector.net`): ``Host`` must name this machine and a browser must
not be calling on another site's behalf (:class:`~inspector.net.FrontGuard`),
the body is bounded per request, in time and across connections. The
request target becomes a path (:mod:`.target`): absolute-form only when it
names the upstream, normalized, never above the upstream's path; the
upstream URL is built from parts, so scheme, host and port are never the
request's. The request is then routed (:mod:`.routes`) and sent upstream
with the app's own headers (:mod:`.headers`) on one shared httpx client;
its JSON is read (the model, the record) in a worker thread. The
upstream's status and headers are passed on as they came, then the body is
relayed chunk by chunk: each chunk is handed to the app first and recorded
after (:class:`~.flow.Flow`), so recording adds no latency to the chunk it
records. The app gets the body as the upstream sent it; the flow decodes its
own copy (:mod:`inspector.encodings`) within the recording's budgets.

How the upstream ended is how the app's response ends: a clean end is a
clean end; a reset upstream resets the app's connection, a connection
closed mid-body closes the app's mid-body (:mod:`.connections`). An
upstream that cannot be reached at all is a ``502`` whose JSON body says
so in fixed words (never what the network said). When the app goes away,
the upstream request is closed and the capture says ``cancelled``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Final

import anyio
import httpx
import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route as StarletteRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ..core.trace import TransportEnd
from ..live.transport import transport_end
from ..net import BodyBudget, BodyRefused, FrontGuard, FrontLimits, allowed_hosts, off_loop
from ..net import read_body as read_bounded_body
from ..net.limits import PROXY_LIMITS
from ..redact import SecretSet
from .connections import ClientConnections, break_connection, reset_now
from .flow import Described, Flow, FlowRequest, describe_request
from .headers import request_headers, response_headers
from .log import FlowLog
from .routes import Route, resolve, upstreams
from .target import BadTarget, Upstream, build_url, normalize_path, origin_form

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_RATIO",
    "DEFAULT_MAX_RECORD",
    "METHODS",
    "ProxySettings",
    "create_app",
]

#: Requests bigger than this are refused (413): images in a prompt fit, a runaway upload does not.
DEFAULT_MAX_BODY: Final = PROXY_LIMITS.max_body
#: Response body bytes recorded per capture; the app still receives all of them.
DEFAULT_MAX_RECORD: Final = 256 * 1024 * 1024
#: How many times its compressed size a body the upstream compressed anyway may grow.
DEFAULT_MAX_RATIO: Final = 100
#: Request bodies shorter than this are described on the event loop (a thread costs more).
_INLINE_BODY: Final = 2048
METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

Peer = tuple[str, int] | None

#: What the app is told when the upstream cannot be reached: fixed words, by failure,
#: naming only the configured upstream — never the network's own text.
_UNREACHABLE: Final[tuple[tuple[type[httpx.RequestError], str], ...]] = (
    (httpx.ConnectTimeout, "timed out connecting to {upstream}"),
    (httpx.TimeoutException, "{upstream} did not answer in time"),
    (httpx.ConnectError, "could not connect to {upstream}"),
    (httpx.RequestError, "the request to {upstream} failed"),
)


class ProxySettings:
    """What the app needs to know about where it listens and forwards, and its limits."""

    def __init__(
        self,
        *,
        listen_host: str = "127.0.0.1",
        upstream: str | None = None,
        max_body: int | None = None,
        connect_timeout: float = 30.0,
        limits: FrontLimits = PROXY_LIMITS,
        max_record: int = DEFAULT_MAX_RECORD,
        max_ratio: int = DEFAULT_MAX_RATIO,
    ) -> None:
        self.listen_host = listen_host
        self.upstream = upstream
        if max_body is not None:
            limits = replace(limits, max_body=max_body)
        self.limits = limits
        self.max_body = limits.max_body
        self.connect_timeout = connect_timeout
        self.max_record = max_record
        self.max_ratio = max_ratio
        #: Whether the server is shutting down (set by whoever runs the app).
        self.stopping: Callable[[], bool] = lambda: False

    @property
    def upstreams(self) -> tuple[Upstream, ...]:
        """The upstreams an absolute-form target may name: ``--upstream``, else none."""
        return (Upstream.parse(self.upstream),) if self.upstream is not None else ()


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


def _unreachable(exc: httpx.RequestError, url: httpx.URL) -> str:
    # url is the one build_url made: the configured upstream's host and port.
    upstream = f"{url.host}:{url.port}" if url.port else url.host
    return next(text for kind, text in _UNREACHABLE if isinstance(exc, kind)).format(
        upstream=upstream
    )


class TargetForm:
    """ASGI middleware: the request target as a path, or a 400 (see :mod:`.target`).

    An absolute-form or authority-form target naming the upstream becomes
    the origin-form path it stands for; any other non-path target (``*``, a
    ``CONNECT``, another host) is refused before routing.
    """

    def __init__(self, app: ASGIApp, upstreams: tuple[Upstream, ...]) -> None:
        self.app = app
        self.upstreams = upstreams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = scope.get("raw_path") or scope["path"].encode("latin-1")
        try:
            if scope["method"] == "CONNECT":
                raise BadTarget("the proxy does not open tunnels (CONNECT)")
            path = origin_form(raw.decode("latin-1"), self.upstreams)
        except BadTarget as exc:
            await _error(400, "bad_target", str(exc))(scope, receive, send)
            return
        if path.encode("latin-1") != raw:
            scope = {**scope, "raw_path": path.encode("latin-1"), "path": path}
        await self.app(scope, receive, send)


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
        except asyncio.CancelledError:
            if not self.settings.stopping():
                raise
            # The proxy is stopping and uvicorn cancels what is still streaming: the
            # flow ends "cancelled" below; no traceback for an expected shutdown.
        finally:
            with anyio.CancelScope(shield=True):
                await self.upstream.aclose()
            if self.flow.live:
                why = _why_cancelled(self.flow, self.settings)
                self.flow.finish(TransportEnd("cancelled", self.flow.now(), why))


def _describe(
    request: FlowRequest, headers: list[tuple[str, str]], route: Route, max_json: int
) -> tuple[SecretSet, Described]:
    """This exchange's credentials and its scrubbed record (may run in a worker thread)."""
    secrets = SecretSet.for_request(url=request.upstream, headers=headers, body=request.body)
    return secrets, describe_request(request, route, secrets, max_json)


def create_app(
    log: FlowLog,
    client: httpx.AsyncClient,
    settings: ProxySettings,
    connections: ClientConnections | None = None,
) -> Starlette:
    """The Starlette app that proxies to ``settings.upstream`` (or each provider's host)."""
    conns = connections if connections is not None else ClientConnections()
    limits = settings.limits
    budget = BodyBudget(limits.max_pending)
    override = Upstream.parse(settings.upstream) if settings.upstream is not None else None
    families = {family: Upstream.parse(url) for family, url in upstreams(os.environ).items()}

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

    async def begin(request: Request, body: bytes) -> tuple[Flow, httpx.Request]:
        """The flow for this request, and the request to send upstream (raises BadTarget)."""
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        path = normalize_path(raw_path.decode("latin-1"))
        query = request.scope.get("query_string", b"").decode("latin-1")
        route = resolve(request.method, path, {k.lower(): v for k, v in request.headers.items()})
        url = build_url(override or families[route.family], path, query)
        forwarded = request_headers(request.headers.raw)
        try:
            outgoing = client.build_request(request.method, url, headers=forwarded, content=body)
        except httpx.InvalidURL as exc:
            raise BadTarget(f"cannot forward this request: {exc}") from None
        as_sent = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in forwarded]
        flow_request = FlowRequest(request.method, path, query, as_sent, body, str(url))
        headers = list(request.headers.items())
        # Reading the credentials and parsing a large JSON body take a while: not on the
        # event loop (a small one is quicker done than handed to a thread).
        if len(body) < _INLINE_BODY:
            secrets, described = _describe(flow_request, headers, route, limits.max_json)
        else:
            secrets, described = await off_loop(
                _describe, flow_request, headers, route, limits.max_json
            )
        flow = log.begin(flow_request, route, described.model, secrets, described=described)
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
            return _error(502, "upstream_unreachable", _unreachable(exc, outgoing.url))
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

    async def forward(request: Request) -> Response:
        try:
            async with read_bounded_body(request, limits, budget) as body:
                try:
                    flow, outgoing = await begin(request, body)
                except BadTarget as exc:
                    return _error(400, "bad_target", str(exc))
                peer = (request.client.host, request.client.port) if request.client else None
                upstream = await send_upstream(outgoing, flow, peer)
        except BodyRefused as exc:
            kinds = {413: "request_too_large", 408: "request_timeout", 503: "proxy_busy"}
            response = _error(exc.status, kinds.get(exc.status, "refused"), exc.message)
            if exc.status == 503:
                response.headers["retry-after"] = "1"
            return response
        except ClientDisconnect:
            return Response(status_code=400)
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

    # The front's guard: a Host that is not this machine is a 421 (DNS rebinding),
    # a browser request from another site a 403; then the target becomes a path.
    guard = Middleware(
        FrontGuard,
        allowed=allowed_hosts(settings.listen_host),
        max_header_bytes=limits.max_header_bytes,
    )
    target = Middleware(TargetForm, upstreams=settings.upstreams)
    return Starlette(
        routes=[StarletteRoute("/{path:path}", forward, methods=METHODS)],
        middleware=[guard, target],
    )
