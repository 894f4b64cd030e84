"""The replay server's ASGI app (Starlette): provider endpoints that play recordings.

``POST`` to a provider's streaming path (:mod:`.services`) plays the
recording the request's ``model`` names (Gemini and Bedrock: the model in
the path), in its own framing and content type, with its recorded timing
divided by the speed, its recorded status and headers, and any faults the
request asked for (:mod:`.faults`, on the framing's frame boundaries).
``GET /`` lists what is served.

A TCP reset needs the connection's socket, which ASGI does not expose:
:class:`Connections` is filled by the uvicorn protocol in :mod:`.runner`
and looked up by the client's address.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any, Final

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..capture import Recording
from ..net import (
    BodyBudget,
    BodyRefused,
    Connections,
    FrontGuard,
    FrontLimits,
    allowed_hosts,
    kernel_unsent,
    parse_json,
    read_body,
)
from ..net.limits import SERVE_LIMITS
from ..net.offload import JsonTooLarge
from ..redact.messages import clean_message
from ..terminal import escape_controls
from .catalog import ENDPOINTS, Catalog
from .errors import RETRY_AFTER_STATUSES, error_body, error_headers
from .faults import (
    FAULT_HEADER,
    FAULTS,
    Close,
    FaultError,
    Faults,
    Send,
    Stall,
    Step,
    iter_plan,
    parse_faults,
)
from .framings import COMMENT_KEEPALIVE, KEEPALIVES, keepalive
from .headers import SafeHeaders, replayed_headers
from .services import SERVICES

__all__ = [
    "CAPTURE_PARAM",
    "COMMENT_KEEPALIVE",
    "DEFAULT_MAX_BODY",
    "KEEPALIVES",
    "Connections",
    "HostCheck",
    "allowed_hosts",
    "create_app",
    "kernel_unsent",
    "recorded_close",
]

#: How long to wait for written bytes to leave before a reset, and for the disconnect after.
_DRAIN_LIMIT: Final = 2.0
_AFTER_BREAK_LIMIT: Final = 5.0
#: Request bodies larger than this are refused (413): a replay needs only the model.
DEFAULT_MAX_BODY: Final = SERVE_LIMITS.max_body
#: Bytes sent without a pause before other clients get a turn (``speed=0``, ``chunk=1``).
_YIELD_EVERY: Final = 64 * 1024
#: The front's guard, under the name it had here (Host and cross-site checks).
HostCheck = FrontGuard

Log = Callable[[str], None]


async def _break(connections: Connections, client: tuple[str, int] | None, how: str) -> None:
    """Close the connection mid-body (FIN) or reset it (RST), once what was written has left."""
    transport = connections.get(client) if client is not None else None
    if transport is None:
        # Not under our uvicorn protocol: breaking the response is the best we can do.
        raise ConnectionAbortedError(f"{how} fault: the connection's socket is not reachable")
    loop = asyncio.get_running_loop()
    sock = transport.get_extra_info("socket")
    give_up = loop.time() + _DRAIN_LIMIT
    # Every byte written must have reached the client before the break: a reset
    # throws away whatever is still queued, in asyncio's buffer or the kernel's.
    while (transport.get_write_buffer_size() or kernel_unsent(sock)) and loop.time() < give_up:
        await asyncio.sleep(0.001)
    if how == "reset":
        if sock is not None:
            # SO_LINGER with a zero timeout: closing sends RST instead of FIN.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    else:
        transport.close()
    # Starlette cancels us as soon as the server sees the disconnect.
    await asyncio.sleep(_AFTER_BREAK_LIMIT)


def recorded_close(rec: Recording) -> str:
    """How to end a replay of ``rec``: as its own transport ended, as far as a server can.

    A recorded ``reset`` is replayed as a TCP reset when its error says the
    connection was reset, else as a connection closed mid-body (what "peer
    closed connection without sending complete message body" means). Every
    other end is a normal end of the response.
    """
    end = rec.end
    if end is None or end.reason != "reset":
        return "cut"
    return "reset" if "reset" in (end.error or "").lower() else "drop"


def _closed(connections: Connections, client: tuple[str, int] | None) -> bool:
    """Whether the client has gone (its connection closed or closing)."""
    if client is None:
        return False
    transport = connections.get(client)
    return transport is None or transport.is_closing()


async def _play(
    steps: Iterator[Step], connections: Connections, client: tuple[str, int] | None
) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    start = loop.time()
    shift = 0.0  # stalls push everything after them back
    unpaused = 0  # bytes sent since the event loop last ran anything else
    tracked = client is not None and client in connections
    for step in steps:
        if tracked and _closed(connections, client):
            return  # the client left: stop at once, nothing more to send or log
        if isinstance(step, Send):
            delay = start + step.at + shift - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
                unpaused = 0
            elif unpaused >= _YIELD_EVERY:
                # speed=0 never sleeps: let other clients (and the disconnect
                # listener) run, or one large replay would hold the loop.
                await asyncio.sleep(0)
                unpaused = 0
            unpaused += len(step.data) + 64  # the framing of a tiny piece costs too
            yield step.data
        elif isinstance(step, Stall):
            until = loop.time() + step.seconds
            while (left := until - loop.time()) > 0:
                if tracked and _closed(connections, client):
                    return
                ping = step.ping if step.every > 0 else None
                if ping is not None:
                    yield ping
                await asyncio.sleep(min(step.every, left) if ping is not None else left)
            shift += step.seconds
        elif isinstance(step, Close) and step.how != "cut":
            await _break(connections, client, step.how)


def _json_error(service: str, status: int, message: str, faults: Faults | None = None) -> Response:
    provider = SERVICES[service].provider
    headers = error_headers(provider, status)
    if status in RETRY_AFTER_STATUSES:
        headers["retry-after"] = f"{faults.retry_after if faults else 1:g}"
    return Response(
        orjson.dumps(error_body(provider, status, message)),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


#: The query parameter that names the capture on any endpoint (it wins over the model):
#: for clients that send no model (the AI SDK's ``useChat``) or a fixed one.
CAPTURE_PARAM: Final = "capture"


def chosen(request: Request, model: str | None) -> str | None:
    """The capture a request names: ``?capture=NAME``, else its model."""
    return request.query_params.get(CAPTURE_PARAM) or model


def create_app(
    catalog: Catalog,
    *,
    speed: float = 1.0,
    connections: Connections | None = None,
    log: Log | None = None,
    max_body: int | None = None,
    host: str = "127.0.0.1",
    limits: FrontLimits = SERVE_LIMITS,
) -> Starlette:
    """The Starlette app serving ``catalog`` at ``speed`` (0: no delays).

    Requests pass the front (:mod:`inspector.net`) first: a ``Host`` other
    than loopback or ``host`` (the address it is bound to) gets 421, a
    cross-site browser request 403, a body over ``limits.max_body`` (or
    ``max_body``) 413. Every log line is escaped: paths, models and messages
    come from the client. Every response carries the safe headers of
    :mod:`.headers`, and only those a capture may set.
    """
    if max_body is not None:
        limits = replace(limits, max_body=max_body, max_json=max(limits.max_json, max_body))
    conns = connections if connections is not None else Connections()
    budget = BodyBudget(limits.max_pending)

    def note(text: str) -> None:
        # A client may send a key as the model: the log shows secret shapes masked.
        if log is not None:
            log(escape_controls(clean_message(text)))

    async def play(request: Request, provider: str, model: str | None) -> Response:
        path = request.url.path
        try:
            faults = parse_faults(request.query_params, request.headers.get(FAULT_HEADER))
        except FaultError as exc:
            note(f"{request.method} {path} → 400 ({exc})")
            return _json_error(provider, 400, str(exc))
        if faults.status is not None:
            note(f"{request.method} {path} model={model} → {faults.status} (fault)")
            return _json_error(provider, faults.status, "", faults)
        entry = catalog.find(provider, model)
        if entry is None:
            served = ", ".join(catalog.names(provider)) or "none"
            asked = f"no capture named {model!r}" if model is not None else "no capture named"
            message = (
                f"{asked} is served on {path} (name one with its model or ?{CAPTURE_PARAM}=); "
                f"served: {served}"
            )
            note(f"{request.method} {path} model={model} → 404")
            return _json_error(provider, 404, message)
        rec = entry.recording
        steps = iter_plan(
            rec.chunks,
            faults,
            speed=speed,
            ping=keepalive(entry.framing, provider),
            recorded_close=recorded_close(rec),
            framing=entry.framing,
        )
        status = rec.status or 200
        described = faults.describe()
        note(
            f"{request.method} {path} model={model} → {entry.path} {status}"
            + (f" [{described}]" if described else "")
        )
        client = (request.client.host, request.client.port) if request.client else None
        return StreamingResponse(
            _play(steps, conns, client), status_code=status, headers=replayed_headers(entry)
        )

    def refused(request: Request, provider: str, exc: BodyRefused) -> Response:
        note(f"{request.method} {request.url.path} → {exc.status} ({exc.message})")
        response = _json_error(provider, exc.status, exc.message)
        if exc.status == 503:
            response.headers["retry-after"] = "1"
        return response

    async def body_model(request: Request, provider: str) -> tuple[str | None, Response | None]:
        # Answer only once the whole request is in: a client still sending its
        # body when a reset fault hits gets a failed send, and asyncio then
        # drops the response bytes it had already received.
        try:
            async with read_body(request, limits, budget) as raw:
                body = await parse_json(raw, limits.max_json) if raw.strip() else {}
        except BodyRefused as exc:
            return None, refused(request, provider, exc)
        except (orjson.JSONDecodeError, JsonTooLarge) as exc:
            return None, _json_error(provider, 400, f"the request body is not valid JSON ({exc})")
        model = body.get("model") if isinstance(body, dict) else None
        return (model if isinstance(model, str) else None), None

    def body_endpoint(provider: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            model, problem = await body_model(request, provider)
            return problem or await play(request, provider, chosen(request, model))

        return endpoint

    def chat_service(model: str | None) -> str:
        # Ollama and the AI SDK's useChat share /api/chat: see .services.
        ollama = catalog.by_provider.get("ollama", {})
        ai_sdk = catalog.by_provider.get("ai-sdk-ui", {})
        if not ai_sdk or (ollama and model is not None and model not in ai_sdk):
            return "ollama"
        return "ai-sdk-ui"

    async def api_chat(request: Request) -> Response:
        model, problem = await body_model(request, "ollama")
        name = chosen(request, model)
        return problem or await play(request, chat_service(name), name)

    def path_model_endpoint(service: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                async with read_body(request, limits, budget):
                    pass  # the model is in the path; the body is only bounded
            except BodyRefused as exc:
                return refused(request, service, exc)
            return await play(request, service, chosen(request, request.path_params["model_id"]))

        return endpoint

    async def gemini(request: Request) -> Response:
        try:
            async with read_body(request, limits, budget):
                pass  # the model is in the path; the body is only bounded
        except BodyRefused as exc:
            return refused(request, "gemini", exc)
        model, _, action = request.path_params["target"].rpartition(":")
        if action != "streamGenerateContent" or not model:
            message = f"only :streamGenerateContent is served, not {request.url.path}"
            return _json_error("gemini", 404, message)
        return await play(request, "gemini", chosen(request, model))

    async def index(request: Request) -> Response:
        endpoints: dict[str, Any] = {}
        for service in ENDPOINTS:
            if service not in catalog.by_provider:
                continue
            path = ENDPOINTS[service]
            # Two services on one path (/api/chat) are listed apart.
            endpoints[path if path not in endpoints else f"{path} ({service})"] = {
                "provider": service,
                "captures": {
                    name: catalog.by_provider[service][name].summary()
                    for name in catalog.names(service)
                },
            }
        return JSONResponse(
            {
                "server": "inspector replay server",
                "speed": speed,
                "usage": "POST to an endpoint with model=<capture name> (Gemini, Bedrock: the "
                f"model in the path) or ?{CAPTURE_PARAM}=<capture name>; an endpoint with one "
                "capture plays it for any model",
                "endpoints": endpoints,
                "faults": {
                    "how": f"query parameters, or one header {FAULT_HEADER}: name=value; ...",
                    "kinds": {name: help_text for name, (_, help_text) in FAULTS.items()},
                },
                "skipped": catalog.skipped,
            }
        )

    routes = [Route("/", index, methods=["GET"])]
    routes += [
        Route(ENDPOINTS[p], body_endpoint(p), methods=["POST"])
        for p in (
            "openai-chat",
            "openai-responses",
            "openai-completions",
            "anthropic",
            "ollama-generate",
            "cohere",
        )
    ]
    routes.append(Route("/api/chat", api_chat, methods=["POST"]))
    # A model id holds ':' and, as an inference-profile ARN, '/' (sent as %2F).
    for service, action in (
        ("bedrock-converse", "converse-stream"),
        ("bedrock-invoke", "invoke-with-response-stream"),
    ):
        route = f"/model/{{model_id:path}}/{action}"
        routes.append(Route(route, path_model_endpoint(service), methods=["POST"]))
    routes.append(Route("/v1beta/models/{target}", gemini, methods=["POST"]))
    # google-genai asks /v1/ when told api_version="v1": the same stream.
    routes.append(Route("/v1/models/{target}", gemini, methods=["POST"]))
    guard = Middleware(
        FrontGuard, allowed=allowed_hosts(host), log=note, max_header_bytes=limits.max_header_bytes
    )
    # SafeHeaders outermost: the guard's refusals get the safe headers too.
    return Starlette(routes=routes, middleware=[Middleware(SafeHeaders), guard])
