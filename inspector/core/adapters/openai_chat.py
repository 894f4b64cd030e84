"""OpenAI Chat Completions (and OpenAI-compatible servers) → contract actions.

Final signals
-------------
========================================  =====================================
signal                                    outcome
========================================  =====================================
a choice's ``finish_reason``, then        ``completed`` (``stream.done`` at
``data: [DONE]``                          ``[DONE]``, so the usage chunk that
                                          sits between them is included)
``data: [DONE]`` with no finish_reason    ``failed`` / ``protocol_error``
``{"error": {...}}`` in a data frame      ``failed``; category from the error's
(also under ``event: error``)             ``code``/``type``
bytes end before ``[DONE]``               ``interrupted`` (even after a
                                          finish_reason: the end was not proved)
========================================  =====================================

Blocks: ``reasoning_content``/``reasoning`` → ``reasoning`` (with the
signature or encrypted reasoning OpenRouter sends in ``reasoning_details`` as a
``signature`` delta); ``content`` →
``text``; ``refusal`` → ``refusal``; each ``tool_calls[].index`` → its own
``tool_call`` block, kept open until the finish_reason so parallel calls whose
fragments interleave land in the right block. Text-like blocks follow one
another: a new kind closes the previous one. Only choice 0 is modelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, OpenBlock, Start
from ..sse import Frame
from .base import Adapter, Lane, fail_from_error_object, int_or_none, json_problem
from .plain import Each, Last, Plain, Shape

__all__ = ["FINISH_REASONS", "PLAIN", "OpenAIChatAdapter"]

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

# Delta fields that carry nothing for the contract; not worth a warning.
QUIET_FIELDS: Final = frozenset(
    {"role", "channel", "reasoning_details", "function_call", "tool_calls", "annotations",
     "audio", "name", "obfuscation"}
)  # fmt: skip

# The fields of a chunk, and of its choice, that a plain chunk may have.
CHUNK_KEYS: Final = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "service_tier", "choices",
     "usage", "obfuscation"}
)  # fmt: skip
CHOICE_KEYS: Final = frozenset({"index", "delta", "finish_reason", "logprobs"})

PLAIN: Final = Plain(
    shapes={
        # Nearly every chunk: choice 0, whose delta is only more ``content`` for the open
        # text block, and no finish_reason.
        "content": Shape(
            text=("choices", 0, "delta", "content"),
            keys={
                (): CHUNK_KEYS,
                ("choices", 0): CHOICE_KEYS,
                ("choices", 0, "delta"): frozenset({"content"}),
            },
            equal={("choices", 0, "index"): 0},
            defaults={("choices", 0, "index"): 0},
            null=(("choices", 0, "finish_reason"), ("choices", 0, "logprobs")),
            events=CHAT_EVENTS,
            templates=True,
        )
    },
    # What _note records of every chunk.
    fields={
        "model": Last("model", str),
        "response_id": Last("id", str),
        "usage": Each("usage", dict, lambda usage: normalize_usage(usage)),  # (defined below)
    },
)
"""What a plain chunk is (see :mod:`.plain`): the fast path's one description."""


class OpenAIChatAdapter(Adapter):
    """Chat Completions chunks (``chat.completion.chunk``) to actions."""

    provider = "openai-chat"
    plain_frames = PLAIN

    def __init__(self) -> None:
        self.started = False
        self.next_index = 0
        self.text_block: tuple[str, int] | None = None  # (field, block index)
        self.tool_blocks: dict[int, int] = {}  # provider tool index -> block index
        self.open_tools: list[int] = []
        self.finish_reason: str | None = None
        self.had_refusal = False
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self.warned: set[str] = set()

    def feed(self, frame: Frame) -> list[Action]:
        """Map one frame; see the module's table of final signals."""
        data = frame.data
        if data == "[DONE]":
            return self._done()
        if frame.event not in CHAT_EVENTS:
            return [Ignore(f"frame {frame.index}: unknown event {frame.event!r}")]
        try:
            chunk = self._json(frame)
        except orjson.JSONDecodeError as exc:
            return [json_problem(frame, exc)]
        if not isinstance(chunk, dict):
            return [Ignore(f"frame {frame.index}: data is JSON but not an object")]
        out: list[Action] = []
        if not self.started:
            self.started = True
            self.model = chunk.get("model")
            out.append(Start(self.model))
        if "error" in chunk and isinstance(chunk["error"], dict):  # `in`: no error, no lookup
            out.append(fail_from_error_object(chunk["error"]))
            return out
        self._note(chunk)
        choices = chunk.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if isinstance(choice, dict):
                    self._choice(choice, frame, out)
        elif "choices" not in chunk and "usage" not in chunk:
            out.append(Ignore(f"frame {frame.index}: a chunk without choices or usage"))
        return out

    def lane(self) -> Lane | None:
        """The open ``content`` text block: what a plain chunk extends."""
        block = self.text_block
        return (
            (block[1], "text", "content", ())
            if block is not None and block[0] == "content"
            else None
        )

    def _note(self, chunk: dict[str, Any]) -> None:
        """What every chunk may update: the model, the response id, the usage."""
        model = chunk.get("model")
        if isinstance(model, str):
            self.model = model
        response_id = chunk.get("id")
        if isinstance(response_id, str):
            self.response_id = response_id
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = normalize_usage(usage)

    def eof_note(self) -> str | None:
        """Say when a finish_reason came but ``[DONE]`` never did."""
        if self.finish_reason is not None:
            return f"finish_reason {self.finish_reason!r} arrived but [DONE] never did"
        return None

    # -- internals -----------------------------------------------------------

    def _choice(self, choice: Mapping[str, Any], frame: Frame, out: list[Action]) -> None:
        if choice.get("index", 0) != 0:
            self._warn_once("choice", f"frame {frame.index}: choices other than 0 are ignored", out)
            return
        delta = choice.get("delta")
        if isinstance(delta, dict):
            self._delta(delta, frame, out)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish and self.finish_reason is None:
            self.finish_reason = finish
            self._close_all(out, keep_tools=finish == "length")

    def _delta(self, delta: Mapping[str, Any], frame: Frame, out: list[Action]) -> None:
        for field, (kind, provider_type) in TEXT_FIELDS.items():
            text = delta.get(field)
            if isinstance(text, str) and text:
                index = self._text_block(field, kind, provider_type, out)
                out.append(Delta(index, "text", text))
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for call in tool_calls:
                if isinstance(call, dict):
                    self._tool_call(call, out)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            self._tool_call({"index": 0, "function": legacy}, out)
        details = delta.get("reasoning_details")
        if isinstance(details, list) and details:
            self._reasoning_details(details, out)
        annotations = delta.get("annotations")
        if isinstance(annotations, list) and annotations:
            self._annotations(annotations, frame, out)
        for key, value in delta.items():
            if value is not None and key not in TEXT_FIELDS and key not in QUIET_FIELDS:
                self._warn_once(key, f"frame {frame.index}: unknown delta field {key!r}", out)

    def _text_block(self, field: str, kind: str, provider_type: str, out: list[Action]) -> int:
        if self.text_block is not None and self.text_block[0] == field:
            return self.text_block[1]
        if self.text_block is not None:
            out.append(CloseBlock(self.text_block[1]))
        index = self._new_index()
        self.text_block = (field, index)
        if kind == "refusal":
            self.had_refusal = True
        out.append(OpenBlock(index, kind, provider_type))
        return index

    def _tool_call(self, call: Mapping[str, Any], out: list[Action]) -> None:
        tool_index = call.get("index", 0)
        if not isinstance(tool_index, int):
            tool_index = 0
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        block = self.tool_blocks.get(tool_index)
        if block is None:
            if self.text_block is not None:
                out.append(CloseBlock(self.text_block[1]))
                self.text_block = None
            block = self._new_index()
            self.tool_blocks[tool_index] = block
            self.open_tools.append(block)
            call_id = call.get("id")
            out.append(
                OpenBlock(
                    block,
                    "tool_call",
                    str(call.get("type") or "function"),
                    name=function.get("name"),
                    call_id=call_id if isinstance(call_id, str) and call_id else None,
                )
            )
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(Delta(block, "json_text", arguments))
        elif isinstance(arguments, dict):
            # Some compatible servers send arguments as an object, not a string.
            out.append(Delta(block, "json_text", orjson.dumps(arguments).decode()))

    def _reasoning_details(self, details: list[Any], out: list[Action]) -> None:
        # OpenRouter repeats the reasoning text here (already taken from `reasoning`)
        # but this is the only place its signature and encrypted reasoning travel.
        for detail in details:
            if not isinstance(detail, dict):
                continue
            signature = detail.get("signature")
            if not (isinstance(signature, str) and signature):
                encrypted = detail.get("data")
                is_encrypted = detail.get("type") == "reasoning.encrypted"
                signature = encrypted if is_encrypted and isinstance(encrypted, str) else None
            if signature:
                field = self.text_block[0] if self.text_block is not None else ""
                if TEXT_FIELDS.get(field, ("",))[0] != "reasoning":
                    field = "reasoning"
                index = self._text_block(field, "reasoning", field, out)
                out.append(Delta(index, "signature", signature))

    def _annotations(self, annotations: list[Any], frame: Frame, out: list[Action]) -> None:
        if self.text_block is None or self.text_block[0] != "content":
            self._text_block("content", "text", "content", out)
        assert self.text_block is not None
        for annotation in annotations:
            out.append(Delta(self.text_block[1], "citation", "", citation=annotation))

    def _close_all(self, out: list[Action], keep_tools: bool) -> None:
        if self.text_block is not None:
            out.append(CloseBlock(self.text_block[1]))
            self.text_block = None
        if not keep_tools:
            out.extend(CloseBlock(b) for b in self.open_tools)
            self.open_tools = []

    def _done(self) -> list[Action]:
        if self.finish_reason is None:
            return [
                Fail(
                    "protocol_error",
                    "[DONE]",
                    "[DONE] arrived but no choice carried a finish_reason",
                )
            ]
        reason = FINISH_REASONS.get(self.finish_reason, "other")
        if reason == "stop" and self.had_refusal:
            reason = "refusal"
        return [Finish(reason, self.finish_reason, self.usage, self.model, self.response_id)]

    def _new_index(self) -> int:
        index = self.next_index
        self.next_index += 1
        return index

    def _warn_once(self, key: str, message: str, out: list[Action]) -> None:
        if key not in self.warned:
            self.warned.add(key)
            out.append(Ignore(message, "unknown_field"))


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Chat usage → the contract's usage (raw object kept under ``raw``)."""
    out: dict[str, Any] = {
        "input_tokens": int_or_none(usage.get("prompt_tokens")),
        "output_tokens": int_or_none(usage.get("completion_tokens")),
    }
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and int_or_none(details.get("reasoning_tokens")) is not None:
        out["reasoning_tokens"] = details["reasoning_tokens"]
    prompt_details = usage.get("prompt_tokens_details")
    if isinstance(prompt_details, dict):
        cached = int_or_none(prompt_details.get("cached_tokens"))
        if cached is not None:
            out["cached_input_tokens"] = cached
    elif int_or_none(usage.get("prompt_cache_hit_tokens")) is not None:
        out["cached_input_tokens"] = usage["prompt_cache_hit_tokens"]  # DeepSeek
    out["raw"] = dict(usage)
    return out
