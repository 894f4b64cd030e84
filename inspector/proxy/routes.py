"""Where a request goes: the upstream for its path, and which protocol it speaks.

One table, :data:`STREAM_ROUTES`, names the streaming endpoints the proxy
records (the same paths ``inspector serve`` answers on: a test checks they
agree). Which framing a recorded response is in comes from its content type
(:func:`framing_of_response`); ``/api/chat`` is Ollama's unless the response
is SSE, which is the AI SDK's UI message stream. Any other
request is still forwarded — an SDK also lists models, counts tokens, uploads
files — to the upstream its path or headers point at (:data:`UPSTREAMS`), but
it is not recorded: there is no adapter for it.

``--upstream URL`` replaces the table's hosts with one server (a compatible
server, ``inspector serve``, a test upstream); the request's path
(normalized, :mod:`.target`) and query are appended to the URL's own path.
Nothing here does I/O.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

import orjson

__all__ = [
    "STREAM_ROUTES",
    "UPSTREAMS",
    "Route",
    "framing_of_response",
    "model_of",
    "provider_of_response",
    "recipe",
    "resolve",
    "upstream_url",
    "upstreams",
]

#: The real services, by the protocol family a request belongs to.
UPSTREAMS: Final[dict[str, str]] = {
    "openai": "https://api.openai.com",
    "anthropic": "https://api.anthropic.com",
    "google": "https://generativelanguage.googleapis.com",
    "bedrock": "https://bedrock-runtime.us-east-1.amazonaws.com",  # the region's: upstreams()
    "ollama": "http://127.0.0.1:11434",
    "cohere": "https://api.cohere.com",
}

#: (path pattern, provider, upstream family). Gemini's model is in the path;
#: the API version may be v1, v1beta or v1alpha.
STREAM_ROUTES: Final[tuple[tuple[re.Pattern[str], str, str], ...]] = (
    (re.compile(r"/v1/chat/completions"), "openai-chat", "openai"),
    (re.compile(r"/v1/responses"), "openai-responses", "openai"),
    (re.compile(r"/v1/messages"), "anthropic", "anthropic"),
    (
        re.compile(r"/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):streamGenerateContent"),
        "gemini",
        "google",
    ),
    (re.compile(r"/v1/completions"), "openai-completions", "openai"),
    (re.compile(r"/model/(?P<model>[^/]+)/converse-stream"), "bedrock-converse", "bedrock"),
    # Claude's own events inside the event stream: read by the Anthropic adapter.
    (re.compile(r"/model/(?P<model>[^/]+)/invoke-with-response-stream"), "anthropic", "bedrock"),
    (re.compile(r"/api/chat"), "ollama", "ollama"),
    (re.compile(r"/api/generate"), "ollama", "ollama"),
    (re.compile(r"/v2/chat"), "cohere", "cohere"),
)

#: Response media type -> the framing it is recorded in; the Gemini stream without
#: ``alt=sse`` is ``application/json`` (one JSON array).
_STREAM_TYPES: Final[dict[str, str]] = {
    "text/event-stream": "sse",
    "application/vnd.amazon.eventstream": "aws-eventstream",
    "application/x-ndjson": "ndjson",
    "application/ndjson": "ndjson",
}

#: A request that is not one of the streaming endpoints goes by these hints
#: (first match wins); OpenAI is the default, as most compatible servers are.
_GOOGLE_PATH: Final = re.compile(r"/(?:v1beta|v1alpha|upload)/|/v1/models/[^/]+:")
_ANTHROPIC_HEADERS: Final = ("anthropic-version", "x-api-key")
#: Path prefixes of the other families' APIs (Ollama's /api/tags, Bedrock's
#: /model/{id}/converse, Cohere's /v2/embed): never sent to OpenAI by default.
_PREFIXES: Final = (("/api/", "ollama"), ("/model/", "bedrock"), ("/v2/", "cohere"))
_GOOGLE_HEADERS: Final = ("x-goog-api-key",)


@dataclass(frozen=True, slots=True)
class Route:
    """Where one request goes, and whether it is a recorded streaming endpoint."""

    #: ``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``, or None
    #: for a request the proxy forwards without recording.
    provider: str | None
    #: ``openai``, ``anthropic``, ``google``, ``bedrock``, ``ollama`` or ``cohere``.
    family: str
    #: Gemini's model, from the path (the others carry it in the body).
    path_model: str | None = None


def upstreams(environ: Mapping[str, str]) -> dict[str, str]:
    """:data:`UPSTREAMS` with Bedrock's endpoint in the region of ``AWS_REGION``
    (or ``AWS_DEFAULT_REGION``); a value that is no region name keeps the default."""
    from ..live.aws import bedrock_base_url

    table = dict(UPSTREAMS)
    with contextlib.suppress(ValueError):
        table["bedrock"] = bedrock_base_url(environ)
    return table


def framing_of_response(route: Route, headers: Mapping[str, str]) -> str | None:
    """The framing a response on ``route`` streams in, or None when it is no stream
    (``headers`` with lower-case names)."""
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if media == "application/json" and route.provider == "gemini":
        return "json-array"
    return _STREAM_TYPES.get(media)


def provider_of_response(route: Route, framing: str | None) -> str | None:
    """Which adapter reads the response: the route's, except SSE on Ollama's ``/api/chat``
    (the AI SDK's ``useChat`` posts there too, and is answered in SSE)."""
    if route.family == "ollama" and framing == "sse":
        return "ai-sdk-ui"
    return route.provider


def resolve(method: str, path: str, headers: Mapping[str, str]) -> Route:
    """The route of a request (``headers`` with lower-case names)."""
    if method == "POST":
        for pattern, provider, family in STREAM_ROUTES:
            match = pattern.fullmatch(path)
            if match is not None:
                model = match.groupdict().get("model")
                return Route(provider, family, unquote(model) if model else None)
    if _GOOGLE_PATH.match(path) or any(h in headers for h in _GOOGLE_HEADERS):
        return Route(None, "google")
    if path.startswith("/v1/messages") or any(h in headers for h in _ANTHROPIC_HEADERS):
        return Route(None, "anthropic")
    for prefix, family in _PREFIXES:
        if path.startswith(prefix):
            return Route(None, family)
    return Route(None, "openai")


def upstream_url(route: Route, path: str, query: str, override: str | None) -> str:
    """The URL to forward to: the override's (or the family's) origin and path, then
    ``path`` normalized; built from parts (:mod:`.target`), raises
    :class:`~.target.BadTarget` for a path that would leave the upstream's."""
    from .target import Upstream, build_url, normalize_path

    base = override if override is not None else UPSTREAMS[route.family]
    return str(build_url(Upstream.parse(base), normalize_path(path), query))


def model_of(route: Route, body: bytes) -> str | None:
    """The model the request asks for: Gemini's from the path, else the body's ``model``."""
    if route.path_model is not None:
        return route.path_model
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    model = parsed.get("model") if isinstance(parsed, dict) else None
    return model if isinstance(model, str) else None


def recipe(url: str) -> list[str]:
    """How to point each SDK at the proxy listening at ``url`` (docs/proxy.md has the details)."""
    return [
        f"OPENAI_BASE_URL={url}/v1",
        f"ANTHROPIC_BASE_URL={url}",
        f"GOOGLE_GEMINI_BASE_URL={url}",
        # The clients of the newer protocols read these (botocore: a Bedrock API key only).
        f"AWS_ENDPOINT_URL_BEDROCK_RUNTIME={url}",
        f"OLLAMA_HOST={url}",
        f"CO_API_URL={url}",
    ]
