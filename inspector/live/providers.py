"""How to ask each provider for a stream: endpoint, headers, body — one table.

Every provider gets one :class:`ProviderSpec` row in :data:`PROVIDER_SPECS`.
:func:`build_request` turns a row plus the user's options into the exact
request live mode sends (:class:`LiveRequest`). Nothing here does I/O.

``--base-url`` is joined so both common conventions work: a server root
(``http://127.0.0.1:8765``) gets the full path (``/v1/chat/completions``),
and a base that already ends with the API version (``http://localhost:11434/v1``,
``https://openrouter.ai/api/v1``) does not get it twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, urlsplit

from . import protocol_bodies as pb

__all__ = [
    "PROVIDER_SPECS",
    "LiveRequest",
    "ProviderSpec",
    "RequestError",
    "build_request",
    "join_url",
    "tools_for",
]

#: What live mode sends in a new conversation when only ``--prompt`` is given.
ANTHROPIC_VERSION: Final = "2023-06-01"
ANTHROPIC_MAX_TOKENS: Final = 1024  # required by the Messages API; --request overrides it


class RequestError(ValueError):
    """The options cannot make a request (no model, bad tools file, ...)."""


@dataclass(frozen=True, slots=True)
class LiveRequest:
    """One streaming request, exactly as it will be sent (the key included)."""

    provider: str
    model: str
    method: str
    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    #: How the response body is framed (``sse``, ``ndjson``, ``aws-eventstream``).
    framing: str = "sse"

    @property
    def endpoint(self) -> str:
        """The URL's path, e.g. ``/v1/messages``."""
        return urlsplit(self.url).path


def _auth_bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def _auth_anthropic(key: str) -> dict[str, str]:
    return {"x-api-key": key}


def _auth_google(key: str) -> dict[str, str]:
    return {"x-goog-api-key": key}


def _user_text(prompt: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": prompt}]


def _body_chat(model: str, prompt: str) -> dict[str, Any]:
    # include_usage: without it Chat Completions streams carry no token counts.
    return {
        "model": model,
        "messages": _user_text(prompt),
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def _body_responses(model: str, prompt: str) -> dict[str, Any]:
    return {"model": model, "input": prompt, "stream": True}


def _body_anthropic(model: str, prompt: str) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": ANTHROPIC_MAX_TOKENS,
        "messages": _user_text(prompt),
        "stream": True,
    }


def _body_gemini(model: str, prompt: str) -> dict[str, Any]:
    # The model is in the URL, not the body.
    return {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}


def _tool_chat(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": dict(tool)}


def _tool_responses(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", **tool}


def _tool_anthropic(tool: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in tool.items() if k != "parameters"}
    out["input_schema"] = tool.get("parameters") or {"type": "object", "properties": {}}
    return out


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """One provider's streaming endpoint and request shape."""

    base_url: str
    #: The path; ``{model}`` is replaced by the URL-quoted model name.
    path: str
    #: Environment variables holding the key, in the order they are tried.
    key_env: tuple[str, ...]
    auth: Callable[[str], dict[str, str]]
    body: Callable[[str, str], dict[str, Any]]
    #: Query parameters the endpoint needs to stream (Gemini: ``alt=sse``).
    query: str = ""
    #: Extra headers every request carries.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Neutral tool {name, description, parameters} -> this provider's tool.
    tool: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: Whether the body carries ``model`` and ``stream`` (Gemini: neither).
    body_has_model: bool = True
    #: The adapter that reads the stream, when it is not the row's name.
    adapter: str | None = None
    #: How the response body is framed.
    framing: str = "sse"
    #: Whether a request must name a model (an AI SDK route chooses its own).
    needs_model: bool = True
    #: Where the tools go in the body (Converse: ``toolConfig.tools``).
    tools_at: tuple[str, ...] = ("tools",)
    #: How the request is authenticated: ``key`` (``auth`` with the key) or ``aws``
    #: (a Bedrock API key, else SigV4: :mod:`.aws`).
    signer: str = "key"


_Body = Callable[[str, str], dict[str, Any]]
_Tool = Callable[[Mapping[str, Any]], dict[str, Any]]


def _bearer(
    base_url: str, key_env: tuple[str, ...], path: str, body: _Body, **extra: Any
) -> ProviderSpec:
    """A route whose key goes in ``Authorization: Bearer``."""
    return ProviderSpec(
        base_url=base_url, path=path, key_env=key_env, auth=_auth_bearer, body=body, **extra
    )


def _openai(path: str, body: _Body, tool: _Tool | None = None) -> ProviderSpec:
    """One of OpenAI's streaming APIs: the same host and key."""
    return _bearer("https://api.openai.com", ("OPENAI_API_KEY",), path, body, tool=tool)


def _bedrock(path: str, body: _Body, tool: _Tool, **extra: Any) -> ProviderSpec:
    """One of Bedrock's two streaming routes: the model in the path, an event-stream
    body, a Bedrock API key or SigV4 (:mod:`.aws`)."""
    return _bearer(
        "https://bedrock-runtime.us-east-1.amazonaws.com",  # the region's: .aws
        ("AWS_BEARER_TOKEN_BEDROCK",),
        path,
        body,
        headers={"accept": "application/vnd.amazon.eventstream"},
        tool=tool,
        body_has_model=False,
        framing="aws-eventstream",
        signer="aws",
        **extra,
    )


def _ollama(path: str, body: _Body, **extra: Any) -> ProviderSpec:
    """One of Ollama's two NDJSON routes on the local server (no key locally;
    ollama.com's hosted API takes a bearer)."""
    return _bearer(
        "http://127.0.0.1:11434",
        ("OLLAMA_API_KEY",),
        path,
        body,
        headers={"accept": "application/x-ndjson"},
        framing="ndjson",
        **extra,
    )


PROVIDER_SPECS: Final[dict[str, ProviderSpec]] = {
    "openai-chat": _openai("/v1/chat/completions", _body_chat, _tool_chat),
    "openai-responses": _openai("/v1/responses", _body_responses, _tool_responses),
    "anthropic": ProviderSpec(
        base_url="https://api.anthropic.com",
        path="/v1/messages",
        key_env=("ANTHROPIC_API_KEY",),
        auth=_auth_anthropic,
        body=_body_anthropic,
        headers={"anthropic-version": ANTHROPIC_VERSION},
        tool=_tool_anthropic,
    ),
    "gemini": ProviderSpec(
        base_url="https://generativelanguage.googleapis.com",
        path="/v1beta/models/{model}:streamGenerateContent",
        key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        auth=_auth_google,
        body=_body_gemini,
        query="alt=sse",
        tool=None,  # one Tool object holding every declaration: see tools_for
        body_has_model=False,
    ),
    # The protocols beyond the v1 four (bodies: .protocol_bodies; Bedrock's auth: .aws).
    "bedrock-converse": _bedrock(
        "/model/{model}/converse-stream",
        pb.body_bedrock_converse,
        pb.tool_bedrock_converse,
        tools_at=("toolConfig", "tools"),
    ),
    "bedrock-invoke": _bedrock(
        "/model/{model}/invoke-with-response-stream",
        pb.body_bedrock_invoke,
        _tool_anthropic,
        adapter="anthropic",  # Claude's events, unwrapped from the event stream's chunks
    ),
    "ollama": _ollama("/api/chat", pb.body_ollama_chat, tool=_tool_chat),
    "ollama-generate": _ollama("/api/generate", pb.body_ollama_generate, adapter="ollama"),
    "cohere": _bearer(
        "https://api.cohere.com",
        ("CO_API_KEY", "COHERE_API_KEY"),
        "/v2/chat",
        pb.body_cohere,
        tool=_tool_chat,
    ),
    "openai-completions": _openai("/v1/completions", pb.body_completions),
    "ai-sdk-ui": _bearer(
        "http://127.0.0.1:3000",  # the app's own route (`next dev`'s port)
        (),  # the app's own auth, if any: --header
        "/api/chat",
        pb.body_ai_sdk_ui,
        body_has_model=False,
        needs_model=False,
    ),
}


def join_url(base_url: str, path: str, query: str = "") -> str:
    """``base_url`` + ``path`` (+ ``query``), without repeating a version segment.

    ``http://h/v1`` + ``/v1/chat/completions`` is ``http://h/v1/chat/completions``;
    a query already on the base URL is kept, before the endpoint's own.
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RequestError(f"--base-url {base_url!r} is not an http:// or https:// URL")
    base_path = parts.path.rstrip("/")
    first = "/" + path.lstrip("/").split("/", 1)[0]  # "/v1" or "/v1beta"
    if base_path.endswith(first):
        base_path = base_path[: -len(first)]
    queries = [q for q in (parts.query, query) if q]
    url = f"{parts.scheme}://{parts.netloc}{base_path}{path}"
    return url + ("?" + "&".join(queries) if queries else "")


def _is_neutral_tool(tool: Any) -> bool:
    # {name, description?, parameters?} and nothing provider-specific.
    native = {"type", "function", "input_schema", "functionDeclarations", "function_declarations"}
    return (
        isinstance(tool, Mapping) and isinstance(tool.get("name"), str) and not native & set(tool)
    )


def tools_for(provider: str, tools: Any) -> list[Any]:
    """The ``tools`` field for ``provider`` from a tools file's content.

    A file holds a JSON list. Entries in the neutral form ``{"name",
    "description", "parameters"}`` (JSON Schema) are converted to the
    provider's shape, so one file works for all four providers; any other
    entry is taken to be in the provider's own shape already and passed as is.
    """
    if not isinstance(tools, list):
        raise RequestError("the tools file must hold a JSON list of tools")
    spec = PROVIDER_SPECS[provider]
    neutral = [t for t in tools if _is_neutral_tool(t)]
    native = [t for t in tools if not _is_neutral_tool(t)]
    if provider == "gemini":
        declarations = [dict(t) for t in neutral]
        return native + ([{"functionDeclarations": declarations}] if declarations else [])
    if spec.tool is None:
        raise RequestError(f"--tools is not supported for {provider}; put them in --request")
    return [spec.tool(t) for t in neutral] + native


def build_request(
    provider: str,
    *,
    model: str | None,
    prompt: str | None = None,
    body: Mapping[str, Any] | None = None,
    tools: Any = None,
    base_url: str | None = None,
    headers: Sequence[tuple[str, str]] = (),
    api_key: str | None = None,
) -> LiveRequest:
    """The streaming request for ``provider``; see the module docstring.

    Give ``prompt`` for a one-message conversation, or ``body`` for a request
    body of your own (``model`` and the stream flag are set on it). ``model``
    may be omitted when ``body`` names one.
    """
    spec = PROVIDER_SPECS.get(provider)
    if spec is None:
        raise RequestError(
            f"unknown provider {provider!r}; expected one of {', '.join(PROVIDER_SPECS)}"
        )
    if (prompt is None) == (body is None):
        raise RequestError("give exactly one of --prompt TEXT or --request FILE.json")
    if body is not None:
        out = dict(body)
        chosen = model or (out.get("model") if isinstance(out.get("model"), str) else None)
    else:
        chosen = model
        out = {}
    if not chosen and spec.needs_model:
        raise RequestError(f"{provider} needs a model: pass --model NAME")
    chosen = chosen or ""
    if prompt is not None:
        out = spec.body(chosen, prompt)
    elif spec.body_has_model:
        out["model"] = chosen
        out["stream"] = True
    if tools is not None:
        *outer, last = spec.tools_at
        place = out
        for key in outer:
            place = place.setdefault(key, {})
        place[last] = tools_for(provider, tools)
    url = join_url(
        base_url or spec.base_url, spec.path.format(model=quote(chosen, safe="")), spec.query
    )
    sent: dict[str, str] = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        # Identity: chunks are recorded as the server sent them, not re-cut by a decompressor.
        "accept-encoding": "identity",
        **spec.headers,
    }
    if api_key:
        sent.update(spec.auth(api_key))
    for name, value in headers:
        sent[name.strip().lower()] = value.strip()
    return LiveRequest(spec.adapter or provider, chosen, "POST", url, sent, out, spec.framing)
