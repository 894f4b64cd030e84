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

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, OpenBlock, Start
from ..sse import Frame
from .base import (
    NOT_PARSED,
    Adapter,
    fail_from_error_object,
    int_or_none,
    json_problem,
    last_value,
)
from .template import Learner, Path

__all__ = ["FINISH_REASONS", "OpenAIChatAdapter"]

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

# Where a plain chunk's text is: what a template cuts out (see template.py).
TEXT_PATH: Final[Path] = ("choices", 0, "delta", "content")


class OpenAIChatAdapter(Adapter):
    """Chat Completions chunks (``chat.completion.chunk``) to actions."""

    provider = "openai-chat"

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
        self.templates = Learner(TEXT_PATH)

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

    def lane(self) -> tuple[int, str] | None:
        """The open ``content`` text block: what a plain chunk extends."""
        block = self.text_block
        return (block[1], "text") if block is not None and block[0] == "content" else None

    def plain_run(
        self, events: Sequence[str], payloads: Sequence[str | bytes], start: int
    ) -> tuple[list[str], Any]:
        """Nearly every chunk: one choice whose delta is only ``content`` (see Adapter).

        The checks are ``feed``'s, written out in the loop. Such a chunk changes
        nothing but what ``_note`` records, where the last chunk that has a
        value wins: the model and the id (in every chunk) are looked up once,
        from the end, when the run stops; the usage (nearly never there) as it
        comes. A chunk that is the stream's template around another text (see
        ``template.py``) parses to the template's chunk but for the text, so
        it passes the same checks and records the same values: only its text
        is read.
        """
        texts: list[str] = []
        append = texts.append
        last: dict[str, Any] | None = None  # the run's last plain chunk (the others die young)
        loads = orjson.loads
        JSONDecodeError = orjson.JSONDecodeError
        open_finish = self.finish_reason is None  # a finish_reason would be news
        chat = CHAT_EVENTS
        # A decoder's run of data-only events is all "message": one C-level count.
        named = events.count("message") != len(events)
        stopped: Any = NOT_PARSED
        learner = self.templates
        cut = learner.cut_for(payloads[start]) if start < len(payloads) else None
        names = chat if named else None
        hits = 0
        i, count = start, len(payloads)
        while i < count:
            if cut is not None:
                # Payloads with the template's bytes around their text: only it is read.
                read = cut.read(payloads, i, events, names, append)
                if read:
                    last = cut.data
                    hits += read
                    i += read
                    if i == count:
                        break
            payload = payloads[i]
            try:
                data = loads(payload)
            except JSONDecodeError:
                break
            stopped = data
            # No type checks on the way down: of what orjson returns only a dict takes
            # a str key and only a list or a str an int index, so any other shape
            # raises (a str choice or delta as well, at its str key) and is not plain.
            try:
                choices = data["choices"]
                if len(choices) != 1 or (named and events[i] not in chat):
                    break
                choice = choices[0]
                delta = choice["delta"]
                if len(delta) != 1:
                    break
                text = delta["content"]
                try:  # (subscripts, not get(): both keys are in every real chunk)
                    index = choice["index"]
                    finish = choice["finish_reason"]
                except KeyError:
                    index = choice.get("index", 0)
                    finish = choice.get("finish_reason")
            except (KeyError, TypeError):
                break
            if type(text) is not str or not text or index != 0:
                break
            if open_finish and finish and isinstance(finish, str):
                break
            if "error" in data and isinstance(data["error"], dict):
                break
            usage = None
            if "usage" in data:  # (rare: a single lookup when absent)
                usage = data["usage"]
                if isinstance(usage, dict):
                    self.usage = normalize_usage(usage)
            last = data
            append(text)
            stopped = NOT_PARSED
            # A chunk's usage is state a template would skip: such a chunk is not one.
            if not isinstance(usage, dict) and learner.missed(payload, data):
                cut = learner.cut_for(payload)
            i += 1
        if hits:
            learner.used()
        if last is not None:
            self._note_plain(last, payloads, start, len(texts))
        return texts, stopped

    def _note_plain(
        self, last: dict[str, Any], payloads: Sequence[str | bytes], start: int, count: int
    ) -> None:
        """:meth:`_note_last` for the ``count`` plain chunks from ``payloads[start]``.

        The last one nearly always has both values; only when it does not are
        the others parsed again (not kept while the run is checked: holding
        every chunk of a network chunk costs more than the rare second parse).
        """
        model, response_id = last.get("model"), last.get("id")
        if isinstance(model, str) and isinstance(response_id, str):
            self.model, self.response_id = model, response_id
        else:
            self._note_last([orjson.loads(payloads[i]) for i in range(start, start + count)])

    def _note_last(self, chunks: list[dict[str, Any]]) -> None:
        """:meth:`_note`'s model and id of each chunk in turn, found from the last one back."""
        model = last_value(chunks, "model", str)
        if model is not None:
            self.model = model
        response_id = last_value(chunks, "id", str)
        if response_id is not None:
            self.response_id = response_id

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
            text = delta.get("content")
            block = self.text_block
            if (
                len(delta) == 1
                and block is not None
                and block[0] == "content"
                and isinstance(text, str)
                and text
            ):
                # Nearly every chunk after the first: {"content": "..."} for the open
                # text block. The same result as _delta, without its scan of every field.
                out.append(Delta(block[1], "text", text))
            else:
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
