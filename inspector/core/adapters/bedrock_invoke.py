"""Bedrock InvokeModelWithResponseStream (``/model/{id}/invoke-with-response-stream``).

The body is an AWS event stream whose ``chunk`` events each carry one event of
the model's own protocol, base64 in ``{"bytes": ...}``. This adapter unwraps
it and hands it, as a frame with the same index and byte span, to the inner
model's adapter (:data:`INNER`: Claude's events are Anthropic Messages
events, read by :class:`~inspector.core.adapters.anthropic.AnthropicAdapter`
itself; Llama's, Titan's, Cohere's, Mistral's and Nova's by
:mod:`.bedrock_inner`). The provider is the inner one's (``anthropic``,
``bedrock-llama`` …), with framing ``aws-eventstream``.

Which inner model
-----------------
The model id says (:func:`inner_for_model`: ``anthropic.claude-…`` →
``anthropic``, ``meta.llama…`` → ``bedrock-llama``, ``amazon.titan-text…``
→ ``bedrock-titan``, ``amazon.nova…`` → ``bedrock-nova``, ``cohere.command…``
→ ``bedrock-cohere``, ``mistral.…`` → ``bedrock-mistral``; a cross-region
prefix such as ``us.`` and an ARN's path are looked through), and so do the
frames (:func:`inner_of_event`, by the keys only that model sends). The
frames win when both speak; neither: "cannot tell".

Final signals
-------------
==============================================  ==========================================
signal                                          outcome
==============================================  ==========================================
the inner model's final signals                 as that adapter's table says (Anthropic:
(in ``chunk`` events)                           ``message_stop`` → ``completed``, ``error``
                                                → ``failed``)
exception message (``:message-type:             ``failed``; category from
exception``)                                    :data:`~.bedrock_converse.EXCEPTIONS`
a ``chunk`` whose ``bytes`` is not base64 or    ``failed`` / ``protocol_error``
not UTF-8 JSON
a CRC mismatch, an impossible length            ``failed`` / ``protocol_error`` (decoder)
bytes end before the inner final signal         ``interrupted``
==============================================  ==========================================

Bedrock adds ``amazon-bedrock-invocationMetrics`` to the inner last event (its
token counts are Bedrock's own; the inner usage is what counts).
"""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from dataclasses import replace
from typing import Any, Final
from urllib.parse import unquote

import orjson

from ..actions import Action, Fail, Ignore, Start
from ..sse import Frame
from .base import Adapter
from .bedrock_converse import exception_fail, message_kind

__all__ = [
    "FINAL_SIGNALS",
    "INNER",
    "MODEL_PREFIXES",
    "BedrockInvokeAdapter",
    "inner_for_model",
    "inner_of_event",
    "model_of_path",
]

#: Model id prefix (after any cross-region prefix) -> the provider whose events it streams.
MODEL_PREFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("anthropic.", "anthropic"),
    ("meta.llama", "bedrock-llama"),
    ("amazon.titan-text", "bedrock-titan"),
    ("amazon.nova", "bedrock-nova"),
    ("cohere.command", "bedrock-cohere"),
    ("mistral.", "bedrock-mistral"),
)

#: Providers whose events Bedrock invoke carries, read by that provider's own adapter.
INNER: Final = frozenset(provider for _, provider in MODEL_PREFIXES)

_ANTHROPIC_TYPES: Final = frozenset(
    {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
     "message_delta", "message_stop", "ping", "error"}
)  # fmt: skip
_CONVERSE_EVENTS: Final = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
     "messageStop", "metadata"}
)  # fmt: skip
_CROSS_REGION: Final = re.compile(r"^[a-z]{2,6}\.(?=[a-z]+\.)")
_INVOKE_PATH: Final = re.compile(r"/model/([^/]+)/invoke(?:-with-response-stream)?/?$")


def inner_for_model(model_id: str | None) -> str | None:
    """The provider whose events a model id's invoke stream carries (None: not known)."""
    if not model_id:
        return None
    name = unquote(model_id).rsplit("/", 1)[-1].lower()
    for candidate in (name, _CROSS_REGION.sub("", name, count=1)):
        for prefix, provider in MODEL_PREFIXES:
            if candidate.startswith(prefix):
                return provider
    return None


def model_of_path(path: str) -> str | None:
    """The model id of an invoke URL path (``/model/{id}/invoke-with-response-stream``)."""
    match = _INVOKE_PATH.search(path)
    return unquote(match.group(1)) if match else None


def inner_of_event(event: Any) -> str | None:
    """The provider one unwrapped inner event belongs to, by keys only it sends (None: unsure).

    ==================================================  ===================
    inner event                                         provider
    ==================================================  ===================
    ``type`` of Anthropic Messages                      ``anthropic``
    ``generation`` and ``stop_reason``                  ``bedrock-llama``
    ``outputText``                                      ``bedrock-titan``
    one Converse event name as its key                  ``bedrock-nova``
    ``is_finished`` (and ``text`` or ``finish_reason``)  ``bedrock-cohere``
    or ``generations[]`` of objects with ``text``
    ``outputs[]`` of objects with ``text``              ``bedrock-mistral``
    ==================================================  ===================
    """
    if not isinstance(event, dict):
        return None
    if event.get("type") in _ANTHROPIC_TYPES:
        return "anthropic"
    if "generation" in event and "stop_reason" in event:
        return "bedrock-llama"
    if "outputText" in event:
        return "bedrock-titan"
    if "is_finished" in event and ("text" in event or "finish_reason" in event):
        return "bedrock-cohere"
    generations = event.get("generations")
    piece = generations[0] if isinstance(generations, list) and generations else None
    if isinstance(piece, dict) and "text" in piece:
        return "bedrock-cohere"  # Command (generate): each piece in generations[0]
    outputs = event.get("outputs")
    first = outputs[0] if isinstance(outputs, list) and outputs else None
    if isinstance(first, dict) and "text" in first:
        return "bedrock-mistral"
    names = [k for k in event if not k.startswith("amazon-bedrock-")]
    if len(names) == 1 and names[0] in _CONVERSE_EVENTS:
        return "bedrock-nova"
    return None


FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "chunk": ("(inner)", "the inner adapter's own final signals"),
    ":message-type exception": ("failed", "category from bedrock_converse.EXCEPTIONS"),
}
"""Event → (terminal state, condition); see the module docstring."""

#: The one event type that carries an inner event, and the payload field holding it.
CHUNK_EVENT: Final = "chunk"
CHUNK_FIELD: Final = "bytes"


class BedrockInvokeAdapter(Adapter):
    """Unwraps ``chunk`` events for an inner adapter; see the module's table."""

    def __init__(self, inner: Adapter) -> None:
        self.inner = inner
        self.provider = inner.provider  # type: ignore[misc]  # an instance's, not the class's
        self.started = False

    def feed(self, frame: Frame) -> list[Action]:
        """Exceptions end the stream; a chunk's inner event goes to the inner adapter."""
        message_type, name = message_kind(frame)
        if message_type == "exception":
            return self._first([exception_fail(name, frame.data)])
        if message_type == "error":
            return self._first([Fail("unknown", name, f"Bedrock error {name!r}")])
        if name != CHUNK_EVENT:
            return self._first(
                [Ignore(f"frame {frame.index}: unknown event type {name!r} skipped")]
            )
        inner = _unwrap(frame)
        if isinstance(inner, Fail):
            return self._first([inner])
        self.started = True
        return self.inner.feed(replace(frame, event=CHUNK_EVENT, data=inner))

    def _first(self, actions: list[Action]) -> list[Action]:
        if not self.started:
            self.started = True
            return [Start(None), *actions]
        return actions

    def eof_note(self) -> str | None:
        """The inner adapter's note."""
        return self.inner.eof_note()


def _unwrap(frame: Frame) -> str | Fail:
    """The inner event's JSON text, or why there is none."""
    try:
        payload = orjson.loads(frame.data)
    except orjson.JSONDecodeError as exc:
        return Fail(
            "protocol_error", None, f"frame {frame.index} (chunk): payload is not JSON ({exc})"
        )
    encoded = payload.get(CHUNK_FIELD) if isinstance(payload, dict) else None
    if not isinstance(encoded, str):
        return Fail(
            "protocol_error", None, f"frame {frame.index} (chunk): no {CHUNK_FIELD!r} string"
        )
    try:
        return b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        return Fail(
            "protocol_error",
            None,
            f"frame {frame.index} (chunk): bytes are not base64 UTF-8 ({exc})",
        )
