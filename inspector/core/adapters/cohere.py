"""Cohere v2 chat streaming (``POST /v2/chat``, ``stream: true``, SSE) → contract actions.

Final signals
-------------
===============================================  ==========================================
signal                                           outcome
===============================================  ==========================================
``message-end`` with a ``finish_reason`` of      ``completed``; ``finish_reason`` from
:data:`FINISH_REASONS`, every block closed       that table, usage from ``delta.usage``
``message-end`` with a ``finish_reason`` of      ``failed``; category from that table
:data:`FAILED_REASONS` (``ERROR``, ``TIMEOUT``…)  (``delta.error`` as the message)
``message-end`` while a block is open            ``failed`` / ``protocol_error``
a frame ``{"message": ...}`` / ``{"error": ...}``  ``failed``; category from the text
without a ``type`` (an error mid-stream)
bytes end before ``message-end``                 ``interrupted``
===============================================  ==========================================

Blocks: Cohere numbers content, tool calls and citations each from 0; the
contract's index is the order in which blocks open (:data:`EVENTS`).
``content-start``/``-delta``/``-end`` with ``content.type`` ``text`` →
``text`` (``thinking`` → ``reasoning``); ``tool-plan-delta`` → a
``reasoning`` block of provider type ``tool_plan``, open until the next
other event; ``tool-call-start``/``-delta``/``-end`` → ``tool_call`` (its
``id`` and ``function.name``, ``function.arguments`` as ``json_text``);
``citation-start`` → a ``citation`` delta on the open text block (or, when
none is open, an ``opaque`` block ``citation`` holding it, closed at
``citation-end``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, Start
from ..errors import category_for
from ..sse import Frame
from .base import Adapter, Lane, event_type, int_or_none
from .content_rule import by_content
from .fields import IGNORED, READ, FieldAccount, FieldTable
from .plain import Param, Plain, Shape

__all__ = [
    "CONTENT_KINDS",
    "EVENT_FIELDS",
    "FAILED_REASONS",
    "FINAL_SIGNALS",
    "FINISH_REASONS",
    "PLAIN",
    "CohereAdapter",
]

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "message-end (FINISH_REASONS)": ("completed", "every block closed"),
    "message-end (FAILED_REASONS)": ("failed", "category from FAILED_REASONS"),
}
"""Event → (terminal state, condition). Without ``message-end`` the end is ``interrupted``."""

FINISH_REASONS: Final[dict[str, str]] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
    "ERROR_TOXIC": "content_filter",
}
"""``finish_reason`` of a deliberate end → contract ``finish_reason``."""

FAILED_REASONS: Final[dict[str, str]] = {
    "ERROR": "server_error",
    "TIMEOUT": "server_error",
    "ERROR_LIMIT": "context_length",
    "USER_CANCEL": "cancelled",
}
"""``finish_reason`` that is no result → error category. Any other reason is ``other``."""

#: content.type -> (block kind, the field of content-delta's content holding the text).
CONTENT_KINDS: Final[dict[str, tuple[str, str]]] = {
    "text": ("text", "text"),
    "thinking": ("reasoning", "thinking"),
}


_TYPE_INDEX: Final = {"type": READ, "index": READ}
_CONTENT: Final = {"type": READ, "text": READ, "thinking": READ}
EVENT_FIELDS: Final[FieldTable] = {
    # (the message's lists are empty at its start: the content follows as events)
    "message-start": {"type": READ, "id": READ, "delta": {"message": {"role": IGNORED}}},
    "content-start": {**_TYPE_INDEX, "delta": {"message": {"content": _CONTENT}}},
    # A content type without a rule is an opaque block that carries its content whole.
    "content-start:opaque": {**_TYPE_INDEX, "delta": {"message": {"content": READ}}},
    "content-delta": {**_TYPE_INDEX, "delta": {"message": {"content": _CONTENT}}},
    "content-end": _TYPE_INDEX,
    "tool-plan-delta": {"type": READ, "delta": {"message": {"tool_plan": READ}}},
    "tool-call-start": {
        **_TYPE_INDEX,
        "delta": {"message": {"tool_calls": {
            "id": READ, "type": IGNORED, "function": {"name": READ, "arguments": READ}}}},
    },
    "tool-call-delta": {
        **_TYPE_INDEX,
        "delta": {"message": {"tool_calls": {"function": {"arguments": READ}}}},
    },
    "tool-call-end": _TYPE_INDEX,
    "citation-start": {**_TYPE_INDEX, "delta": {"message": {"citations": READ}}},
    "citation-end": _TYPE_INDEX,
    "message-end": {
        "type": READ, "id": IGNORED,
        "delta": {"finish_reason": READ, "error": READ, "usage": READ},
    },
}  # fmt: skip
"""v1.1 unread-field accounting per event type (:mod:`.fields`); ``debug`` is kept whole."""

PLAIN: Final = Plain(
    shapes={
        # A content-delta whose content is only more ``text`` for the open text block
        # (the block of its provider ``index``).
        "text": Shape(
            text=("delta", "message", "content", "text"),
            keys={
                (): frozenset({"type", "index", "delta"}),
                ("delta",): frozenset({"message"}),
                ("delta", "message"): frozenset({"content"}),
                ("delta", "message", "content"): frozenset({"text"}),
            },
            equal={("type",): "content-delta", ("index",): Param("index")},
            templates=True,
        )
    }
)
"""What a plain event is (see :mod:`.plain`)."""


def _provider_index(data: Mapping[str, Any]) -> int:
    """The event's ``index`` (-1 when it has none: such events share one key)."""
    index = data.get("index")
    return index if type(index) is int else -1


def _message(data: Mapping[str, Any]) -> Mapping[str, Any]:
    delta = data.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    return message if isinstance(message, dict) else {}


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Cohere usage → the contract's: billed units when given, else the raw token counts."""
    billed = usage.get("billed_units")
    tokens = usage.get("tokens")
    counts = billed if isinstance(billed, dict) and billed else tokens
    counts = counts if isinstance(counts, dict) else {}
    return {
        "input_tokens": int_or_none(counts.get("input_tokens")),
        "output_tokens": int_or_none(counts.get("output_tokens")),
        "raw": dict(usage),
    }


Handler = Callable[["CohereAdapter", dict[str, Any], Frame, list[Action]], None]


class CohereAdapter(Adapter):
    """Cohere v2 chat events to actions; see the module's final-signal table."""

    provider = "cohere"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.next_index = 0
        self.blocks: dict[tuple[str, int], tuple[int, str]] = {}  # (space, index) -> (block, kind)
        self.open_text: int | None = None
        self.text_index = -1  # the provider index of the open text block
        self.fields = FieldAccount(EVENT_FIELDS)
        self.plan: int | None = None  # the open tool_plan block
        self.called_tools = False
        self.response_id: str | None = None

    def feed(self, frame: Frame) -> list[Action]:
        """Map one event by its ``type`` (the SSE event name says the same)."""
        if not isinstance(data := self._object(frame), dict):
            return [data]  # not a JSON object: a problem or a skipped frame
        out: list[Action] = []
        kind = event_type(data, frame)
        if not self.started:
            self.started = True
            if kind != "message-start":
                out.append(Start(None))
        if self.plan is not None and kind in EVENTS and kind not in _PLAN_KEEPS_OPEN:
            out.append(CloseBlock(self.plan))
            self.plan = None
        handler = EVENTS.get(kind)
        if handler is not None:
            self.fields.check(_field_type(kind, data), data, frame.index, out)
            handler(self, data, frame, out)
        elif "message" in data or "error" in data:
            out.append(_error(data))
        else:
            out.append(Ignore(f"frame {frame.index}: unknown event type {kind!r} skipped"))
        return out

    def lane(self) -> Lane | None:
        """The open text block, while its provider index still names it and no plan is open."""
        block = self.open_text
        if block is None or self.plan is not None:
            return None
        if self.blocks.get(("content", self.text_index), (None,))[0] != block:
            return None
        return block, "text", "text", (self.text_index,)

    def _open(
        self,
        space: str,
        data: dict[str, Any],
        kind: str,
        provider_type: str,
        out: list[Action],
        **named: str | None,
    ) -> int:
        """:meth:`_open_block` (``named``: its ``name``, ``call_id``), the block kept
        under the event's ``space`` and provider index."""
        index = self._open_block(kind, provider_type, out, **named)
        self.blocks[(space, _provider_index(data))] = (index, kind)
        return index

    def _block(
        self, space: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> int | None:
        found = self.blocks.get((space, _provider_index(data)))
        if found is None:
            out.append(
                Fail(
                    "protocol_error",
                    None,
                    f"frame {frame.index}: {data.get('type')} for "
                    f"{space} {data.get('index')!r}, which was never started",
                )
            )
            return None
        return found[0]

    def _message_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        response_id = data.get("id")
        self.response_id = response_id if isinstance(response_id, str) else None
        out.append(Start(None))

    def _content_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        content = _message(data).get("content")
        content_type = content.get("type") if isinstance(content, dict) else None
        rule = CONTENT_KINDS.get(content_type) if isinstance(content_type, str) else None
        kind, field = rule if rule is not None else ("opaque", "")
        index = self._open("content", data, kind, str(content_type), out)
        if kind == "text":
            self.open_text = index
            self.text_index = _provider_index(data)
        if isinstance(content, dict):
            text = content.get(field) if field else orjson.dumps(content).decode()
            if isinstance(text, str) and text:
                out.append(Delta(index, "json_text" if kind == "opaque" else "text", text))

    def _content_delta(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._block("content", data, frame, out)
        if index is None:
            return
        content = _message(data).get("content")
        if not isinstance(content, dict):
            out.append(
                Ignore(f"frame {frame.index}: content-delta without content", "malformed_delta")
            )
            return
        for field in ("text", "thinking"):
            text = content.get(field)
            if isinstance(text, str) and text:
                out.append(Delta(index, "text", text))

    def _content_end(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._block("content", data, frame, out)
        if index is not None:
            out.append(CloseBlock(index))
            if index == self.open_text:
                self.open_text = None

    def _tool_plan(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        text = _message(data).get("tool_plan")
        if not isinstance(text, str) or not text:
            return
        if self.plan is None:
            self.plan = self._open("tool_plan", data, "reasoning", "tool_plan", out)
        out.append(Delta(self.plan, "text", text))

    def _tool_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        found = _message(data).get("tool_calls")
        call: Mapping[str, Any] = found if isinstance(found, dict) else {}
        named = call.get("function")
        function: Mapping[str, Any] = named if isinstance(named, dict) else {}
        name, call_id = function.get("name"), call.get("id")
        index = self._open(
            "tool_call",
            data,
            "tool_call",
            "tool_call",
            out,
            name=name if isinstance(name, str) else None,
            call_id=call_id if isinstance(call_id, str) and call_id else None,
        )
        self.called_tools = True
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(Delta(index, "json_text", arguments))

    def _tool_delta(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._block("tool_call", data, frame, out)
        if index is None:
            return
        call = _message(data).get("tool_calls")
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str) and arguments:
            out.append(Delta(index, "json_text", arguments))

    def _tool_end(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._block("tool_call", data, frame, out)
        if index is not None:
            out.append(CloseBlock(index))

    def _citation_start(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        citation = _message(data).get("citations")
        if self.open_text is not None:
            out.append(Delta(self.open_text, "citation", "", citation=citation))
            return
        index = self._open("citation", data, "opaque", "citation", out)
        out.append(Delta(index, "json_text", orjson.dumps(citation).decode()))

    def _citation_end(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        found = self.blocks.pop(("citation", _provider_index(data)), None)
        if found is not None:
            out.append(CloseBlock(found[0]))

    def _message_end(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        delta = data.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        reason = delta.get("finish_reason")
        failed = FAILED_REASONS.get(reason) if isinstance(reason, str) else None
        if failed is not None:
            error = delta.get("error")
            message = (
                error if isinstance(error, str) and error else f"Cohere finish_reason {reason}"
            )
            status = "interrupted" if failed == "cancelled" else "failed"
            out.append(Fail(failed, reason, message, status))
            return
        usage = delta.get("usage")
        finish = FINISH_REASONS.get(reason, "other") if isinstance(reason, str) else "other"
        out.append(
            Finish(
                by_content(finish, self.called_tools),
                reason,
                usage=normalize_usage(usage) if isinstance(usage, dict) else None,
                response_id=self.response_id,
            )
        )

    def _debug(self, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        return None  # diagnostics only: kept in the trace


def _field_type(kind: str, data: Mapping[str, Any]) -> str:
    """The row of :data:`EVENT_FIELDS` for an event: a content-start by its content's rule."""
    if kind != "content-start":
        return kind
    content = _message(data).get("content")
    content_type = content.get("type") if isinstance(content, dict) else None
    known = isinstance(content_type, str) and content_type in CONTENT_KINDS
    return kind if known else "content-start:opaque"


def _error(data: Mapping[str, Any]) -> Fail:
    error = data.get("error")
    message = data.get("message") if not isinstance(error, dict) else error.get("message")
    text = message if isinstance(message, str) and message else "Cohere error"
    code = error.get("type") if isinstance(error, dict) else None
    return Fail(category_for(code), code, text)


#: Events that leave the tool plan open (any other known event ends it; unknown ones do not).
_PLAN_KEEPS_OPEN: Final = frozenset({"tool-plan-delta", "debug"})

EVENTS: Final[dict[str, Handler]] = {
    "message-start": CohereAdapter._message_start,
    "content-start": CohereAdapter._content_start,
    "content-delta": CohereAdapter._content_delta,
    "content-end": CohereAdapter._content_end,
    "tool-plan-delta": CohereAdapter._tool_plan,
    "tool-call-start": CohereAdapter._tool_start,
    "tool-call-delta": CohereAdapter._tool_delta,
    "tool-call-end": CohereAdapter._tool_end,
    "citation-start": CohereAdapter._citation_start,
    "citation-end": CohereAdapter._citation_end,
    "message-end": CohereAdapter._message_end,
    "debug": CohereAdapter._debug,
}
"""Event type → handler (also the event names detection looks for)."""
