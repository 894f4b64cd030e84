"""OpenAI Chat's vocabulary as data: finish reasons, delta fields, the chunk's fields.

Split from :mod:`.openai_chat` along the seam between what the API (and the
compatible servers) send — these tables, which docs/providers/openai-chat.md
lists — and how the adapter reads a stream with them.
"""

from __future__ import annotations

from typing import Final

from .fields import IGNORED, READ
from .fields import Shape as FieldShape

__all__ = [
    "CHAT_EVENTS",
    "CHUNK_FIELDS",
    "CONTENT_CHUNKS",
    "DELTA_FIELDS",
    "FINISH_REASONS",
    "FUNCTION_FIELDS",
    "TEXT_FIELDS",
]

FINISH_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
    "eos": "stop",  # some OpenAI-compatible servers (TGI)
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
}

# delta field -> (block kind, provider_type)
TEXT_FIELDS: Final[dict[str, tuple[str, str]]] = {
    "reasoning_content": ("reasoning", "reasoning_content"),
    "reasoning": ("reasoning", "reasoning"),
    "content": ("text", "content"),
    "refusal": ("refusal", "refusal"),
}

# SSE event names a Chat stream uses: data frames, and Groq's `event: error`.
CHAT_EVENTS: Final = frozenset({"message", "error"})

# The fields of a chunk the adapter reads, and those it reads only to ignore
# (v1.1 unread-field accounting; a dialect row adds its server's own).
FUNCTION_FIELDS: Final[FieldShape] = {"name": READ, "arguments": READ}
DELTA_FIELDS: Final[FieldShape] = {
    "role": IGNORED,
    "content": READ,
    "reasoning_content": READ,
    "reasoning": READ,
    "refusal": READ,
    "tool_calls": {"index": READ, "id": READ, "type": READ, "function": FUNCTION_FIELDS},
    "function_call": FUNCTION_FIELDS,
    # OpenRouter's: the text repeats `reasoning`; signatures and encrypted data are read.
    "reasoning_details": READ,
    "annotations": READ,
    "executed_tools": READ,
    # gpt-oss (harmony) channel name; the reasoning itself is in `reasoning`.
    "channel": IGNORED,
}
CHUNK_FIELDS: Final[FieldShape] = {
    "id": READ,
    "object": READ,
    "created": IGNORED,
    "model": READ,
    "system_fingerprint": IGNORED,
    "service_tier": IGNORED,
    "obfuscation": IGNORED,
    "usage": READ,
    "error": READ,
    "citations": READ,
    "search_results": READ,
    # `usage` in a choice: Moonshot's only usage (read when the chunk has none).
    "choices": {
        "index": READ,
        "delta": DELTA_FIELDS,
        "finish_reason": READ,
        "logprobs": IGNORED,
        "usage": READ,
    },
}

# Mistral's content chunks: chunk type -> (block kind, provider_type).
CONTENT_CHUNKS: Final[dict[str, tuple[str, str]]] = {
    "text": ("text", "content"),
    "thinking": ("reasoning", "thinking"),
}
