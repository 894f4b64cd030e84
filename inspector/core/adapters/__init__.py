"""Provider adapters: the registry, and detection of the provider from a stream."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

from ..sse import Frame
from .base import Adapter
from .protocols_detect import sniff_more_protocols

__all__ = ["ADAPTERS", "PROVIDERS", "Adapter", "UnknownProvider", "adapter_for", "detect_provider"]

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


def _sniff_one(frame: Frame) -> str | None:
    if frame.is_comment or frame.data == "[DONE]":
        return None
    more = sniff_more_protocols(frame)
    if more is not None:
        return more
    event = frame.event
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
        if kind in ("message_start", "content_block_start", "content_block_delta", "ping",
                    "message_delta", "message_stop"):  # fmt: skip
            return "anthropic"
    if data.get("object") == "chat.completion.chunk" or "choices" in data:
        return "openai-chat"
    if any(k in data for k in ("candidates", "usageMetadata", "modelVersion", "promptFeedback")):
        return "gemini"
    # A Google error object carries a string RPC status; OpenAI's and Anthropic's never do.
    error = data.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("status"), str):
        return "gemini"
    return None


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
            return found
    return None
