"""Request bodies and tool shapes of the protocols beyond the v1 four, for their rows in
:data:`~inspector.live.providers.PROVIDER_SPECS`.

Each builds what the provider's docs show for one user message:

=======================  ===============================================================
row                      body
=======================  ===============================================================
``bedrock-converse``     ``{"messages": [{"role", "content": [{"text"}]}]}`` (model in the path)
``bedrock-invoke``       Claude's Messages body with ``anthropic_version: bedrock-2023-05-31``
``ollama``               ``{"model", "messages", "stream": true}`` (``/api/chat``)
``ollama-generate``      ``{"model", "prompt", "stream": true}`` (``/api/generate``)
``cohere``               ``{"model", "messages", "stream": true}`` (``/v2/chat``)
``openai-completions``   ``{"model", "prompt", "stream": true, "stream_options"}``
``ai-sdk-ui``            ``{"id", "messages": [{"id", "role", "parts"}], "trigger"}``
=======================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "BEDROCK_ANTHROPIC_VERSION",
    "body_ai_sdk_ui",
    "body_bedrock_converse",
    "body_bedrock_invoke",
    "body_cohere",
    "body_completions",
    "body_ollama_chat",
    "body_ollama_generate",
    "tool_bedrock_converse",
]

#: The ``anthropic_version`` Claude on Bedrock asks for in an invoke body.
BEDROCK_ANTHROPIC_VERSION: Final = "bedrock-2023-05-31"
MAX_TOKENS: Final = 1024


def _user(prompt: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": prompt}]


def body_bedrock_converse(model: str, prompt: str) -> dict[str, Any]:
    """A ConverseStream body (the model is in the path)."""
    return {"messages": [{"role": "user", "content": [{"text": prompt}]}]}


def body_bedrock_invoke(model: str, prompt: str) -> dict[str, Any]:
    """An InvokeModelWithResponseStream body for Claude (the model is in the path)."""
    return {
        "anthropic_version": BEDROCK_ANTHROPIC_VERSION,
        "max_tokens": MAX_TOKENS,
        "messages": _user(prompt),
    }


def body_ollama_chat(model: str, prompt: str) -> dict[str, Any]:
    """Ollama's ``/api/chat``."""
    return {"model": model, "messages": _user(prompt), "stream": True}


def body_ollama_generate(model: str, prompt: str) -> dict[str, Any]:
    """Ollama's ``/api/generate``."""
    return {"model": model, "prompt": prompt, "stream": True}


def body_cohere(model: str, prompt: str) -> dict[str, Any]:
    """Cohere v2 ``/v2/chat``."""
    return {"model": model, "messages": _user(prompt), "stream": True}


def body_completions(model: str, prompt: str) -> dict[str, Any]:
    """Legacy ``/v1/completions`` (OpenAI, vLLM, llama.cpp, TGI); usage on the last chunk."""
    return {
        "model": model,
        "prompt": prompt,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def body_ai_sdk_ui(model: str, prompt: str) -> dict[str, Any]:
    """What the AI SDK's ``useChat`` posts to its own route (v5: no model; one is sent
    as a body field only when given, as apps commonly add it)."""
    body: dict[str, Any] = {
        "id": "inspector",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": prompt}]}],
        "trigger": "submit-message",
    }
    if model:
        body["model"] = model
    return body


def tool_bedrock_converse(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A neutral tool as a Converse ``toolSpec`` (they go under ``toolConfig.tools``)."""
    schema = tool.get("parameters") or {"type": "object", "properties": {}}
    spec = {"name": tool["name"], "inputSchema": {"json": schema}}
    if tool.get("description"):
        spec["description"] = tool["description"]
    return {"toolSpec": spec}
