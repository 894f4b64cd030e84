"""OpenAI Chat Completions (and OpenAI-compatible servers) → contract actions.

Final signals
-------------
========================================  =====================================
signal                                    outcome
========================================  =====================================
a choice's ``finish_reason``, then        ``completed`` (``stream.done`` at
``data: [DONE]``                          ``[DONE]``, so the usage chunk that
                                          sits between them is included)
``data: [DONE]`` with no finish_reason    ``completed`` (v1.1): open blocks are
                                          closed, warning ``no_finish_reason``,
                                          ``finish_reason`` ``tool_calls`` or
                                          ``other``, provider's ``null``
``{"error": {...}}`` in a data frame      ``failed``; category from the error's
(also under ``event: error``; vLLM's      ``code``/``type``
top-level ``{"object": "error"}``)
bytes end before ``[DONE]``               ``interrupted`` (even after a
                                          finish_reason: the end was not proved),
                                          unless the dialect never sends
                                          ``[DONE]`` (Writer): then ``completed``
========================================  =====================================

Blocks: ``reasoning_content``/``reasoning`` → ``reasoning`` (with the
signature or encrypted reasoning OpenRouter sends in ``reasoning_details`` as a
``signature`` delta); ``content`` →
``text``; ``refusal`` → ``refusal``; each ``tool_calls[].index`` → its own
``tool_call`` block, kept open until the finish_reason so parallel calls whose
fragments interleave land in the right block (a call without ``index``, as
Mistral sends them, is told by its ``id``). Text-like blocks follow one
another: a new kind closes the previous one.

Several choices (``n > 1``, v1.1): each ``choices[].index`` has its own blocks
(:class:`ChatChoiceState`; :mod:`.per_choice`), which carry ``choice``;
``stream.done`` at ``[DONE]`` lists each choice's end, and ``[DONE]`` while a
choice that started has no ``finish_reason`` is ``failed`` / ``protocol_error``
naming it (:mod:`.several`).

v1.1: ``content`` as an array of ``text`` / ``thinking`` chunks (Mistral) →
text and reasoning blocks; ``executed_tools`` (Groq's server-run tools) →
``opaque`` blocks; chunk-level ``citations`` / ``search_results``
(Perplexity) → ``citation`` deltas on the text block; ``x_groq.usage`` is the
usage when the chunk has none. Every field not in :data:`CHUNK_FIELDS` (or the
stream's dialect row, :mod:`.dialects`) is an ``unread_field`` warning; a
client tool call turns a ``stop``/``other`` finish into ``tool_calls``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Finish, Ignore, OpenBlock, Start
from ..sse import Frame
from . import several
from .base import Lane, fail_from_error_object, json_problem
from .dialects import Dialect, by_field, by_host, by_model, merged
from .fields import Shape as FieldShape
from .fields import unread_paths, unread_warning
from .openai_chat_tables import (
    CHAT_EVENTS,
    CHUNK_FIELDS,
    CONTENT_CHUNKS,
    DELTA_FIELDS,
    FINISH_REASONS,
    TEXT_FIELDS,
)
from .openai_chat_usage import choice_usage, normalize_usage
from .per_choice import ChoiceAdapter, ChoiceState
from .plain import Each, Last, Plain, Shape

__all__ = ["CHUNK_FIELDS", "DELTA_FIELDS", "FINISH_REASONS", "PLAIN", "OpenAIChatAdapter"]

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
        "usage": Each("usage", dict, lambda usage: normalize_usage(usage)),
    },
)
"""What a plain chunk is (see :mod:`.plain`): the fast path's one description."""


class ChatChoiceState(ChoiceState):
    """What the adapter keeps of one choice: its blocks and its finish_reason."""

    __slots__ = (
        "had_refusal",
        "last_tool",
        "opaque_blocks",
        "open_opaque",
        "open_tools",
        "text_block",
        "tool_blocks",
    )

    def __init__(self, choice: int) -> None:
        super().__init__(choice)
        self.text_block: tuple[str, int] | None = None  # (field, block key)
        self.tool_blocks: dict[Any, int] = {}  # provider tool index (or id) -> block key
        self.open_tools: list[int] = []
        self.had_refusal = False
        self.opaque_blocks: dict[Any, int] = {}  # executed tool index -> block key
        self.open_opaque: list[int] = []
        self.last_tool: Any = None  # key of the last call opened (calls without index)


class OpenAIChatAdapter(ChoiceAdapter[ChatChoiceState]):
    """Chat Completions chunks (``chat.completion.chunk``) to actions."""

    provider = "openai-chat"
    plain_frames = PLAIN

    def __init__(self) -> None:
        super().__init__(ChatChoiceState)  # each choice's blocks (v1.1)
        self.started = False
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        # v1.1 (slow path only): dialect, unread fields, server-run tools, citations.
        self.dialects: list[Dialect] = []
        self.shape: FieldShape = CHUNK_FIELDS
        self.unread: set[str] = set()
        self.cited: set[bytes] = set()
        self.done = False

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
            model = chunk.get("model")
            self.model = model if isinstance(model, str) else None
            if self.model:
                self._use(by_model(self.model))
            out.append(Start(self.model or None))
        if "error" in chunk and isinstance(chunk["error"], dict):  # `in`: no error, no lookup
            out.append(fail_from_error_object(chunk["error"]))
            return out
        if chunk.get("object") == "error":  # vLLM: the chunk is the error object
            out.append(fail_from_error_object(chunk))
            return out
        self._account(chunk, frame, out)
        self._note(chunk)
        self.c = self.first  # chunk-level citations belong to choice 0's text
        self._chunk_citations(chunk, out)
        choices = chunk.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if isinstance(choice, dict):
                    self._choice(choice, frame, out)
        elif "choices" not in chunk and "usage" not in chunk:
            out.append(Ignore(f"frame {frame.index}: a chunk without choices or usage"))
        return out

    def lane(self) -> Lane | None:
        """Choice 0's open ``content`` text block: what a plain chunk extends."""
        block = self.first.text_block
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
        if not isinstance(usage, dict):
            groq = chunk.get("x_groq")  # Groq's usage, when the chunk has none of its own
            usage = groq.get("usage") if isinstance(groq, dict) else None
        if not isinstance(usage, dict):
            usage = choice_usage(chunk.get("choices"))
        if isinstance(usage, dict):
            self.usage = normalize_usage(usage, self._adds_reasoning())

    def origin(self, header: Mapping[str, Any]) -> None:
        """The dialect from the request's host, else from the requested model; ``n``."""
        request = header.get("request")
        url = request.get("url") if isinstance(request, Mapping) else None
        dialect = by_host(url) if isinstance(url, str) else None
        model = header.get("model")
        if dialect is None and isinstance(model, str) and model:
            dialect = by_model(model)
        self._use(dialect)
        if several.requested(header, "n"):
            self.several = True  # v1.1: the request asked for several choices

    def at_eof(self) -> list[Action]:
        """A dialect that never sends ``[DONE]``: its finish_reason then a clean end."""
        if any(d.no_done for d in self.dialects) and self._ended() is not None:
            return self._done()
        return []

    def eof_note(self) -> str | None:
        """Say when a finish_reason came but ``[DONE]`` never did."""
        ended = self._ended()
        if ended is None:
            return None
        note = f"finish_reason {ended.finish_reason!r} arrived but [DONE] never did"
        if self.several:
            note = f"{note}; {several.ends_note(self._ends())}"
        return note

    def _ended(self) -> ChatChoiceState | None:
        """The first choice that has its finish_reason, if any."""
        return next((c for c in self.states.values() if c.finish_reason is not None), None)

    # -- internals -----------------------------------------------------------

    def _choice(self, choice: Mapping[str, Any], frame: Frame, out: list[Action]) -> None:
        if self._enter(choice.get("index"), frame, out) is None:
            return
        delta = choice.get("delta")
        if isinstance(delta, dict):
            self._delta(delta, frame, out)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish and self.c.finish_reason is None:
            self.c.finish_reason = finish
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
        content = delta.get("content")
        if isinstance(content, list):
            self._content_chunks(content, frame, out)
        executed = delta.get("executed_tools")
        if isinstance(executed, list):
            self._executed_tools(executed, out)

    def _text_block(self, field: str, kind: str, provider_type: str, out: list[Action]) -> int:
        if self.c.text_block is not None and self.c.text_block[0] == field:
            return self.c.text_block[1]
        if self.c.text_block is not None:
            out.append(CloseBlock(self.c.text_block[1]))
        index = self._new_index()
        self.c.text_block = (field, index)
        if kind == "refusal":
            self.c.had_refusal = True
        out.append(OpenBlock(index, kind, provider_type, choice=self._choice_of_block()))
        return index

    def _tool_call(self, call: Mapping[str, Any], out: list[Action]) -> None:
        tool_index = self._tool_key(call)
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        block = self.c.tool_blocks.get(tool_index)
        if block is None:
            self._close_text(out)
            block = self._new_index()
            self.c.tool_blocks[tool_index] = block
            self.c.last_tool = tool_index
            self.c.open_tools.append(block)
            call_id = call.get("id")
            out.append(
                OpenBlock(
                    block,
                    "tool_call",
                    str(call.get("type") or "function"),
                    name=function.get("name"),
                    call_id=call_id if isinstance(call_id, str) and call_id else None,
                    choice=self._choice_of_block(),
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
                field = self.c.text_block[0] if self.c.text_block is not None else ""
                if TEXT_FIELDS.get(field, ("",))[0] != "reasoning":
                    field = "reasoning"
                index = self._text_block(field, "reasoning", field, out)
                out.append(Delta(index, "signature", signature))

    def _annotations(self, annotations: list[Any], frame: Frame, out: list[Action]) -> None:
        if self.c.text_block is None or self.c.text_block[0] != "content":
            self._text_block("content", "text", "content", out)
        assert self.c.text_block is not None
        for annotation in annotations:
            out.append(Delta(self.c.text_block[1], "citation", "", citation=annotation))

    def _close_text(self, out: list[Action]) -> None:
        if self.c.text_block is not None:
            out.append(CloseBlock(self.c.text_block[1]))
            self.c.text_block = None

    def _close_all(self, out: list[Action], keep_tools: bool) -> None:
        self._close_text(out)
        # Server-run tools are complete when they arrive: never kept open.
        out.extend(CloseBlock(b) for b in self.c.open_opaque)
        self.c.open_opaque = []
        if not keep_tools:
            out.extend(CloseBlock(b) for b in self.c.open_tools)
            self.c.open_tools = []

    def _done(self) -> list[Action]:
        if self.done:
            return []
        self.done = True
        out: list[Action] = []
        states = [self.states[n] for n in sorted(self.seen)] or [self.first]
        if all(state.finish_reason is None for state in states):
            # v1.1: the server ended deliberately; what is open is closed here
            # (tool arguments are parsed now, so a broken call still fails).
            for state in states:
                self.c = state
                self._close_all(out, keep_tools=False)
            out.append(
                Ignore(
                    "[DONE] arrived but no choice carried a finish_reason; open blocks "
                    "were closed there",
                    "no_finish_reason",
                )
            )
        elif self.several:
            missing = [state.choice for state in states if state.finish_reason is None]
            if missing:  # v1.1: every choice that started needs its own end
                out.append(several.missing_end(missing, "[DONE]", "finish_reason"))
                return out
        ends = {state.choice: (self._reason(state), state.finish_reason) for state in states}
        reason, raw = ends[states[0].choice]
        cut = next((state for state in states if state.open_tools), None)
        if self.several and cut is not None:
            # A call `length` left open: the machine refuses this end, naming this reason.
            raw = cut.finish_reason
        choices = several.outcomes(ends) if self.several else None
        out.append(Finish(reason, raw, self.usage, self.model, self.response_id, choices))
        return out

    @staticmethod
    def _reason(state: ChatChoiceState) -> str:
        """A choice's normalized finish_reason (v1.1: from its content too)."""
        raw = state.finish_reason
        reason = finish_from_content(
            FINISH_REASONS.get(raw, "other") if raw else "other", bool(state.tool_blocks)
        )
        return "refusal" if reason == "stop" and state.had_refusal else reason

    # -- v1.1: dialects, unread fields and the shapes compatible servers add --

    def _use(self, dialect: Dialect | None) -> None:
        """Read the stream as ``dialect``'s too (a router passes on another server's fields)."""
        if dialect is not None and dialect not in self.dialects:
            self.dialects.append(dialect)
            self.shape = merged(self.shape, dialect.fields)
            if self.usage is not None:
                self.usage = normalize_usage(self.usage["raw"], self._adds_reasoning())

    def _adds_reasoning(self) -> bool:
        return any(d.output_adds_reasoning for d in self.dialects)

    def _account(self, chunk: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        """One ``unread_field`` warning per path this stream has not warned about."""
        paths = list(unread_paths(self.shape, chunk))
        while paths:  # a field may name a dialect whose row accounts for it
            found = by_field(paths, self.dialects)
            if found is None:
                break
            self._use(found)
            paths = list(unread_paths(self.shape, chunk))
        for path in paths:
            if path not in self.unread:
                self.unread.add(path)
                out.append(unread_warning(path, "chunk", frame.index))

    def _tool_key(self, call: Mapping[str, Any]) -> Any:
        """Which call a fragment extends: its ``index``; else its ``id``; else the last one."""
        index = call.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        call_id = call.get("id")
        if isinstance(call_id, str) and call_id:
            return ("id", call_id)
        return self.c.last_tool if self.c.last_tool is not None else 0

    def _content_chunks(self, chunks: list[Any], frame: Frame, out: list[Action]) -> None:
        # Mistral: [{type: text, text}, {type: thinking, thinking: [{type: text, text}]}].
        for item in chunks:
            kind = item.get("type") if isinstance(item, dict) else None
            rule = CONTENT_CHUNKS.get(kind) if isinstance(kind, str) else None
            if rule is None or not isinstance(item, dict):
                path = f"choices[].delta.content[].{kind if isinstance(kind, str) else '?'}"
                if path not in self.unread:
                    self.unread.add(path)
                    out.append(unread_warning(path, "chunk", frame.index))
                continue
            block_kind, provider_type = rule
            texts = _chunk_texts(item.get(kind))
            if not texts:
                continue
            field = "content" if block_kind == "text" else "thinking"
            index = self._text_block(field, block_kind, provider_type, out)
            out.extend(Delta(index, "text", text) for text in texts)

    def _executed_tools(self, tools: list[Any], out: list[Action]) -> None:
        # Groq runs these itself (search, code execution): opaque, never the client's.
        for position, tool in enumerate(tools):
            if not isinstance(tool, dict):
                continue
            key = tool.get("index", position)
            block = self.c.opaque_blocks.get(key)
            if block is None:
                self._close_text(out)
                block = self._new_index()
                self.c.opaque_blocks[key] = block
                self.c.open_opaque.append(block)
                out.append(
                    OpenBlock(block, "opaque", "executed_tools", choice=self._choice_of_block())
                )
            if block in self.c.open_opaque:
                out.append(Delta(block, "json_text", orjson.dumps(tool).decode()))

    def _chunk_citations(self, chunk: dict[str, Any], out: list[Action]) -> None:
        # Perplexity repeats the whole list on every chunk: each item is cited once.
        for key in ("citations", "search_results"):
            items = chunk.get(key)
            if not isinstance(items, list):
                continue
            for item in items:
                seen = orjson.dumps([key, item])
                if seen in self.cited:
                    continue
                self.cited.add(seen)
                if self.c.text_block is None or self.c.text_block[0] != "content":
                    self._text_block("content", "text", "content", out)
                assert self.c.text_block is not None
                citation = {"type": key, "value": item}
                out.append(Delta(self.c.text_block[1], "citation", "", citation=citation))


def finish_from_content(reason: str, client_calls: bool) -> str:
    """v1.1: a normal end with a client tool call whose reason is stop/other is ``tool_calls``."""
    return "tool_calls" if client_calls and reason in ("stop", "other") else reason


def _chunk_texts(value: Any) -> list[str]:
    """The texts of a content chunk's value: a string, or a list of ``{type: text}`` chunks."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [
            item["text"]
            for item in value
            if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"]
        ]
    return []
