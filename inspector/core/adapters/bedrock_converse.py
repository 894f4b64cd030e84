"""Amazon Bedrock ConverseStream (``POST /model/{id}/converse-stream``) → contract actions.

Frames are AWS event-stream messages (framing ``aws-eventstream``): the
``:event-type`` header names the event, the payload is its JSON object.

Final signals
-------------
===============================================  ==========================================
signal                                           outcome
===============================================  ==========================================
``messageStop`` (its ``stopReason``), then       ``completed``; ``finish_reason`` from
``metadata`` (``usage``, ``metrics``)            :data:`STOP_REASONS`, usage from
                                                 ``metadata.usage``
``messageStop`` while a block is open            ``failed`` / ``protocol_error``
                                                 (``provider_code`` = the stop reason)
``metadata`` with no ``messageStop`` before it   ``failed`` / ``protocol_error``
exception message (``:message-type:               ``failed``; category from
exception``)                                     :data:`EXCEPTIONS` (throttling →
                                                 ``rate_limited``, …)
error message (``:message-type: error``)         ``failed``; ``:error-code`` as the code
a CRC mismatch, an impossible length             ``failed`` / ``protocol_error`` (the
                                                 decoder, at the message's byte offset)
bytes end before ``metadata``                    ``interrupted`` (also after ``messageStop``:
                                                 the end was not proved)
===============================================  ==========================================

Blocks: ``contentBlockIndex`` is the contract's block index. A block opens at
its ``contentBlockStart`` (``start.toolUse`` → ``tool_call`` with ``name``
and ``toolUseId``) or, as Bedrock sends text and reasoning without one, at
its first delta (:data:`DELTAS`: ``text`` → ``text``; ``reasoningContent`` →
``reasoning`` with ``text``, ``signature`` and ``redactedContent`` (a
``signature`` delta: encrypted reasoning to send back verbatim);
``toolUse.input`` → ``json_text``; ``citation`` → a ``citation`` delta).
``contentBlockStop`` closes it. Payloads carry a random ``p`` padding field
against length side channels: read only to be ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, OpenBlock, Start
from ..errors import category_for
from ..sse import Frame
from .base import Adapter, error_from_body, int_or_none, json_problem
from .content_rule import by_content
from .fields import IGNORED, READ, FieldAccount, FieldTable

__all__ = [
    "DELTAS",
    "EVENT_FIELDS",
    "EXCEPTIONS",
    "FINAL_SIGNALS",
    "STOP_REASONS",
    "BedrockConverseAdapter",
    "BedrockHttpErrors",
    "bedrock_http_error",
    "exception_fail",
    "normalize_usage",
]

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "metadata": ("completed", "after a messageStop with its stopReason, every block closed"),
    ":message-type exception": ("failed", "category from EXCEPTIONS"),
    ":message-type error": ("failed", "the :error-code as provider_code"),
}
"""Event → (terminal state, condition). Without one of these the end of the bytes is
``interrupted`` (``messageStop`` alone announces the end; ``metadata`` proves it)."""

STOP_REASONS: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}
"""``stopReason`` → contract ``finish_reason``; anything else is ``other``."""

EXCEPTIONS: Final[dict[str, str]] = {
    "throttlingException": "rate_limited",
    "serviceQuotaExceededException": "quota_exceeded",
    "validationException": "invalid_request",
    "modelStreamErrorException": "server_error",
    "modelTimeoutException": "server_error",
    "modelNotReadyException": "upstream_overloaded",
    "serviceUnavailableException": "upstream_overloaded",
    "internalServerException": "server_error",
    "accessDeniedException": "permission",
    "resourceNotFoundException": "not_found",
    "unrecognizedClientException": "authentication",
    "expiredTokenException": "authentication",
}
"""``:exception-type`` (first letter either case) → error category; else ``unknown``."""

#: Delta key -> (block kind, provider_type). reasoningContent's fields are in _REASONING.
DELTAS: Final[dict[str, tuple[str, str]]] = {
    "text": ("text", "text"),
    "reasoningContent": ("reasoning", "reasoningContent"),
    "toolUse": ("tool_call", "toolUse"),
    "citation": ("text", "text"),
}
#: reasoningContent field -> contract delta kind.
_REASONING: Final[dict[str, str]] = {
    "text": "text",
    "signature": "signature",
    "redactedContent": "signature",
}
_PAD: Final = {"p": IGNORED}  # random padding against length side channels
_BLOCK: Final = {"contentBlockIndex": READ, **_PAD}
EVENT_FIELDS: Final[FieldTable] = {
    "messageStart": {"role": IGNORED, **_PAD},  # (always "assistant")
    "contentBlockStart": {**_BLOCK, "start": {"toolUse": {"name": READ, "toolUseId": READ}}},
    # A start of another kind is an opaque block that carries it whole.
    "contentBlockStart:opaque": {**_BLOCK, "start": READ},
    # (an unknown delta, or reasoningContent field, is reported by the adapter itself)
    "contentBlockDelta": {**_BLOCK, "delta": READ},
    "contentBlockStop": _BLOCK,
    "messageStop": {"stopReason": READ, **_PAD},
    # Latency, the guardrail's assessments and the performance tier: diagnostics, kept
    # in the frame (the stop reason says what a guardrail did).
    "metadata": {
        "usage": READ, "metrics": IGNORED, "trace": IGNORED, "performanceConfig": IGNORED,
        **_PAD,
    },
}  # fmt: skip
"""v1.1 unread-field accounting per event (:mod:`.fields`)."""


def exception_fail(name: str, payload: str) -> Fail:
    """The :class:`Fail` for a Bedrock exception message (shared with invoke)."""
    try:
        body = orjson.loads(payload) if payload else {}
    except orjson.JSONDecodeError:
        body = {}
    key = name[:1].lower() + name[1:]
    category = EXCEPTIONS.get(key) or category_for(name)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message:
        message = f"Bedrock {name}"
    if isinstance(body, dict) and isinstance(body.get("originalStatusCode"), int):
        message += f" (model status {body['originalStatusCode']})"
    return Fail(category, name, message)


def message_kind(frame: Frame) -> tuple[str, str]:
    """``(:message-type, name)`` of an event-stream frame (``event`` for other frames)."""
    headers = getattr(frame, "headers", ())
    for key, value in headers:
        if key == ":message-type" and isinstance(value, str):
            return value, frame.event
    return "event", frame.event


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Converse usage → the contract's: ``inputTokens`` excludes cache reads and writes."""
    fresh = int_or_none(usage.get("inputTokens"))
    read = int_or_none(usage.get("cacheReadInputTokens"))
    written = int_or_none(usage.get("cacheWriteInputTokens"))
    out: dict[str, Any] = {
        "input_tokens": None if fresh is None else fresh + (read or 0) + (written or 0),
        "output_tokens": int_or_none(usage.get("outputTokens")),
    }
    if read is not None:
        out["cached_input_tokens"] = read
    out["raw"] = dict(usage)
    return out


def bedrock_http_error(status: int, body: bytes, error_type: str | None) -> Fail:
    """An HTTP error from Bedrock: its code (``x-amzn-errortype``) sets the category
    through :data:`EXCEPTIONS` where the status alone would not (a quota is a 400)."""
    fail = error_from_body(status, body, error_type)
    code = fail.provider_code
    if isinstance(code, str) and code:
        known = EXCEPTIONS.get(code[:1].lower() + code[1:])
        if known is not None:
            return Fail(known, code, fail.message)
    return fail


class BedrockHttpErrors:
    """What every Bedrock adapter answers an HTTP error with (:func:`bedrock_http_error`)."""

    def http_error(self, status: int, body: bytes, error_type: str | None = None) -> Fail:
        """Bedrock's error body names only a message; its code comes in a header."""
        return bedrock_http_error(status, body, error_type)


class BedrockConverseAdapter(BedrockHttpErrors, Adapter):
    """ConverseStream events to actions; see the module's final-signal table."""

    provider = "bedrock-converse"

    def __init__(self) -> None:
        self.started = False
        self.kinds: dict[int, str] = {}  # block index -> kind, for blocks opened
        self.stop_reason: str | None = None
        self.stopped = False
        self.fields = FieldAccount(EVENT_FIELDS)

    def feed(self, frame: Frame) -> list[Action]:
        """Map one message: exceptions and errors first, then one handler per event."""
        out: list[Action] = []
        message_type, name = message_kind(frame)
        if not self.started:
            self.started = True
            out.append(Start(None))
        if message_type == "exception":
            out.append(exception_fail(name, frame.data))
            return out
        if message_type == "error":
            out.append(_error_fail(frame))
            return out
        handler = _EVENTS.get(name)
        if handler is None:
            out.append(Ignore(f"frame {frame.index}: unknown event type {name!r} skipped"))
            return out
        try:
            data = orjson.loads(frame.data) if frame.data else {}
        except orjson.JSONDecodeError as exc:
            out.append(json_problem(frame, exc))
            return out
        if not isinstance(data, dict):
            out.append(Ignore(f"frame {frame.index}: payload is JSON but not an object"))
            return out
        self.fields.check(_field_type(name, data), data, frame.index, out)
        handler(self, data, frame, out)
        return out

    def eof_note(self) -> str | None:
        """Say when ``messageStop`` came but ``metadata`` never did."""
        if self.stopped:
            return (
                f"messageStop announced stopReason {self.stop_reason!r}, but metadata never "
                "arrived, so the end was not proved"
            )
        return None

    def _index(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> int | None:
        index = data.get("contentBlockIndex")
        if type(index) is int and index >= 0:
            return index
        out.append(
            Fail("protocol_error", None, f"frame {frame.index}: no contentBlockIndex integer")
        )
        return None

    def _message_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        return None  # Start is already out: the role is always "assistant"

    def _block_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._index(data, frame, out)
        if index is None:
            return
        start = data.get("start")
        tool = start.get("toolUse") if isinstance(start, dict) else None
        if isinstance(tool, dict):
            self.kinds[index] = "tool_call"
            name, call_id = tool.get("name"), tool.get("toolUseId")
            out.append(
                OpenBlock(
                    index,
                    "tool_call",
                    "toolUse",
                    name=name if isinstance(name, str) else None,
                    call_id=call_id if isinstance(call_id, str) and call_id else None,
                )
            )
            return
        kind = next(iter(start), "unknown") if isinstance(start, dict) and start else "unknown"
        self.kinds[index] = "opaque"
        out.append(OpenBlock(index, "opaque", str(kind)))
        out.append(Delta(index, "json_text", orjson.dumps(start).decode()))

    def _block_delta(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._index(data, frame, out)
        if index is None:
            return
        delta = data.get("delta")
        if not isinstance(delta, dict) or not delta:
            out.append(
                Ignore(f"frame {frame.index}: contentBlockDelta has no delta", "malformed_delta")
            )
            return
        for key, value in delta.items():
            self._one_delta(index, key, value, frame, out)

    def _one_delta(self, index: int, key: str, value: Any, frame: Frame, out: list[Action]) -> None:
        kind = self.kinds.get(index)
        if kind == "opaque":
            out.append(Delta(index, "json_text", orjson.dumps({key: value}).decode()))
            return
        rule = DELTAS.get(key)
        if rule is None:
            out.append(
                Ignore(
                    f"frame {frame.index}: unknown delta {key!r} for b_{index} skipped",
                    "unknown_delta",
                )
            )
            return
        block_kind, provider_type = rule
        if kind is None:
            self.kinds[index] = kind = block_kind
            out.append(OpenBlock(index, block_kind, provider_type))
        if kind != block_kind:
            out.append(
                Ignore(
                    f"frame {frame.index}: a {key} delta cannot extend b_{index}, "
                    f"a {kind} block; skipped",
                    "unexpected_delta",
                )
            )
            return
        if key == "text" and isinstance(value, str):
            if value:
                out.append(Delta(index, "text", value))
        elif key == "citation":
            out.append(Delta(index, "citation", "", citation=value))
        elif key == "toolUse" and isinstance(value, dict) and isinstance(value.get("input"), str):
            if value["input"]:
                out.append(Delta(index, "json_text", value["input"]))
        elif key == "reasoningContent" and isinstance(value, dict):
            for field, text in value.items():
                delta_kind = _REASONING.get(field)
                if delta_kind is None or not isinstance(text, str):
                    out.append(
                        Ignore(
                            f"frame {frame.index}: reasoningContent.{field} skipped",
                            "unknown_delta",
                        )
                    )
                elif text:
                    out.append(Delta(index, delta_kind, text))
        else:
            out.append(
                Ignore(
                    f"frame {frame.index}: malformed {key} delta for b_{index}", "malformed_delta"
                )
            )

    def _block_stop(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._index(data, frame, out)
        if index is not None:
            out.append(CloseBlock(index))

    def _message_stop(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        reason = data.get("stopReason")
        self.stop_reason = reason if isinstance(reason, str) else None
        self.stopped = True

    def _metadata(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        if not self.stopped:
            out.append(
                Fail(
                    "protocol_error", None, f"frame {frame.index}: metadata before any messageStop"
                )
            )
            return
        usage = data.get("usage")
        reason = self.stop_reason
        out.append(
            Finish(
                by_content(
                    STOP_REASONS.get(reason, "other") if reason is not None else "other",
                    "tool_call" in self.kinds.values(),
                ),
                reason,
                usage=normalize_usage(usage) if isinstance(usage, dict) else None,
            )
        )


def _field_type(name: str, data: Mapping[str, Any]) -> str:
    """The row of :data:`EVENT_FIELDS` for an event: a block start by its kind."""
    if name != "contentBlockStart":
        return name
    start = data.get("start")
    return name if isinstance(start, dict) and "toolUse" in start else f"{name}:opaque"


def _error_fail(frame: Frame) -> Fail:
    headers = dict(getattr(frame, "headers", ()))
    code = headers.get(":error-code", frame.event)
    message = headers.get(":error-message")
    text = message if isinstance(message, str) and message else f"Bedrock error {code!r}"
    return Fail(category_for(code), code, text)


_EVENTS: Final = {
    "messageStart": BedrockConverseAdapter._message_start,
    "contentBlockStart": BedrockConverseAdapter._block_start,
    "contentBlockDelta": BedrockConverseAdapter._block_delta,
    "contentBlockStop": BedrockConverseAdapter._block_stop,
    "messageStop": BedrockConverseAdapter._message_stop,
    "metadata": BedrockConverseAdapter._metadata,
}
