"""Detection by frames for the protocols beside the four of v1 (contract v1.1).

:func:`sniff_more_protocols` is asked first for each frame; None hands the
frame on to the v1 rules. Each row is a shape only that protocol sends:

====================  =====================================================
provider              evidence in one frame
====================  =====================================================
``bedrock-converse``  an event-stream message whose ``:event-type`` is a
                      ConverseStream event (:data:`CONVERSE_EVENTS`)
``anthropic``, …      an event-stream ``chunk`` whose ``bytes`` decode to an
                      event of a model behind Bedrock invoke
                      (:func:`.bedrock_invoke.inner_of_event`)
``ollama``            an object with ``model``, ``done`` and ``message`` or
                      ``response`` (a lone ``{"error": "text"}`` line tells
                      nothing: OpenAI-compatible servers send those too)
``cohere``            a ``type`` of Cohere v2's (:data:`COHERE_TYPES`)
``ai-sdk-ui``         a ``type`` of the AI SDK UI stream's
                      (:data:`AI_SDK_TYPES`, or ``data-…``)
``openai-completions``  ``object: "text_completion"``, or ``choices[]``
                      with ``text`` and no ``delta``
====================  =====================================================
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..sse import Frame

__all__ = ["AI_SDK_TYPES", "COHERE_TYPES", "CONVERSE_EVENTS", "sniff_more_protocols"]

CONVERSE_EVENTS: Final = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
     "messageStop", "metadata"}
)  # fmt: skip
COHERE_TYPES: Final = frozenset(
    {"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta",
     "tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end",
     "message-end"}
)  # fmt: skip
AI_SDK_TYPES: Final = frozenset(
    {"start-step", "finish-step", "text-start", "text-delta", "text-end", "reasoning-start",
     "reasoning-delta", "reasoning-end", "tool-input-start", "tool-input-delta",
     "tool-input-available", "tool-output-available", "source-url", "message-metadata"}
)  # fmt: skip


def _event_stream(frame: Frame) -> str | None:
    if frame.event in CONVERSE_EVENTS:
        return "bedrock-converse"
    if frame.event != "chunk":
        return None
    try:
        payload = orjson.loads(frame.data)
        inner = orjson.loads(b64decode(payload["bytes"], validate=True))
    except (orjson.JSONDecodeError, binascii.Error, KeyError, TypeError, ValueError):
        return None
    from .bedrock_invoke import inner_of_event

    return inner_of_event(inner)


def _by_shape(data: Mapping[str, Any]) -> str | None:
    kind = data.get("type")
    if isinstance(kind, str):
        if kind in COHERE_TYPES:
            return "cohere"
        if kind in AI_SDK_TYPES or kind.startswith("data-"):
            return "ai-sdk-ui"
    if "done" in data and "model" in data and ("message" in data or "response" in data):
        return "ollama"
    if data.get("object") == "text_completion":
        return "openai-completions"
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        first = choices[0]
        if "text" in first and "delta" not in first:
            return "openai-completions"
    return None


def sniff_more_protocols(frame: Frame) -> str | None:
    """The provider one frame proves, among the newer protocols; None if none."""
    if getattr(frame, "headers", None):
        return _event_stream(frame)
    if frame.comment is not None:
        return None
    try:
        data = orjson.loads(frame.data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, Mapping):
        return None
    return _by_shape(data)
