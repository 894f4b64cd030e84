"""Where a request goes: the upstream for its path, and which protocol it speaks.

One table, :data:`STREAM_ROUTES`, names the four streaming endpoints the
proxy records (the same paths ``inspector serve`` answers on). Any other
request is still forwarded — an SDK also lists models, counts tokens, uploads
files — to the upstream its path or headers point at (:data:`UPSTREAMS`), but
it is not recorded: there is no adapter for it.

``--upstream URL`` replaces the table's hosts with one server (a compatible
server, ``inspector serve``, a test upstream); the request's path
(normalized, :mod:`.target`) and query are appended to the URL's own path.
Nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

import orjson

__all__ = ["STREAM_ROUTES", "UPSTREAMS", "Route", "model_of", "recipe", "resolve", "upstream_url"]

#: The real services, by the protocol family a request belongs to.
UPSTREAMS: Final[dict[str, str]] = {
    "openai": "https://api.openai.com",
    "anthropic": "https://api.anthropic.com",
    "google": "https://generativelanguage.googleapis.com",
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
)

#: A request that is not one of the streaming endpoints goes by these hints
#: (first match wins); OpenAI is the default, as most compatible servers are.
_GOOGLE_PATH: Final = re.compile(r"/(?:v1beta|v1alpha|upload)/|/v1/models/[^/]+:")
_ANTHROPIC_HEADERS: Final = ("anthropic-version", "x-api-key")
_GOOGLE_HEADERS: Final = ("x-goog-api-key",)


@dataclass(frozen=True, slots=True)
class Route:
    """Where one request goes, and whether it is a recorded streaming endpoint."""

    #: ``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``, or None
    #: for a request the proxy forwards without recording.
    provider: str | None
    #: ``openai``, ``anthropic`` or ``google``.
    family: str
    #: Gemini's model, from the path (the others carry it in the body).
    path_model: str | None = None


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
    ]
