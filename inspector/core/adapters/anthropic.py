"""Anthropic Messages streaming (``POST /v1/messages``, ``stream: true``) → contract actions.

Final signals
-------------
===========================================  ==========================================
signal                                       outcome
===========================================  ==========================================
``message_stop`` after a ``message_delta``   ``completed``; ``finish_reason`` from the
that carried a ``stop_reason``               last ``stop_reason`` (:data:`STOP_REASONS`)
``message_stop`` while a block is open       ``failed`` / ``protocol_error`` with
(e.g. ``max_tokens`` cut a tool call)        ``provider_code`` = the stop reason (the
                                             machine refuses the ``Finish``)
``message_stop`` with no ``stop_reason``     ``failed`` / ``protocol_error``
``error`` event                              ``failed``; category from ``error.type``
                                             (:data:`inspector.core.errors.PROVIDER_CODE_CATEGORY`:
                                             ``overloaded_error`` → ``upstream_overloaded``,
                                             retryable; ``api_error`` → ``server_error``, …)
a second ``message_start``                   ``failed`` / ``protocol_error``
bytes end before ``message_stop``            ``interrupted`` (also after a
                                             ``message_delta``: the end was not proved)
===========================================  ==========================================

``message_delta`` only *announces* the stop reason; ``message_stop`` is the
proof, so ``stream.done`` is emitted there and nowhere else. The first
terminal signal wins (the machine records later frames as ignored).

Blocks (:data:`BLOCK_TYPES`): ``text`` → ``text``; ``tool_use`` → ``tool_call``
(the client runs it); ``thinking`` → ``reasoning`` (``thinking_delta`` is its
text, ``signature_delta`` its ``signature``); ``redacted_thinking`` →
``reasoning`` whose encrypted ``data`` is one ``signature`` delta; tools the
provider runs itself and their results (``server_tool_use``,
``web_search_tool_result``, ``mcp_tool_use``, ``compaction``, …) → ``opaque``,
carrying the ``content_block`` JSON of ``content_block_start`` and then every
delta as ``json_text``. A block type not in the table is ``opaque`` too, with
a warning. The provider's ``index`` is the contract's block index.

Unknown event types and delta types are skipped with a warning; a ``ping``
is a heartbeat wherever it arrives. Empty fragments (the ``""`` that often
opens a ``tool_use`` block's ``input_json_delta`` run) produce no event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Heartbeat, Ignore, OpenBlock, Start
from ..sse import Frame
from .anthropic_usage import merge_usage, normalize_usage
from .base import Adapter, Lane, event_type, fail_from_error_object
from .fields import IGNORED, READ, FieldAccount, FieldTable
from .plain import Param, Plain, Shape

__all__ = [
    "BLOCK_TYPES",
    "DELTA_TYPES",
    "FINAL_SIGNALS",
    "PLAIN",
    "STOP_REASONS",
    "AnthropicAdapter",
    "normalize_usage",
]

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "message_stop": ("completed", "with a stop_reason announced and every block closed"),
    "error": ("failed", "category from error.type"),
}
"""Event type → (terminal state, condition). Nothing else ends a stream: without one
of these the end of the bytes is ``interrupted``. The module docstring has the
failure rows (open block, missing stop_reason, second message_start)."""

STOP_REASONS: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    # The model's context window, not max_tokens, ran out: still a length cut.
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "refusal",
    # A long server-tool turn paused; the client sends it back to continue.
    "pause_turn": "other",
}
"""Anthropic ``stop_reason`` → contract ``finish_reason``; anything else is ``other``."""

# content_block type -> how the adapter treats it ("mode"). The mode decides
# the contract kind (_MODE_KIND), which deltas belong (DELTA_TYPES) and what
# the start frame already carries (_START_CONTENT).
BLOCK_TYPES: Final[dict[str, str]] = {
    "text": "text",
    "tool_use": "tool_use",
    "thinking": "thinking",
    "redacted_thinking": "redacted_thinking",
    # Run by Anthropic (or an MCP server it calls), never by the client.
    "server_tool_use": "opaque",
    "web_search_tool_result": "opaque",
    "web_fetch_tool_result": "opaque",
    "code_execution_tool_result": "opaque",
    "bash_code_execution_tool_result": "opaque",
    "text_editor_code_execution_tool_result": "opaque",
    "tool_search_tool_result": "opaque",
    "mcp_tool_use": "opaque",
    "mcp_tool_result": "opaque",
    "container_upload": "opaque",
    "compaction": "opaque",
}

_MODE_KIND: Final[dict[str, str]] = {
    "text": "text",
    "tool_use": "tool_call",
    "thinking": "reasoning",
    "redacted_thinking": "reasoning",
    "opaque": "opaque",
}

# delta type -> (contract delta kind, field holding the fragment, modes it may arrive in).
# In an opaque block every delta is carried as json_text instead (see _opaque_delta).
DELTA_TYPES: Final[dict[str, tuple[str, str, frozenset[str]]]] = {
    "text_delta": ("text", "text", frozenset({"text"})),
    "citations_delta": ("citation", "citation", frozenset({"text"})),
    "input_json_delta": ("json_text", "partial_json", frozenset({"tool_use"})),
    "thinking_delta": ("text", "thinking", frozenset({"thinking"})),
    "signature_delta": ("signature", "signature", frozenset({"thinking", "redacted_thinking"})),
}

# v1.1 unread-field accounting: per event type (content_block_start per block
# mode), the fields read and those read only to ignore. An opaque block's start
# and deltas are carried whole, so all of them are read.
_TYPE_INDEX: Final = {"type": READ, "index": READ}
EVENT_FIELDS: Final[FieldTable] = {
    "message_start": {
        "type": READ,
        "message": {
            "id": READ, "type": IGNORED, "role": IGNORED, "model": READ, "usage": READ,
            "content": IGNORED,  # always [] in a stream: the blocks follow as events
            "stop_reason": IGNORED, "stop_sequence": IGNORED,  # null until message_delta
        },
    },
    "content_block_start:text": {
        **_TYPE_INDEX, "content_block": {"type": READ, "text": READ, "citations": READ}},
    "content_block_start:tool_use": {
        **_TYPE_INDEX,
        # `caller` is read below: only a call not made directly (code execution's
        # programmatic tool calling) is worth a warning.
        "content_block": {"type": READ, "id": READ, "name": READ, "input": READ, "caller": READ},
    },
    "content_block_start:thinking": {
        **_TYPE_INDEX, "content_block": {"type": READ, "thinking": READ, "signature": READ}},
    "content_block_start:redacted_thinking": {
        **_TYPE_INDEX, "content_block": {"type": READ, "data": READ}},
    "content_block_start:opaque": {**_TYPE_INDEX, "content_block": READ},
    # (only for a tool_use whose caller is not "direct": everything but it is read)
    "content_block_start:caller": {
        **_TYPE_INDEX,
        "content_block": {"type": READ, "id": READ, "name": READ, "input": READ},
    },
    "content_block_delta": {
        **_TYPE_INDEX,
        "delta": {"type": READ, **{field: READ for _, field, _ in DELTA_TYPES.values()}},
    },
    "content_block_delta:opaque": {**_TYPE_INDEX, "delta": READ},
    "content_block_stop": _TYPE_INDEX,
    "message_delta": {
        "type": READ,
        "delta": {"stop_reason": READ, "stop_sequence": IGNORED},
        "usage": READ,
    },
    # Bedrock's invoke API adds its own metrics to the last event.
    "message_stop": {"type": READ, "amazon-bedrock-invocationMetrics": IGNORED},
    "ping": {"type": READ},
    "error": {"type": READ, "error": READ, "request_id": IGNORED},
}  # fmt: skip


def _plain_delta(delta_type: str, field: str) -> Shape:
    """A ``content_block_delta`` of ``delta_type`` for the lane's block, nothing else in it."""
    return Shape(
        text=("delta", field),
        keys={(): frozenset({"type", "index", "delta"}), ("delta",): frozenset({"type", field})},
        equal={
            ("type",): "content_block_delta",
            ("index",): Param("index"),
            ("delta", "type"): delta_type,
        },
        templates=True,
    )


PLAIN: Final = Plain(
    shapes={
        # By the lane's delta kind and its block's mode: which delta type continues it.
        (kind, mode): _plain_delta(delta_type, field)
        for delta_type, (kind, field, modes) in DELTA_TYPES.items()
        if kind != "citation"
        for mode in modes
    }
)
"""What a plain event is (see :mod:`.plain`): the fast path's one description. It
changes no state (the event names its block)."""


def _string_deltas(
    index: int, block: Mapping[str, Any], fields: tuple[tuple[str, str], ...]
) -> list[Action]:
    """A delta of each ``(field, delta kind)`` whose value in ``block`` is a non-empty string."""
    out: list[Action] = []
    for field, kind in fields:
        value = block.get(field)
        if isinstance(value, str) and value:
            out.append(Delta(index, kind, value))
    return out


def _text_start(index: int, block: Mapping[str, Any]) -> list[Action]:
    out = _string_deltas(index, block, (("text", "text"),))
    citations = block.get("citations")
    if isinstance(citations, list):
        out.extend(Delta(index, "citation", "", citation=c) for c in citations)
    return out


def _tool_use_start(index: int, block: Mapping[str, Any]) -> list[Action]:
    # The start frame carries ``input: {}`` as a placeholder; the arguments come
    # as input_json_delta. A non-empty object here is real content: keep it.
    value = block.get("input")
    if isinstance(value, dict) and value:
        return [Delta(index, "json_text", orjson.dumps(value).decode())]
    return []


def _thinking_start(index: int, block: Mapping[str, Any]) -> list[Action]:
    return _string_deltas(index, block, (("thinking", "text"), ("signature", "signature")))


def _redacted_thinking_start(index: int, block: Mapping[str, Any]) -> list[Action]:
    # Encrypted reasoning: nothing to read, but it must be sent back verbatim,
    # which is exactly what a signature is for.
    return _string_deltas(index, block, (("data", "signature"),))


def _opaque_start(index: int, block: Mapping[str, Any]) -> list[Action]:
    return [Delta(index, "json_text", orjson.dumps(block).decode())]


_START_CONTENT: Final[dict[str, Callable[[int, Mapping[str, Any]], list[Action]]]] = {
    "text": _text_start,
    "tool_use": _tool_use_start,
    "thinking": _thinking_start,
    "redacted_thinking": _redacted_thinking_start,
    "opaque": _opaque_start,
}


class AnthropicAdapter(Adapter):
    """Anthropic Messages stream events to actions; see the module's final-signal table."""

    provider = "anthropic"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.message_started = False
        self.stopped = False
        self.modes: dict[int, str] = {}  # block index -> mode (see BLOCK_TYPES)
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self._lane: tuple[int, str] | None = None  # (block, delta kind) of the last delta
        self.fields = FieldAccount(EVENT_FIELDS)
        self.first_start: str | None = None  # message_start as sent (v1.1 repeats)

    def feed(self, frame: Frame) -> list[Action]:
        """Map one frame: one table lookup on the event's ``type``."""
        if not isinstance(data := self._object(frame), dict):
            return [data]  # not a JSON object: a problem or a skipped frame
        out: list[Action] = []
        kind = event_type(data, frame)
        if not self.started and kind != "message_start":
            self.started = True
            out.append(Start(None))
        handler = _EVENTS.get(kind)
        if handler is None:
            out.append(Ignore(f"frame {frame.index}: unknown event type {kind!r} skipped"))
        elif kind == "message_start":  # (its warnings follow the stream.start it makes)
            handler(self, data, frame, out)
            self.fields.check(kind, data, frame.index, out)
        else:  # (warnings first: a final event's would come after the end)
            self.fields.check(self._field_type(kind, data), data, frame.index, out)
            handler(self, data, frame, out)
        return out

    def _field_type(self, kind: str, data: dict[str, Any]) -> str:
        """The unread-field table's key for an event: block events by their block's mode."""
        if kind == "content_block_start":
            block = data.get("content_block")
            block_type = block.get("type") if isinstance(block, dict) else None
            mode = BLOCK_TYPES.get(block_type, "opaque") if isinstance(block_type, str) else ""
            return f"{kind}:{mode}"
        if kind == "content_block_delta":
            delta = data.get("delta")
            delta_type = delta.get("type") if isinstance(delta, dict) else None
            index = data.get("index")
            opaque = type(index) is int and self.modes.get(index) == "opaque"
            # (an unknown delta type was reported whole as unknown_delta)
            if opaque or not isinstance(delta_type, str) or delta_type not in DELTA_TYPES:
                return "content_block_delta:opaque"
        return kind

    def lane(self) -> Lane | None:
        """The block and delta kind of the last delta: what a plain event extends."""
        lane = self._lane
        if lane is None:
            return None
        key = (lane[1], self.modes.get(lane[0]))
        return (lane[0], lane[1], key, (lane[0],)) if key in PLAIN.shapes else None

    def eof_note(self) -> str | None:
        """Say when the stop reason was announced but ``message_stop`` never came."""
        if self.stop_reason is not None and not self.stopped:
            return (
                f"message_delta announced stop_reason {self.stop_reason!r}, but "
                "message_stop never arrived, so the end was not proved"
            )
        return None

    # -- one method per event type (see _EVENTS) -------------------------------

    def _message_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        if self.message_started and frame.data == self.first_start:
            # v1.1: the same start frame again, byte for byte (a retrying relay).
            out.append(
                Ignore(
                    f"frame {frame.index}: message_start repeated byte for byte; ignored",
                    "repeated_start",
                )
            )
            return
        if self.message_started:
            out.append(
                Fail(
                    "protocol_error",
                    None,
                    f"frame {frame.index}: a second message_start; one stream carries one message",
                )
            )
            return
        self.message_started = True
        self.first_start = frame.data
        message = data.get("message")
        if not isinstance(message, dict):
            message = {}
        model = message.get("model")
        self.model = model if isinstance(model, str) else None
        message_id = message.get("id")
        self.response_id = message_id if isinstance(message_id, str) else None
        usage = message.get("usage")
        if isinstance(usage, dict):
            self.usage = merge_usage(None, usage)
        if not self.started:
            self.started = True
            out.append(Start(self.model))

    def _block_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        if (found := _indexed(data, "content_block_start", "content_block", frame, out)) is None:
            return
        index, block = found
        block_type = block.get("type")
        mode = BLOCK_TYPES.get(block_type) if isinstance(block_type, str) else None
        provider_type = block_type if isinstance(block_type, str) else "unknown"
        known = mode is not None
        if mode is None:
            mode = "opaque"
        self.modes[index] = mode
        kind = _MODE_KIND[mode]
        if kind == "tool_call":
            name = block.get("name")
            call_id = block.get("id")
            out.append(
                OpenBlock(
                    index,
                    kind,
                    provider_type,
                    name=name if isinstance(name, str) else None,
                    call_id=call_id if isinstance(call_id, str) and call_id else None,
                )
            )
        else:
            out.append(OpenBlock(index, kind, provider_type))
        out.extend(_START_CONTENT[mode](index, block))
        caller = block.get("caller")
        if mode == "tool_use" and isinstance(caller, dict) and caller.get("type") != "direct":
            self.fields.check("content_block_start:caller", data, frame.index, out)
        if not known:
            out.append(
                Ignore(
                    f"frame {frame.index}: content block type {provider_type!r} is not modelled; "
                    f"b_{index} is kept as an opaque block",
                    "unknown_block",
                )
            )

    def _block_delta(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        if (found := _indexed(data, "content_block_delta", "delta", frame, out)) is None:
            return
        index, delta = found
        delta_type = delta.get("type")
        mode = self.modes.get(index)
        if mode == "opaque":
            _opaque_delta(index, delta, delta_type, out)
            return
        rule = DELTA_TYPES.get(delta_type) if isinstance(delta_type, str) else None
        if rule is None:
            out.append(
                Ignore(
                    f"frame {frame.index}: unknown delta type {delta_type!r} for b_{index} skipped",
                    "unknown_delta",
                )
            )
            return
        kind, field, modes = rule
        # A delta for an index never opened still goes to the machine, which
        # refuses it by name (rule 2) rather than the adapter guessing.
        if mode is not None and mode not in modes:
            out.append(
                Ignore(
                    f"frame {frame.index}: a {delta_type} cannot extend b_{index}, a {mode} "
                    "block; skipped",
                    "unexpected_delta",
                )
            )
            return
        value = delta.get(field)
        if kind == "citation":
            out.append(Delta(index, "citation", "", citation=value))
        elif isinstance(value, str):
            if value:
                out.append(Delta(index, kind, value))
                self._lane = (index, kind)
        else:
            out.append(
                Ignore(
                    f"frame {frame.index}: {delta_type} for b_{index} has no string {field!r}",
                    "malformed_delta",
                )
            )

    def _block_stop(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = _index(data, frame, out)
        if index is not None:
            out.append(CloseBlock(index))

    def _message_delta(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        delta = data.get("delta")
        if isinstance(delta, dict):
            reason = delta.get("stop_reason")
            if isinstance(reason, str) and reason:
                self.stop_reason = reason
        usage = data.get("usage")
        if isinstance(usage, dict):
            self.usage = merge_usage(self.usage, usage)

    def _message_stop(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        self.stopped = True
        if self.stop_reason is None:
            out.append(
                Fail(
                    "protocol_error",
                    None,
                    f"frame {frame.index}: message_stop arrived but no message_delta carried a "
                    "stop_reason",
                )
            )
            return
        usage = normalize_usage(self.usage) if self.usage is not None else None
        reason = STOP_REASONS.get(self.stop_reason, "other")
        if reason in ("stop", "other") and "tool_use" in self.modes.values():
            reason = "tool_calls"  # v1.1: finish reason from content
        out.append(
            Finish(
                reason,
                self.stop_reason,
                usage,
                self.model,
                self.response_id,
            )
        )

    def _ping(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        out.append(Heartbeat("ping"))

    def _error(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        error = data.get("error")
        if isinstance(error, dict):
            out.append(fail_from_error_object(error))
        else:
            out.append(
                Fail(
                    "unknown", None, f"frame {frame.index}: an error event without an error object"
                )
            )


_Handler = Callable[[AnthropicAdapter, dict[str, Any], Frame, list[Action]], None]

# The dispatch table: event type -> handler. Anything else is skipped with a warning.
_EVENTS: Final[dict[str, _Handler]] = {
    "message_start": AnthropicAdapter._message_start,
    "content_block_start": AnthropicAdapter._block_start,
    "content_block_delta": AnthropicAdapter._block_delta,
    "content_block_stop": AnthropicAdapter._block_stop,
    "message_delta": AnthropicAdapter._message_delta,
    "message_stop": AnthropicAdapter._message_stop,
    "ping": AnthropicAdapter._ping,
    "error": AnthropicAdapter._error,
}


def _index(data: dict[str, Any], frame: Frame, out: list[Action]) -> int | None:
    index = data.get("index")
    # int_or_none inlined (one call less a delta): `type() is int` leaves out bool.
    if type(index) is int and index >= 0:
        return index
    out.append(_malformed(frame, f"{data.get('type')} has no valid 'index'"))
    return None


def _indexed(
    data: dict[str, Any], event: str, field: str, frame: Frame, out: list[Action]
) -> tuple[int, dict[str, Any]] | None:
    """A block ``event``'s index and its ``field`` object; None when either is missing
    (the protocol error is in ``out``)."""
    index = _index(data, frame, out)
    if index is None:
        return None
    value = data.get(field)
    if not isinstance(value, dict):
        out.append(_malformed(frame, f"{event} has no {field} object"))
        return None
    return index, value


def _malformed(frame: Frame, what: str) -> Fail:
    return Fail("protocol_error", None, f"frame {frame.index}: {what}")


def _opaque_delta(index: int, delta: Mapping[str, Any], delta_type: Any, out: list[Action]) -> None:
    # input_json_delta continues the server tool's input; any other delta
    # (compaction_delta, …) is carried whole, so nothing is dropped.
    if delta_type == "input_json_delta":
        fragment = delta.get("partial_json")
        if isinstance(fragment, str):
            if fragment:
                out.append(Delta(index, "json_text", fragment))
            return
    out.append(Delta(index, "json_text", orjson.dumps(delta).decode()))
