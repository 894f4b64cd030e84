"""Bedrock InvokeModelWithResponseStream (``/model/{id}/invoke-with-response-stream``).

The body is an AWS event stream whose ``chunk`` events each carry one event of
the model's own protocol, base64 in ``{"bytes": ...}``. This adapter unwraps
it and hands it, as a frame with the same index and byte span, to the inner
model's adapter (:data:`INNER`: Claude's events are Anthropic Messages
events, read by :class:`~inspector.core.adapters.anthropic.AnthropicAdapter`
itself). The provider is the inner one's (``anthropic``), with framing
``aws-eventstream``.

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
from base64 import b64decode
from dataclasses import replace
from typing import Final

import orjson

from ..actions import Action, Fail, Ignore, Start
from ..sse import Frame
from .base import Adapter
from .bedrock_converse import exception_fail, message_kind

__all__ = ["FINAL_SIGNALS", "INNER", "BedrockInvokeAdapter"]

#: Providers whose events Bedrock invoke carries, read by that provider's own adapter.
INNER: Final = frozenset({"anthropic"})

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
