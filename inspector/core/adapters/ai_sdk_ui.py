"""The Vercel AI SDK UI message stream (``x-vercel-ai-ui-message-stream: v1``, SSE).

What an AI SDK server (``toUIMessageStreamResponse``) sends its browser
client: one JSON part per SSE event, then ``data: [DONE]``.

Final signals
-------------
===============================================  ==========================================
signal                                           outcome
===============================================  ==========================================
``finish`` part, then ``[DONE]``, every block    ``completed``; ``finish_reason`` from the
closed                                           finish part's ``finishReason``
                                                 (:data:`FINISH_REASONS`) when present, else
                                                 ``stop``; then tool calls without output
                                                 make it ``tool_calls``
``error`` part                                   ``failed``; ``errorText`` as the message
                                                 (category ``unknown``: the text is the
                                                 server's own)
``abort`` part                                   ``interrupted`` / ``cancelled``
``[DONE]`` with no ``finish`` before it          ``failed`` / ``protocol_error``
bytes end before ``[DONE]``                      ``interrupted`` (also after ``finish``: the
                                                 end was not proved)
===============================================  ==========================================

``finish`` announces the end and ``[DONE]``, which the AI SDK's server always
writes last, proves it (as for legacy Completions).

Blocks (:data:`PARTS`): ``text-start``/``-delta``/``-end`` → ``text``,
``reasoning-*`` → ``reasoning`` (blocks found by their ``id``);
``tool-input-start``/``-delta`` → ``tool_call`` (``toolCallId``,
``toolName``; ``inputTextDelta`` as ``json_text``), closed at
``tool-input-available`` (whose ``input`` is the arguments when none
streamed); a call the provider ran (``providerExecuted``) is ``opaque``.
``tool-output-available``/``-error``, ``source-url``, ``source-document``,
``file`` and ``data-*`` parts → one ``opaque`` block each, holding the part.
``start`` (its ``messageId``), ``start-step``, ``finish-step`` and
``message-metadata`` give no event. A call whose output arrived was run by
the server: only calls without output count for the finish reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, Start
from ..sse import Frame
from .base import Adapter, Lane, json_problem
from .content_rule import by_content
from .fields import IGNORED, READ, FieldAccount, FieldTable
from .plain import Param, Plain, Shape

__all__ = ["FINAL_SIGNALS", "FINISH_REASONS", "PARTS", "PART_FIELDS", "PLAIN", "AiSdkUiAdapter"]

DONE: Final = "[DONE]"

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "[DONE]": ("completed", "after a finish part, every block closed"),
    "error": ("failed", "errorText as the message"),
    "abort": ("interrupted", "category cancelled"),
}
"""Part type → (terminal state, condition). Without one the end is ``interrupted``."""

FINISH_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "content-filter": "content_filter",
    "tool-calls": "tool_calls",
    "error": "other",
    "other": "other",
    "unknown": "other",
}
"""``finishReason`` (AI SDK spelling) → contract ``finish_reason``."""

#: Streamed part families: prefix -> (block kind, the delta's field).
PARTS: Final[dict[str, tuple[str, str]]] = {
    "text": ("text", "delta"),
    "reasoning": ("reasoning", "delta"),
}
#: Parts that are one whole opaque block each (besides data-*).
WHOLE_PARTS: Final = frozenset(
    {"tool-output-available", "tool-output-error", "tool-input-error", "source-url",
     "source-document", "file"}
)  # fmt: skip
#: Parts that give no event (their content is kept in the trace).
SILENT_PARTS: Final = frozenset({"start-step", "finish-step", "message-metadata"})

_STREAMED: Final = {"type": READ, "id": READ, "delta": READ}
_TOOL: Final = {"type": READ, "toolCallId": READ, "toolName": READ, "providerExecuted": READ}
PART_FIELDS: Final[FieldTable] = {
    "start": {"type": READ, "messageId": READ},
    **{f"{family}-{step}": _STREAMED for family in PARTS for step in ("start", "delta", "end")},
    "tool-input-start": _TOOL,
    "tool-input-delta": {"type": READ, "toolCallId": READ, "inputTextDelta": READ},
    "tool-input-available": {**_TOOL, "input": READ},
    "finish": {"type": READ, "finishReason": READ},
    "error": {"type": READ, "errorText": READ},
    "abort": {"type": READ},
    "start-step": {"type": READ},
    "finish-step": {"type": READ},
    # Metadata the app attaches for its own UI: kept in the trace, no event.
    "message-metadata": {"type": READ, "messageMetadata": IGNORED},
}
"""v1.1 unread-field accounting per part type (:mod:`.fields`); whole parts are read whole."""

PLAIN: Final = Plain(
    shapes={
        # A text-delta part for the text part last started or extended (found by its id).
        "text": Shape(
            text=("delta",),
            keys={(): frozenset({"type", "id", "delta"})},
            equal={("type",): "text-delta", ("id",): Param("id", str)},
            templates=True,
        )
    }
)
"""What a plain part is (see :mod:`.plain`)."""


class AiSdkUiAdapter(Adapter):
    """AI SDK UI message stream parts to actions; see the module's final-signal table."""

    provider = "ai-sdk-ui"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.finished = False
        self.next_index = 0
        self.by_id: dict[str, tuple[int, str]] = {}  # part id / toolCallId -> (block, kind)
        self.calls: set[str] = set()  # client tool calls still without output
        self.response_id: str | None = None
        self.finish: dict[str, Any] | None = None  # the finish part, until [DONE] proves it
        self.text_id: str | None = None  # the id of the text part being written
        self.fields = FieldAccount(PART_FIELDS)

    def feed(self, frame: Frame) -> list[Action]:
        """Map one part by its ``type``."""
        out: list[Action] = []
        if frame.data == DONE:
            self._done(frame, out)
            return self._started(out)
        try:
            part = self._json(frame)
        except orjson.JSONDecodeError as exc:
            out.append(json_problem(frame, exc))
            return self._started(out)
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str):
            out.append(Ignore(f"frame {frame.index}: a part without a type skipped"))
            return self._started(out)
        assert isinstance(part, dict)
        self.fields.check(kind, part, frame.index, out)
        if kind == "start":
            message_id = part.get("messageId")
            self.response_id = message_id if isinstance(message_id, str) else None
            return self._started(out)
        self._started(out)
        family, _, step = kind.rpartition("-")
        if family in PARTS and step in ("start", "delta", "end"):
            self._streamed(family, step, part, frame, out)
        elif kind in _HANDLERS:
            _HANDLERS[kind](self, part, frame, out)
        elif kind in WHOLE_PARTS or kind.startswith("data-"):
            self._whole(kind, part, out)
        elif kind not in SILENT_PARTS:
            out.append(Ignore(f"frame {frame.index}: unknown part type {kind!r} skipped"))
        return out

    def _started(self, out: list[Action]) -> list[Action]:
        if not self.started:
            self.started = True
            out.insert(0, Start(None))
        return out

    def _find(self, key: Any, frame: Frame, out: list[Action]) -> int | None:
        found = self.by_id.get(key) if isinstance(key, str) else None
        if found is None:
            out.append(
                Fail(
                    "protocol_error",
                    None,
                    f"frame {frame.index}: a part for {key!r}, which was never started",
                )
            )
            return None
        return found[0]

    def _streamed(
        self, family: str, step: str, part: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        kind, field = PARTS[family]
        key = part.get("id")
        if family == "text":
            self._writing(key, step)
        if step == "start":
            self.by_id[f"{family}:{key}"] = (self._open_block(kind, family, out), kind)
            return
        index = self._find(f"{family}:{key}", frame, out)
        if index is None:
            return
        if step == "end":
            out.append(CloseBlock(index))
            return
        text = part.get(field)
        if isinstance(text, str) and text:
            out.append(Delta(index, "text", text))

    def _writing(self, key: Any, step: str) -> None:
        """Which text part plain deltas extend: the one last started or extended."""
        if step != "end":
            self.text_id = key if isinstance(key, str) else None
        elif key == self.text_id:
            self.text_id = None

    def lane(self) -> Lane | None:
        """The block of the text part being written."""
        text_id = self.text_id
        found = self.by_id.get(f"text:{text_id}") if text_id is not None else None
        return (found[0], "text", "text", (text_id,)) if found is not None else None

    def _tool_start(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        call_id, name = part.get("toolCallId"), part.get("toolName")
        server = part.get("providerExecuted") is True
        kind = "opaque" if server else "tool_call"
        index = self._open_block(
            kind,
            "tool-input",
            out,
            name=None if server or not isinstance(name, str) else name,
            call_id=None if server or not isinstance(call_id, str) else call_id,
        )
        self.by_id[f"tool:{call_id}"] = (index, kind)
        if not server and isinstance(call_id, str):
            self.calls.add(call_id)

    def _tool_delta(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        index = self._find(f"tool:{part.get('toolCallId')}", frame, out)
        text = part.get("inputTextDelta")
        if index is not None and isinstance(text, str) and text:
            self.by_id[f"tool:{part.get('toolCallId')}"] = (index, "streamed")
            out.append(Delta(index, "json_text", text))

    def _tool_available(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        call_id = part.get("toolCallId")
        key = f"tool:{call_id}"
        if key not in self.by_id:  # the whole call at once, without tool-input-start
            self._tool_start(part, frame, out)
        index, state = self.by_id[key]
        if state != "streamed" and "input" in part:
            out.append(Delta(index, "json_text", orjson.dumps(part["input"]).decode()))
        self.by_id[key] = (index, "closed")
        out.append(CloseBlock(index))

    def _whole(self, kind: str, part: dict[str, Any], out: list[Action]) -> None:
        if kind.startswith("tool-output"):
            self.calls.discard(str(part.get("toolCallId")))
        index = self._open_block("opaque", kind, out)
        out.append(Delta(index, "json_text", orjson.dumps(part).decode()))
        out.append(CloseBlock(index))

    def _finish(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        self.finish = part

    def _done(self, frame: Frame, out: list[Action]) -> None:
        part = self.finish
        if part is None:
            what = f"frame {frame.index}: [DONE] arrived without a finish part before it"
            out.append(Fail("protocol_error", None, what))
            return
        reason = part.get("finishReason")
        finish = FINISH_REASONS.get(reason, "other") if isinstance(reason, str) else "stop"
        out.append(
            Finish(
                by_content(finish, bool(self.calls)),
                reason if isinstance(reason, str) else None,
                response_id=self.response_id,
            )
        )

    def eof_note(self) -> str | None:
        """Say when the finish part came but ``[DONE]`` never did."""
        if self.finish is not None:
            return "a finish part arrived, but [DONE] never did, so the end was not proved"
        return None

    def _error(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        text = part.get("errorText")
        out.append(
            Fail("unknown", "error", text if isinstance(text, str) and text else "error part")
        )

    def _abort(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        out.append(
            Fail("cancelled", "abort", "the server aborted the stream (abort part)", "interrupted")
        )


_HANDLERS: Final[
    dict[str, Callable[[AiSdkUiAdapter, dict[str, Any], Frame, list[Action]], None]]
] = {
    "tool-input-start": AiSdkUiAdapter._tool_start,
    "tool-input-delta": AiSdkUiAdapter._tool_delta,
    "tool-input-available": AiSdkUiAdapter._tool_available,
    "finish": AiSdkUiAdapter._finish,
    "error": AiSdkUiAdapter._error,
    "abort": AiSdkUiAdapter._abort,
}
