"""Provider adapters: the registry, and detection of the provider from a stream."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

from ..sse import Frame
from .base import Adapter, error_document
from .protocols_detect import AI_SDK_TYPES, COHERE_TYPES, sniff_more_protocols

__all__ = [
    "ADAPTERS",
    "PROVIDERS",
    "Adapter",
    "UnknownProvider",
    "adapter_for",
    "detect_error_body",
    "detect_provider",
    "detection_evidence",
]

# provider name -> "module:Class", imported on first use.
ADAPTERS: Final[dict[str, str]] = {
    "openai-chat": "openai_chat:OpenAIChatAdapter",
    "openai-responses": "openai_responses:OpenAIResponsesAdapter",
    "anthropic": "anthropic:AnthropicAdapter",
    "gemini": "gemini:GeminiAdapter",
    "bedrock-converse": "bedrock_converse:BedrockConverseAdapter",
    "ollama": "ollama:OllamaAdapter",
    "cohere": "cohere:CohereAdapter",
    "openai-completions": "openai_completions:OpenAICompletionsAdapter",
    "ai-sdk-ui": "ai_sdk_ui:AiSdkUiAdapter",
    # Models behind Bedrock invoke whose events are their own (framing aws-eventstream).
    "bedrock-llama": "bedrock_inner:BedrockLlamaAdapter",
    "bedrock-titan": "bedrock_inner:BedrockTitanAdapter",
    "bedrock-nova": "bedrock_inner:BedrockNovaAdapter",
    "bedrock-cohere": "bedrock_inner:BedrockCohereAdapter",
    "bedrock-mistral": "bedrock_inner:BedrockMistralAdapter",
}

PROVIDERS: Final = tuple(ADAPTERS)


class UnknownProvider(ValueError):
    """The provider name is not one of :data:`PROVIDERS`, or has no adapter yet."""


def adapter_for(provider: str) -> Adapter:
    """A fresh adapter for ``provider``."""
    try:
        module_name, class_name = ADAPTERS[provider].split(":")
    except KeyError:
        known = ", ".join(ADAPTERS)
        raise UnknownProvider(f"unknown provider {provider!r}; expected one of: {known}") from None
    module = importlib.import_module(f"{__name__}.{module_name}")
    adapter: Adapter = getattr(module, class_name)()
    return adapter


# Streams recognized by their frames that may have no adapter registered yet:
# (provider name, what it is). Detection names the provider when its adapter is
# in ADAPTERS, else says "cannot tell" naming what the frames look like — never
# hands them to another provider's adapter.
OTHER_PROTOCOLS: Final[dict[str, str]] = {
    "openai-completions": "OpenAI legacy Completions (choices[].text, no delta)",
    "cohere": "Cohere v2 chat (message-start / content-delta events)",
    "ai-sdk-ui": "the Vercel AI SDK UI message stream (text-delta / finish parts)",
    "replicate": "Replicate predictions (event: output with plain-text data)",
    "watsonx": "IBM watsonx.ai generation (results[].generated_text)",
    "gemini-interactions": "Gemini Interactions (event_type frames)",
    "anthropic-complete": "Anthropic legacy Text Completions (type completion, /v1/complete)",
}


def _other(name: str) -> str:
    """``name`` when its adapter is registered; else a "cannot tell" marker for it."""
    return name if name in ADAPTERS else f"?{name}"


def _sniff_one(frame: Frame) -> str | None:
    """The provider one frame names; ``"?name"``: a protocol without an adapter here."""
    if frame.is_comment or frame.data == "[DONE]":
        return None
    more = sniff_more_protocols(frame)
    if more is not None:
        return more
    event = frame.event
    if event == "output" and not frame.data.lstrip().startswith(("{", "[")):
        return _other("replicate")
    if event.startswith("response."):
        return "openai-responses"
    if event in ("message_start", "content_block_start", "content_block_delta", "message_delta"):
        return "anthropic"
    try:
        data = orjson.loads(frame.data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(data, list) and data and isinstance(data[0], Mapping):
        data = data[0]
    if not isinstance(data, Mapping):
        return None
    kind = data.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai-responses"
        if kind in (
            "message_start",
            "content_block_start",
            "content_block_delta",
            "ping",
            "message_delta",
            "message_stop",
        ):
            return "anthropic"
        # Legacy Text Completions (/v1/complete) pings like Messages does, but its
        # `completion` frames say what it is; Messages' adapter would drop them all.
        if kind == "completion" and "completion" in data:
            return _other("anthropic-complete")
        if kind in COHERE_TYPES:
            return _other("cohere")
        if kind in AI_SDK_TYPES:
            return _other("ai-sdk-ui")
    if "event_type" in data and "choices" not in data:
        return _other("gemini-interactions")
    if _is_completions(data):
        return _other("openai-completions")
    if data.get("object") == "chat.completion.chunk" or "choices" in data:
        return "openai-chat"
    results = data.get("results")
    first = results[0] if isinstance(results, list) and results else None
    if isinstance(first, Mapping) and "generated_text" in first:
        return _other("watsonx")
    if any(k in data for k in ("candidates", "usageMetadata", "modelVersion", "promptFeedback")):
        return "gemini"
    # A Google error object carries a string RPC status; OpenAI's and Anthropic's never do.
    error = data.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("status"), str):
        return "gemini"
    return None


def _is_completions(data: Mapping[str, Any]) -> bool:
    """Legacy Completions: ``object: text_completion``, or a choice with ``text`` and no delta.

    (Together's Chat chunks carry ``choices[].text`` too, beside their ``delta``.)
    """
    if data.get("object") == "text_completion":
        return True
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return False
    first = choices[0]
    return "text" in first and "delta" not in first and "message" not in first


def detect_provider(
    frames: Iterable[Frame], header: Mapping[str, Any] | None = None, limit: int = 50
) -> str | None:
    """The provider of a stream: the capture header's word first, then the frames.

    Returns None when neither tells (the caller says so and asks for
    ``--provider``).
    """
    if header is not None:
        named = header.get("provider")
        if isinstance(named, str) and named in PROVIDERS:
            return named
    for n, frame in enumerate(frames):
        if n >= limit:
            break
        found = _sniff_one(frame)
        if found is not None:
            # A protocol with no adapter here is "cannot tell", never another's adapter.
            return None if found.startswith("?") else found
    return None


def detection_evidence(frames: Iterable[Frame], limit: int = 50, shown: int = 3) -> str:
    """Why the frames name no provider: the protocol they look like, else their first events.

    Safe to print as is: names and keys are cut short and escaped by the
    caller's terminal layer; no values are shown.
    """
    described: list[str] = []
    for n, frame in enumerate(frames):
        if n >= limit:
            break
        found = _sniff_one(frame)
        if found is not None and found.startswith("?"):
            what = OTHER_PROTOCOLS.get(found[1:], found[1:])
            return f"its frames are {what}, which has no adapter here"
        if frame.is_comment or len(described) >= shown:
            continue
        described.append(_frame_evidence(frame))
    if not described:
        return "it has no data frames"
    return "its first events match no known provider's: " + "; ".join(described)


def _frame_evidence(frame: Frame) -> str:
    """``event 'x' keys [a, b]`` for one frame (at most 8 keys, each cut short)."""
    name = frame.event[:40]
    try:
        data = orjson.loads(frame.data)
    except orjson.JSONDecodeError:
        return f"event {name!r} (data is not JSON)"
    if isinstance(data, list):
        first = data[0] if data and isinstance(data[0], Mapping) else None
        keys = [str(k)[:30] for k in first][:8] if first is not None else []
        return f"event {name!r} a JSON array, first item keys [{', '.join(keys)}]"
    if not isinstance(data, Mapping):
        return f"event {name!r} data {type(data).__name__}"
    keys = [str(k)[:30] for k in data][:8]
    kind = data.get("type")
    typed = f" type {kind[:40]!r}" if isinstance(kind, str) else ""
    return f"event {name!r}{typed} keys [{', '.join(keys)}]"


def detect_error_body(body: bytes) -> str | None:
    """The provider of a body that is only a JSON error document (v1.1), by its shape.

    Google's error has a string ``status``; Anthropic's document is
    ``{"type": "error", "error": …}``; any other ``{"error": {…}}`` reads the
    same with either OpenAI adapter, so Chat's is used. None for anything else.
    """
    parsed = error_document(body, limit=1 << 20)
    if parsed is None:
        return None
    if isinstance(parsed["error"].get("status"), str):
        return "gemini"
    if parsed.get("type") == "error":
        return "anthropic"
    return "openai-chat"
