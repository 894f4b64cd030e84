"""Ollama's native API (``/api/chat``, ``/api/generate``, NDJSON) → contract actions.

Frames are NDJSON lines (framing ``ndjson``), each one JSON object.

Final signals
-------------
===============================================  ==========================================
signal                                           outcome
===============================================  ==========================================
a line with ``done: true``                       ``completed``; ``finish_reason`` from its
                                                 ``done_reason`` (:data:`DONE_REASONS`),
                                                 usage from ``prompt_eval_count`` /
                                                 ``eval_count``
a line ``{"error": "..."}`` (sent with status    ``failed``; category from
200 once the stream began)                       :data:`ERROR_PATTERNS`, else
                                                 ``server_error``
bytes end before a ``done: true`` line           ``interrupted``
===============================================  ==========================================

Blocks: ``/api/chat`` lines carry ``message.thinking`` (→ ``reasoning``),
``message.content`` (→ ``text``) and ``message.tool_calls`` (each a whole
call → one ``tool_call`` block: opened, its ``arguments`` as one
``json_text`` delta, closed); ``/api/generate`` lines carry ``thinking`` and
``response`` at the top level (:data:`TEXT_FIELDS`). A block stays open while
lines extend it and closes when another kind starts or at ``done``. Ollama
gives tool calls no id (newer versions may: ``id`` is taken when present).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, Start
from ..sse import Frame
from .base import Adapter, Lane, int_or_none
from .content_rule import by_content
from .fields import IGNORED, READ, FieldAccount, FieldTable
from .plain import Plain, Shape

__all__ = [
    "DONE_REASONS",
    "ERROR_PATTERNS",
    "FINAL_SIGNALS",
    "LINE_FIELDS",
    "PLAIN",
    "TEXT_FIELDS",
    "OllamaAdapter",
]

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "done: true": ("completed", "every block closed; finish_reason from done_reason"),
    "error": ("failed", "category from ERROR_PATTERNS"),
}
"""Line → (terminal state, condition). Without one the end of the bytes is ``interrupted``."""

DONE_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "load": "other",  # an empty request that only loaded the model
    "unload": "other",
}
"""``done_reason`` → contract ``finish_reason``; anything else (or none) is ``other``."""

ERROR_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    ("not found", "not_found"),
    ("context length", "context_length"),
    ("unauthorized", "authentication"),
    ("invalid api key", "authentication"),
    ("rate limit", "rate_limited"),
    ("too many requests", "rate_limited"),
    ("server busy", "upstream_overloaded"),
    ("invalid", "invalid_request"),
)
"""Words in an ``error`` string (lower case) → category, first match wins."""

#: Where each kind's text is: (chat field in ``message``, generate field at the top level).
TEXT_FIELDS: Final[dict[str, tuple[str, str, str]]] = {
    "reasoning": ("thinking", "thinking", "thinking"),
    "text": ("content", "response", "text"),
}
"""Block kind → (``message`` field, top-level field, provider_type). Order is the order
of blocks within one line: thinking comes before content."""

LINE_FIELDS: Final[FieldTable] = {
    "line": {
        "model": READ, "done": READ, "done_reason": READ, "error": READ,
        "prompt_eval_count": READ, "eval_count": READ,
        "response": READ, "thinking": READ,  # (/api/generate)
        "message": {
            "role": IGNORED, "content": READ, "thinking": READ, "images": IGNORED,
            "tool_calls": {
                "id": READ,
                "function": {"name": READ, "arguments": READ, "index": IGNORED},
            },
        },
        # Timings and the generate context (token ids to send back): ignored.
        "created_at": IGNORED, "total_duration": IGNORED, "load_duration": IGNORED,
        "prompt_eval_duration": IGNORED, "eval_duration": IGNORED, "context": IGNORED,
    }
}  # fmt: skip
"""v1.1 unread-field accounting: the fields a line's reading covers (:mod:`.fields`)."""


#: The keys of a line that only extends the text (the model is read at the start and at done).
_LINE_KEYS: Final = frozenset({"model", "created_at", "done"})

PLAIN: Final = Plain(
    shapes={
        # An /api/chat line whose message is only more ``content`` for the open text block.
        "chat": Shape(
            text=("message", "content"),
            keys={(): _LINE_KEYS | {"message"}, ("message",): frozenset({"role", "content"})},
            equal={("done",): False},
            templates=True,
        ),
        # An /api/generate line that is only more ``response``.
        "generate": Shape(
            text=("response",),
            keys={(): _LINE_KEYS | {"response"}},
            equal={("done",): False},
            templates=True,
        ),
    }
)
"""What a plain line is (see :mod:`.plain`): NDJSON lines feed runs as SSE frames do."""


def _category(message: str) -> str:
    lowered = message.lower()
    for words, category in ERROR_PATTERNS:
        if words in lowered:
            return category
    return "server_error"


def normalize_usage(line: Mapping[str, Any]) -> dict[str, Any] | None:
    """The contract's usage from the counts of the ``done`` line (None without any)."""
    prompt = int_or_none(line.get("prompt_eval_count"))
    generated = int_or_none(line.get("eval_count"))
    if prompt is None and generated is None:
        return None
    raw = {key: line[key] for key in ("prompt_eval_count", "eval_count") if key in line}
    return {"input_tokens": prompt, "output_tokens": generated, "raw": raw}


class OllamaAdapter(Adapter):
    """Ollama NDJSON lines to actions; see the module's final-signal table."""

    provider = "ollama"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.next_index = 0
        self.open: tuple[int, str] | None = None  # (block index, kind) of the open block
        self.called_tools = False
        self.fields = FieldAccount(LINE_FIELDS)
        self.chat = True  # the last line's endpoint: a ``message`` (chat) or not (generate)

    def feed(self, frame: Frame) -> list[Action]:
        """Map one line: an error, else its content in order, then ``done``."""
        if not isinstance(line := self._object(frame, "line"), dict):
            return [line]  # not a JSON object: a problem or a skipped frame
        out: list[Action] = []
        if not self.started:
            self.started = True
            model = line.get("model")
            out.append(Start(model if isinstance(model, str) and model else None))
        error = line.get("error")
        if error is not None:
            text = error if isinstance(error, str) and error else f"Ollama error {error!r}"
            out.append(Fail(_category(text), "error", text))
            return out
        self.fields.check("line", line, frame.index, out)
        found = line.get("message")
        chat = self.chat = isinstance(found, dict)
        source: Mapping[str, Any] = found if isinstance(found, dict) else line
        for kind, (chat_field, generate_field, provider_type) in TEXT_FIELDS.items():
            piece = source.get(chat_field if chat else generate_field)
            if isinstance(piece, str) and piece:
                self._extend(kind, provider_type, piece, out)
        calls = source.get("tool_calls") if chat else None
        if isinstance(calls, list):
            for call in calls:
                self._tool_call(call, frame, out)
        if line.get("done") is True:
            self._close(out)
            reason = line.get("done_reason")
            finish = DONE_REASONS.get(reason, "other") if isinstance(reason, str) else "other"
            out.append(
                Finish(
                    by_content(finish, self.called_tools),
                    reason if isinstance(reason, str) else None,
                    usage=normalize_usage(line),
                    model=line.get("model") if isinstance(line.get("model"), str) else None,
                )
            )
        return out

    def lane(self) -> Lane | None:
        """The open text block, extended by lines like the last one (chat or generate)."""
        block = self.open
        if block is None or block[1] != "text":
            return None
        return block[0], "text", "chat" if self.chat else "generate", ()

    def _extend(self, kind: str, provider_type: str, text: str, out: list[Action]) -> None:
        if self.open is None or self.open[1] != kind:
            self._close(out)
            self.open = (self._open_block(kind, provider_type, out), kind)
        out.append(Delta(self.open[0], "text", text))

    def _tool_call(self, call: Any, frame: Frame, out: list[Action]) -> None:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            out.append(
                Ignore(f"frame {frame.index}: a tool call without a function", "malformed_delta")
            )
            return
        self._close(out)
        name, call_id = function.get("name"), call.get("id")
        index = self._open_block(
            "tool_call",
            "tool_calls",
            out,
            name=name if isinstance(name, str) else None,
            call_id=call_id if isinstance(call_id, str) and call_id else None,
        )
        arguments = function.get("arguments")
        text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
        if arguments is not None and text:
            out.append(Delta(index, "json_text", text))
        out.append(CloseBlock(index))
        self.called_tools = True

    def _close(self, out: list[Action]) -> None:
        if self.open is not None:
            out.append(CloseBlock(self.open[0]))
            self.open = None
