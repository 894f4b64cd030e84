"""OpenAI Responses API streaming (``POST /v1/responses``, ``stream: true``) → contract actions.

Why this module is long: one adapter for a protocol of over fifty event types whose
handlers all work on one map of the output array's blocks (``_key``, ``_open``,
``_settle``, ``_close``), so they stay one class; the protocol's tables and the
reading of a final response are in :mod:`.openai_responses_tables`.

Final signals
-------------
==========================================  ==========================================
signal (:data:`FINAL_SIGNALS`)              outcome
==========================================  ==========================================
``response.completed``                      ``completed``; ``finish_reason``
                                            ``tool_calls`` when the output holds a
                                            ``function_call``, ``refusal`` when it
                                            holds a refusal part, else ``stop``
``response.incomplete``                     ``completed`` (the provider ended it on
                                            purpose); ``finish_reason`` from
                                            ``incomplete_details.reason``
                                            (:data:`INCOMPLETE_REASONS`)
either of those while a block is open       ``failed`` / ``protocol_error``;
                                            ``provider_code`` = ``completed`` or the
                                            incomplete reason (the machine refuses)
``response.failed``                         ``failed``; category from
                                            ``response.error.code``
``error`` event                             ``failed``; category from its ``code``
                                            (top level, or nested under ``error``)
``data: [DONE]`` before any of these        ``failed`` / ``protocol_error``: not part
                                            of this protocol, something cut it short
bytes end before any of these               ``interrupted`` (a background response
                                            gets a note on how to resume it)
==========================================  ==========================================

The first terminal signal wins: ``error`` followed by ``response.failed`` ends
at the ``error``; the machine keeps the second frame as ignored.

Blocks
------
Blocks follow the order of the output array: ``output_index``, then the part
inside the item. ``index`` is assigned in the order blocks open, which for
this protocol is that order.

=================================  ==================================================
output item / part                 block
=================================  ==================================================
``message`` item                   no block itself; each content part is one:
                                   ``output_text`` → ``text`` (annotations →
                                   ``citation`` deltas), ``refusal`` → ``refusal``
``reasoning`` item                 each ``summary_text`` part and each
                                   ``reasoning_text`` content part → ``reasoning``;
                                   then, when the done item has
                                   ``encrypted_content``, one more ``reasoning``
                                   block (``provider_type`` ``reasoning``) holding
                                   it as a single ``signature`` delta
``function_call`` item             ``tool_call`` (``name``, ``call_id`` from the
                                   item); ``function_call_arguments.delta`` →
                                   ``json_text``
any other item (:data:`ITEM_TYPES`) ``opaque`` named by the item type, open from
                                   ``output_item.added`` to ``.done``; its content
                                   is the done item, as JSON, in one ``json_text``
                                   delta (their progress events carry nothing the
                                   done item does not)
=================================  ==================================================

Part blocks close at ``content_part.done`` / ``reasoning_summary_part.done``;
item blocks (and any part still open) at ``output_item.done``. The ``.done``
events that repeat the whole text (``output_text.done``,
``function_call_arguments.done``, …) never duplicate it: they only verify it,
and supply what no delta carried (a part sent whole). ``sequence_number`` is
diagnostics only. ``keepalive`` frames are heartbeats; unknown event types
are skipped with a warning; an unknown item or part type is kept as ``opaque``
with a warning. ``Start`` (with the model of the frame's ``response``) comes
with the first frame the adapter knows, so a keepalive or unknown event ahead
of ``response.created`` does not hide the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Heartbeat, Ignore, OpenBlock, Start
from ..sse import Frame
from .base import Adapter, Lane, fail_from_error_object
from .fields import IGNORED, READ, FieldAccount
from .fields import Shape as FieldShape
from .openai_responses_tables import (
    CONTENT,
    FINAL_SIGNALS,
    FRAGMENT_EVENTS,
    HEARTBEATS,
    INCOMPLETE_REASONS,
    ITEM,
    ITEM_TYPES,
    PART_KINDS,
    PART_TEXT_FIELD,
    QUIET_EVENTS,
    SUMMARY,
    SUMMARY_TEXT,
    TEXT,
    WHOLE_TEXT_EVENTS,
    Key,
    Rule,
    completed_reason,
    normalize_usage,
)
from .plain import Last, Param, Plain, Shape
from .template import Path

__all__ = [
    "FINAL_SIGNALS",
    "INCOMPLETE_REASONS",
    "ITEM_TYPES",
    "PART_KINDS",
    "PLAIN",
    "QUIET_EVENTS",
    "OpenAIResponsesAdapter",
    "completed_reason",
    "normalize_usage",
]

# v1.1 unread-field accounting. Every event type shares one table of fields
# (each reads the ones it has); the progress events of QUIET_EVENTS carry
# nothing the done item does not, so they are not accounted. Items and parts
# are read whole: an opaque block carries them as JSON, and the known kinds
# are settled against them.
RESPONSE_OBJECT: Final[FieldShape] = {
    "id": READ, "model": READ, "status": READ, "output": READ, "usage": READ,
    "error": READ, "incomplete_details": READ, "background": READ,
    "object": IGNORED, "created_at": IGNORED, "completed_at": IGNORED,
    # The request, echoed back: nothing about the answer.
    **dict.fromkeys(
        ("instructions", "max_output_tokens", "max_tool_calls", "metadata", "model_settings",
         "parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key",
         "prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store",
         "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation",
         "user", "conversation", "billing", "output_text", "frequency_penalty",
         "presence_penalty", "content_filters", "reasoning_effort", "summary"),
        IGNORED,
    ),
}  # fmt: skip
# Kept as written (fmt: skip): a table of fields, several to a line.
EVENT_SHAPE: Final[FieldShape] = {
    "type": READ, "sequence_number": IGNORED, "item_id": READ, "output_index": READ,
    "content_index": READ, "summary_index": READ, "annotation_index": IGNORED,
    "delta": READ, "text": READ, "refusal": READ, "arguments": READ, "input": READ,
    "part": READ, "item": READ, "annotation": READ, "response": RESPONSE_OBJECT,
    "code": READ, "message": READ, "param": IGNORED, "error": READ, "name": IGNORED,
    "obfuscation": IGNORED, "logprobs": IGNORED,
}  # fmt: skip


# The fields a plain fragment event may have besides the one naming its part.
_FRAGMENT_KEYS: Final = frozenset(
    {"type", "item_id", "output_index", "delta", "sequence_number", "logprobs", "obfuscation"}
)


def _plain_fragment(lane: str, section: int) -> Shape:
    """A fragment event of ``lane`` (a delta kind) for the lane's block, in ``section``."""
    rules = [r for r in FRAGMENT_EVENTS.values() if (r.delta_kind, r.section) == (lane, section)]
    types = frozenset(e for e, r in FRAGMENT_EVENTS.items() if r in rules)
    equal: dict[Path, Any] = {("type",): types, ("output_index",): Param("output")}
    keys = _FRAGMENT_KEYS
    if section != ITEM:  # the part's index, 0 when absent (as _key reads it)
        (sub,) = {rule.sub_field for rule in rules}
        equal[(sub,)] = Param("part")
        keys = keys | {sub}
    return Shape(
        text=("delta",),
        keys={(): keys},
        equal=equal,
        defaults={(sub,): 0} if section != ITEM else {},
    )


PLAIN: Final = Plain(
    shapes={
        (rule.delta_kind, rule.section): _plain_fragment(rule.delta_kind, rule.section)
        for rule in FRAGMENT_EVENTS.values()
    },
    fields={"last_sequence": Last("sequence_number", int)},
)
"""What a plain event is (see :mod:`.plain`): a fragment for the lane's block, by the
lane's delta kind and section (its params: the output index, and the part's)."""

PART_EVENTS: Final[dict[str, Rule]] = {
    "response.content_part.added": TEXT,
    "response.content_part.done": TEXT,
    "response.reasoning_summary_part.added": SUMMARY_TEXT,
    "response.reasoning_summary_part.done": SUMMARY_TEXT,
}


@dataclass(slots=True)
class _Block:
    """The adapter's bookkeeping for one block (the machine owns its state)."""

    index: int
    kind: str
    parts: list[str] = field(default_factory=list)
    citations: int = 0
    is_open: bool = True
    settled: bool = False  # checked against the provider's whole text
    provider_type: str = ""


class OpenAIResponsesAdapter(Adapter):
    """Responses API events (``response.*``, ``error``) to actions."""

    provider = "openai-responses"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.next_index = 0
        self.blocks: dict[Key, _Block] = {}
        self.item_keys: dict[int, list[Key]] = {}  # output_index -> its blocks, in order
        self.items_done: set[int] = set()
        self.item_ids: dict[str, int] = {}  # item id -> output_index
        self.function_calls = 0
        self.refusals = 0
        self.model: str | None = None
        self.response_id: str | None = None
        self.background = False
        self.last_sequence: int | None = None
        # The block of the last fragment, its key and delta kind: what a plain frame extends.
        self._lane: tuple[_Block, Key, str] | None = None
        self.fields = FieldAccount(dict.fromkeys(_HANDLERS, EVENT_SHAPE))

    def feed(self, frame: Frame) -> list[Action]:
        """Map one frame; see the module's table of final signals."""
        if frame.data == "[DONE]":
            return [
                Fail(
                    "protocol_error",
                    "[DONE]",
                    "data: [DONE] arrived before response.completed, response.incomplete "
                    "or response.failed",
                )
            ]
        if not isinstance(data := self._object(frame), dict):
            return [data]  # not a JSON object: a problem or a skipped frame
        event = data.get("type")
        if not isinstance(event, str):
            if frame.event == "message":
                return [Ignore(f"frame {frame.index}: an event without a 'type'")]
            event = frame.event
        sequence = data.get("sequence_number")
        if type(sequence) is int:
            self.last_sequence = sequence
        if event in HEARTBEATS:
            return [Heartbeat("ping")]
        handler = _HANDLERS.get(event)
        if handler is None and event not in QUIET_EVENTS:
            return [Ignore(f"frame {frame.index}: unknown event type {event!r} skipped")]
        out: list[Action] = []
        if not self.started:
            self.started = True
            response = data.get("response")
            model = response.get("model") if isinstance(response, dict) else None
            out.append(Start(model if isinstance(model, str) else None))
        if handler is not None:
            self.fields.check(event, data, frame.index, out)
            handler(self, event, data, frame, out)
        return out

    def lane(self) -> Lane | None:
        """The block and delta kind of the last fragment: what a plain event extends."""
        lane = self._lane
        if lane is None:
            return None
        block, key, kind = lane
        if self.blocks.get(key) is not block:
            return None
        output, section, sub = key
        params = (output,) if section == ITEM else (output, sub)
        return block.index, kind, (kind, section), params

    def took_plain(self, texts: list[str]) -> None:
        """The block's parts (what ``_append`` records)."""
        assert self._lane is not None
        self._lane[0].parts.extend(texts)

    def eof_note(self) -> str | None:
        """A background response outlives its stream: say how to pick it up again."""
        if self.background and self.response_id and self.last_sequence is not None:
            rid = self.response_id
            return (
                f"background response {rid} keeps running; resume with GET /v1/responses/"
                f"{rid}?stream=true&starting_after={self.last_sequence}"
            )
        return None

    # -- lifecycle and terminal events -----------------------------------------

    def _note_response(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        response = data.get("response")
        if not isinstance(response, dict):
            return {}
        model = response.get("model")
        if isinstance(model, str) and model:
            self.model = model
        response_id = response.get("id")
        if isinstance(response_id, str) and response_id:
            self.response_id = response_id
        if response.get("background") is True:
            self.background = True
        return response

    def _lifecycle(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        self._note_response(data)

    def _completed(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        response = self._note_response(data)
        self._close_by_final(response.get("output"), frame, out)
        reason = completed_reason(response.get("output"), self.function_calls, self.refusals)
        status = response.get("status")
        out.append(
            Finish(
                reason,
                status if isinstance(status, str) and status else "completed",
                normalize_usage(response.get("usage")),
                self.model,
                self.response_id,
            )
        )

    def _close_by_final(self, output: Any, frame: Frame, out: list[Action]) -> None:
        """v1.1: an opaque item still open that the final output lists as completed is closed.

        Its content is the listed item. Text, reasoning, refusal and tool calls
        are never closed this way: the machine refuses the Finish (v1 rule).
        """
        if not isinstance(output, list):
            return
        for output_index, item in enumerate(output):
            block = self.blocks.get((output_index, ITEM, 0))
            if block is None or not block.is_open or block.kind != "opaque":
                continue
            if not isinstance(item, dict) or item.get("status") != "completed":
                continue
            if not block.settled:
                block.settled = True
                self._append(block, "json_text", orjson.dumps(item).decode(), out)
            out.append(
                Ignore(
                    f"frame {frame.index}: b_{block.index} ({item.get('type')}) had no "
                    "output_item.done; the final response lists it as completed, so it was "
                    "closed there",
                    "closed_by_final",
                )
            )
            self._close((output_index, ITEM, 0), out)

    def _incomplete(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        response = self._note_response(data)
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        raw = reason if isinstance(reason, str) and reason else "incomplete"
        out.append(
            Finish(
                INCOMPLETE_REASONS.get(raw, "other"),
                raw,
                normalize_usage(response.get("usage")),
                self.model,
                self.response_id,
            )
        )

    def _failed(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        error = self._note_response(data).get("error")
        if isinstance(error, dict):
            out.append(fail_from_error_object(error))
        else:
            out.append(Fail("unknown", "failed", "response.failed carried no error object"))

    def _error(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        # The API reference puts code/message/param on the event itself; some
        # recordings nest them under "error". The event's own "type" is not a code.
        nested = data.get("error")
        if isinstance(nested, dict):
            out.append(fail_from_error_object(nested))
        else:
            out.append(
                fail_from_error_object({"code": data.get("code"), "message": data.get("message")})
            )

    # -- output items ------------------------------------------------------------

    def _item_added(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        found = self._item_of(event, data, frame, out)
        if found is None:
            return
        output_index, item = found
        item_type = item.get("type")
        mode = ITEM_TYPES.get(item_type) if isinstance(item_type, str) else None
        if mode in ("message", "reasoning"):
            return  # their parts open the blocks
        key = (output_index, ITEM, 0)
        if mode == "by_execution":
            mode = self._execution(item, frame, out)
        if mode == "tool_call":
            block = self._open(key, "tool_call", "function_call", out, item)
            arguments = item.get("arguments")
            if isinstance(arguments, str) and arguments:
                self._append(block, "json_text", arguments, out)
            return
        if mode in _INPUT_FORMATS:
            block = self._open(key, "tool_call", str(item_type), out, item, _INPUT_FORMATS[mode])
            text = item.get("input")
            if mode == "tool_text" and isinstance(text, str) and text:
                self._append(block, "text", text, out)
            return
        block = self._open(key, "opaque", str(item_type), out)
        if mode is None:
            out.append(_unknown_block(frame, "output item", item_type, block))

    def _item_done(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        found = self._item_of(event, data, frame, out)
        if found is None:
            return
        output_index, item = found
        if output_index in self.items_done:
            out.append(
                Ignore(
                    f"frame {frame.index}: a second output_item.done for output "
                    f"{output_index} skipped",
                    "duplicate_event",
                )
            )
            return
        self.items_done.add(output_index)
        item_type = item.get("type")
        mode = ITEM_TYPES.get(item_type, "opaque") if isinstance(item_type, str) else "opaque"
        key = (output_index, ITEM, 0)
        began = self.blocks.get(key)
        if began is not None and began.provider_type not in ("", str(item_type), "reasoning"):
            self._done_as_another_item(began, output_index, item, frame, out)
            return
        if mode == "message":
            self._finish_parts(output_index, CONTENT, item.get("content"), event, frame, out)
        elif mode == "reasoning":
            self._finish_parts(output_index, SUMMARY, item.get("summary"), event, frame, out)
            self._finish_parts(output_index, CONTENT, item.get("content"), event, frame, out)
            # Only the done item's encrypted_content is final (the one in
            # output_item.added may be incomplete, says the API reference).
            encrypted = item.get("encrypted_content")
            if isinstance(encrypted, str) and encrypted:
                block = self._open(key, "reasoning", "reasoning", out)
                out.append(Delta(block.index, "signature", encrypted))
        elif mode == "tool_call":
            block = self._open(key, "tool_call", "function_call", out, item)
            self._settle(block, item.get("arguments"), "json_text", event, frame, out)
        elif mode == "tool_text":
            block = self._open(key, "tool_call", str(item_type), out, item, "text")
            self._settle(block, item.get("input"), "text", event, frame, out)
        elif mode == "tool_item" or (mode == "by_execution" and _runs_where(item) == "client"):
            block = self._open(key, "tool_call", str(item_type), out, item, "item")
            if block.is_open and not block.settled:
                block.settled = True
                self._append(block, "json_text", orjson.dumps(item).decode(), out)
        else:
            block = self._open(key, "opaque", str(item_type), out)
            if block.is_open:
                out.append(Delta(block.index, "json_text", orjson.dumps(item).decode()))
        for part_key in self.item_keys.get(output_index, ()):
            self._close(part_key, out)

    def _execution(self, item: Mapping[str, Any], frame: Frame, out: list[Action]) -> str:
        """A type both sides run: the item's own flag says whose call it is."""
        execution = _runs_where(item)
        if execution == "client":
            return "tool_item"
        if execution != "server":
            out.append(
                Ignore(
                    f"frame {frame.index}: {item.get('type')} says not who runs it "
                    "(no execution flag); kept as an opaque block",
                    "execution_unknown",
                )
            )
        return "opaque"

    def _item_of(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> tuple[int, Mapping[str, Any]] | None:
        output_index = data.get("output_index")
        item = data.get("item")
        if type(output_index) is not int or not isinstance(item, dict):
            out.append(_malformed(frame, event, "needs an integer output_index and an item"))
            return None
        item_id = item.get("id")
        if isinstance(item_id, str):
            self.item_ids[item_id] = output_index
        return output_index, item

    # -- parts and fragments -----------------------------------------------------

    def _part_added(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        key = self._key(PART_EVENTS[event], event, data, frame, out)
        if key is None:
            return
        part = data.get("part")
        part = part if isinstance(part, dict) else {}
        part_type = part.get("type")
        kind = PART_KINDS.get(part_type) if isinstance(part_type, str) else None
        block = self._open(key, kind or "opaque", str(part_type), out)
        if kind is None:
            out.append(_unknown_block(frame, "part", part_type, block))
            return
        # A part announced with text already in it (not OpenAI's habit) keeps it.
        text = part.get(PART_TEXT_FIELD.get(str(part_type), "text"))
        if isinstance(text, str) and text and not block.parts:
            self._append(block, "text", text, out)

    def _part_done(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        key = self._key(PART_EVENTS[event], event, data, frame, out)
        if key is not None:
            part = data.get("part")
            self._finish_part(key, part if isinstance(part, dict) else {}, event, frame, out)

    def _fragment(self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        rule = FRAGMENT_EVENTS[event]
        text = data.get("delta")
        if not isinstance(text, str):
            out.append(_malformed(frame, event, "has no string 'delta'"))
            return
        if not text:
            return
        key = self._key(rule, event, data, frame, out)
        if key is None:
            return
        block = self.blocks.get(key) or self._open_implicitly(key, rule, event, frame, out)
        # A fragment for a closed block still goes to the machine, which
        # refuses it by name (rule 2) rather than the adapter guessing.
        self._append(block, rule.delta_kind, text, out)
        self._lane = (block, key, rule.delta_kind)

    def _whole_text(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        rule = WHOLE_TEXT_EVENTS[event]
        key = self._key(rule, event, data, frame, out)
        if key is None:
            return
        block = self.blocks.get(key) or self._open_implicitly(key, rule, event, frame, out)
        self._settle(block, data.get(rule.full_field), rule.delta_kind, event, frame, out)

    def _annotation(
        self, event: str, data: dict[str, Any], frame: Frame, out: list[Action]
    ) -> None:
        key = self._key(TEXT, event, data, frame, out)
        if key is None:
            return
        block = self.blocks.get(key) or self._open_implicitly(key, TEXT, event, frame, out)
        block.citations += 1
        out.append(Delta(block.index, "citation", "", citation=data.get("annotation")))

    def _finish_parts(
        self,
        output_index: int,
        section: int,
        parts: Any,
        event: str,
        frame: Frame,
        out: list[Action],
    ) -> None:
        """Settle and close every part a done item lists (opening any never streamed)."""
        if isinstance(parts, list):
            for sub, part in enumerate(parts):
                if isinstance(part, dict):
                    self._finish_part((output_index, section, sub), part, event, frame, out)

    def _finish_part(
        self, key: Key, part: Mapping[str, Any], event: str, frame: Frame, out: list[Action]
    ) -> None:
        part_type = part.get("type")
        kind = PART_KINDS.get(part_type) if isinstance(part_type, str) else None
        block = self.blocks.get(key) or self._open(key, kind or "opaque", str(part_type), out)
        if block.kind == "opaque":
            if block.is_open and not block.settled:
                block.settled = True
                self._append(block, "json_text", orjson.dumps(part).decode(), out)
        else:
            full = part.get(PART_TEXT_FIELD.get(str(part_type), "text"))
            self._settle(block, full, "text", event, frame, out)
            annotations = part.get("annotations")
            if block.is_open and isinstance(annotations, list):
                # Annotations the stream never announced are still citations.
                for annotation in annotations[block.citations :]:
                    block.citations += 1
                    out.append(Delta(block.index, "citation", "", citation=annotation))
        self._close(key, out)

    # -- helpers -----------------------------------------------------------------

    def _key(
        self, rule: Rule, event: str, data: Mapping[str, Any], frame: Frame, out: list[Action]
    ) -> Key | None:
        output_index = data.get("output_index")
        if type(output_index) is not int:
            item_id = data.get("item_id")
            found = self.item_ids.get(item_id) if isinstance(item_id, str) else None
            if found is None:
                out.append(_malformed(frame, event, "names no output_index and no known item_id"))
                return None
            output_index = found
        if rule.section == ITEM:
            return (output_index, ITEM, 0)
        sub = data.get(rule.sub_field, 0)
        if type(sub) is not int:
            out.append(_malformed(frame, event, f"has no integer {rule.sub_field!r}"))
            return None
        return (output_index, rule.section, sub)

    def _open(
        self,
        key: Key,
        kind: str,
        provider_type: str,
        out: list[Action],
        item: Mapping[str, Any] | None = None,
        input_format: str | None = None,
    ) -> _Block:
        """The block at ``key``, opened now if it is new."""
        block = self.blocks.get(key)
        if block is not None:
            return block
        block = _Block(self.next_index, kind, provider_type=provider_type)
        self.next_index += 1
        self.blocks[key] = block
        self.item_keys.setdefault(key[0], []).append(key)
        name: str | None = None
        call_id: str | None = None
        if kind == "tool_call":
            self.function_calls += 1
            if item is not None:
                name = _str_or_none(item.get("name"))
                call_id = _str_or_none(item.get("call_id"))
        elif kind == "refusal":
            self.refusals += 1
        out.append(OpenBlock(block.index, kind, provider_type, name, call_id, input_format))
        return block

    def _open_implicitly(
        self, key: Key, rule: Rule, event: str, frame: Frame, out: list[Action]
    ) -> _Block:
        block = self._open(key, rule.kind, rule.provider_type, out, None, rule.input_format)
        out.append(
            Ignore(
                f"frame {frame.index}: {event} for a part never announced; opened b_{block.index}",
                "implicit_block",
            )
        )
        return block

    def _done_as_another_item(
        self,
        began: _Block,
        output_index: int,
        item: Mapping[str, Any],
        frame: Frame,
        out: list[Action],
    ) -> None:
        """An output finished by an item of another type than the one it began as.

        Perplexity's Agent API ends a server-run ``function_call`` with its
        ``search_results`` at the same output index. Appending that item to the
        call's arguments would corrupt them, so the call closes with what it was
        given and the other item becomes an opaque block of its own. A call the
        server answered in its own output is not one the client must run.
        """
        other_type = str(item.get("type"))
        out.append(
            Ignore(
                f"frame {frame.index}: output_item.done for output {output_index} is a "
                f"{other_type[:40]!r} item, but that output began as {began.provider_type!r} "
                f"(b_{began.index}); the item is kept as a block of its own",
                "done_mismatch",
            )
        )
        self._close((output_index, ITEM, 0), out)
        if began.kind == "tool_call":  # the server ran it: no call is left to the client
            self.function_calls -= 1
        other = self._open((output_index, ITEM, 1), "opaque", other_type, out)
        out.append(Delta(other.index, "json_text", orjson.dumps(item).decode()))
        self._close((output_index, ITEM, 1), out)

    def _append(self, block: _Block, kind: str, text: str, out: list[Action]) -> None:
        block.parts.append(text)
        out.append(Delta(block.index, kind, text))

    def _settle(
        self, block: _Block, full: Any, kind: str, event: str, frame: Frame, out: list[Action]
    ) -> None:
        """Check streamed text against the provider's whole text, once per block.

        The whole text never replaces what was streamed: it only supplies a
        missing tail (a part sent whole, with no fragments) or is reported.
        """
        if block.settled or not isinstance(full, str):
            return
        block.settled = True
        got = "".join(block.parts)
        if got == full:
            return
        if block.is_open and full.startswith(got):
            self._append(block, kind, full[len(got) :], out)
            if got:
                out.append(
                    Ignore(
                        f"frame {frame.index}: {event} holds {len(full)} characters but the "
                        f"fragments of b_{block.index} only {len(got)}; the rest was taken from it",
                        "done_mismatch",
                    )
                )
            return
        out.append(
            Ignore(
                f"frame {frame.index}: {event} differs from the {len(got)} characters streamed "
                f"for b_{block.index}; the streamed text is kept",
                "done_mismatch",
            )
        )

    def _close(self, key: Key, out: list[Action]) -> None:
        block = self.blocks.get(key)
        if block is not None and block.is_open:
            block.is_open = False
            out.append(CloseBlock(block.index))


_Handler = Callable[[OpenAIResponsesAdapter, str, dict[str, Any], Frame, list[Action]], None]

_HANDLERS: Final[dict[str, _Handler]] = {
    "response.created": OpenAIResponsesAdapter._lifecycle,
    "response.queued": OpenAIResponsesAdapter._lifecycle,
    "response.in_progress": OpenAIResponsesAdapter._lifecycle,
    "response.completed": OpenAIResponsesAdapter._completed,
    "response.incomplete": OpenAIResponsesAdapter._incomplete,
    "response.failed": OpenAIResponsesAdapter._failed,
    "error": OpenAIResponsesAdapter._error,
    "response.output_item.added": OpenAIResponsesAdapter._item_added,
    "response.output_item.done": OpenAIResponsesAdapter._item_done,
    "response.content_part.added": OpenAIResponsesAdapter._part_added,
    "response.content_part.done": OpenAIResponsesAdapter._part_done,
    "response.reasoning_summary_part.added": OpenAIResponsesAdapter._part_added,
    "response.reasoning_summary_part.done": OpenAIResponsesAdapter._part_done,
    "response.output_text.annotation.added": OpenAIResponsesAdapter._annotation,
    **dict.fromkeys(FRAGMENT_EVENTS, OpenAIResponsesAdapter._fragment),
    **dict.fromkeys(WHOLE_TEXT_EVENTS, OpenAIResponsesAdapter._whole_text),
}


def _runs_where(item: Mapping[str, Any]) -> str | None:
    """``client``/``server`` for an item type both run; None when the item does not say.

    ``tool_search_call`` says it in ``execution``; a ``shell_call`` in its
    ``environment``: ``local`` (or none) is the client's, a container OpenAI's.
    """
    execution = item.get("execution")
    if execution in ("client", "server"):
        return str(execution)
    if item.get("type") == "shell_call":
        environment = item.get("environment")
        kind = environment.get("type") if isinstance(environment, dict) else "local"
        return "client" if kind == "local" else "server"
    return None


# Item modes of client calls whose input is not JSON -> their input_format.
_INPUT_FORMATS: Final[dict[str, str]] = {"tool_text": "text", "tool_item": "item"}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _malformed(frame: Frame, event: str, what: str) -> Ignore:
    return Ignore(f"frame {frame.index}: {event} {what}; skipped", "malformed_event")


def _unknown_block(frame: Frame, what: str, provider_type: Any, block: _Block) -> Ignore:
    return Ignore(
        f"frame {frame.index}: {what} type {provider_type!r} is not modelled; b_{block.index} "
        "is kept as an opaque block",
        "unknown_block",
    )
