"""What the replay server answers where: one row per streaming endpoint it serves.

A *service* is one provider endpoint: its path, whose error shapes it
answers with, and the framings its recordings may stream in. A recording is
served by the service :func:`service_of` picks from its provider, its
framing and (where one provider streams on two paths) the endpoint its
header recorded:

======================  ==============================================  =======================
service                 path                                            framing
======================  ==============================================  =======================
``openai-chat``         ``/v1/chat/completions``                        SSE
``openai-responses``    ``/v1/responses``                               SSE
``openai-completions``  ``/v1/completions``                             SSE
``anthropic``           ``/v1/messages``                                SSE
``gemini``              ``/v1beta/models/{model}:streamGenerateContent``  SSE or JSON array
``bedrock-converse``    ``/model/{modelId}/converse-stream``            AWS event stream
``bedrock-invoke``      ``/model/{modelId}/invoke-with-response-stream``  AWS event stream
``ollama``         ``/api/chat``                                   NDJSON
``ollama-generate``     ``/api/generate``                               NDJSON
``cohere``              ``/v2/chat``                                    SSE
``ai-sdk-ui``           ``/api/chat``                                   SSE
======================  ==============================================  =======================

Ollama and the AI SDK's ``useChat`` both post to ``/api/chat``: a request
whose body names a ``model`` is Ollama's unless that model names an AI SDK
capture; one without (``useChat`` sends none) is the AI SDK's. Nothing here
does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import orjson

from ..core.adapters.bedrock_inner import ADAPTER_CLASSES as BEDROCK_INNER

__all__ = ["SERVICES", "Service", "service_of"]


@dataclass(frozen=True, slots=True)
class Service:
    """One streaming endpoint the replay server answers on."""

    name: str
    #: The path as listed (``{model}`` / ``{modelId}``: the model is in the path).
    path: str
    #: Whose error bodies the endpoint answers with (:mod:`.errors`).
    provider: str
    #: The framings a recording served here may stream in.
    framings: tuple[str, ...] = ("sse",)


SERVICES: Final[dict[str, Service]] = {
    s.name: s
    for s in (
        Service("openai-chat", "/v1/chat/completions", "openai-chat"),
        Service("openai-responses", "/v1/responses", "openai-responses"),
        Service("openai-completions", "/v1/completions", "openai-completions"),
        Service("anthropic", "/v1/messages", "anthropic"),
        Service(
            "gemini",
            "/v1beta/models/{model}:streamGenerateContent",
            "gemini",
            ("sse", "json-array"),
        ),
        Service(
            "bedrock-converse",
            "/model/{modelId}/converse-stream",
            "bedrock-converse",
            ("aws-eventstream",),
        ),
        Service(
            "bedrock-invoke",
            "/model/{modelId}/invoke-with-response-stream",
            "bedrock-invoke",
            ("aws-eventstream",),
        ),
        Service("ollama", "/api/chat", "ollama", ("ndjson",)),
        Service("ollama-generate", "/api/generate", "ollama", ("ndjson",)),
        Service("cohere", "/v2/chat", "cohere"),
        Service("ai-sdk-ui", "/api/chat", "ai-sdk-ui"),
    )
}

#: provider -> its service when the provider streams on one path only.
_ONE_PATH: Final[dict[str, str]] = {
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "openai-completions": "openai-completions",
    "gemini": "gemini",
    "bedrock-converse": "bedrock-converse",
    "cohere": "cohere",
    "ai-sdk-ui": "ai-sdk-ui",
}
#: A recorded endpoint ending so -> the service, for providers on two paths.
_BY_ENDPOINT: Final = (
    ("/invoke-with-response-stream", "bedrock-invoke"),
    ("/api/generate", "ollama-generate"),
    ("/api/chat", "ollama"),
)


def _ollama_path(first_chunks: Iterable[bytes]) -> str:
    # /api/generate's lines carry "response", /api/chat's a "message".
    line = b"".join(first_chunks).partition(b"\n")[0]
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        return "ollama"
    return "ollama-generate" if isinstance(first, dict) and "response" in first else "ollama"


def service_of(
    provider: str, framing: str, endpoint: object, first_chunks: Iterable[bytes] = ()
) -> str | None:
    """The service that serves a recording of ``provider`` in ``framing`` (None: none).

    ``endpoint`` is the path the capture header recorded (anything else is
    ignored); ``first_chunks`` the body's start, which tells Ollama's two
    paths apart when no endpoint was recorded.
    """
    if provider in _ONE_PATH:
        return _ONE_PATH[provider]
    recorded = endpoint.split("?", 1)[0].rstrip("/") if isinstance(endpoint, str) else ""
    if provider == "anthropic":
        on_bedrock = framing == "aws-eventstream" or recorded.endswith(_BY_ENDPOINT[0][0])
        return "bedrock-invoke" if on_bedrock else "anthropic"
    if provider in BEDROCK_INNER:  # the models read from their own events behind invoke
        return "bedrock-invoke"
    if provider == "ollama":
        for ending, service in _BY_ENDPOINT[1:]:
            if recorded.endswith(ending):
                return service
        return _ollama_path(first_chunks)
    return None
