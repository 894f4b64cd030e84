"""OpenAI legacy Completions (``POST /v1/completions``, ``stream: true``) → contract actions.

Also what vLLM, llama.cpp's server, TGI and other OpenAI-compatible servers
stream for ``/v1/completions``.

Final signals
-------------
===============================================  ==========================================
signal                                           outcome
===============================================  ==========================================
a choice's ``finish_reason``, then ``[DONE]``    ``completed``; ``finish_reason`` from
                                                 :data:`FINISH_REASONS`, usage from the
                                                 last chunk that carried ``usage``
``[DONE]`` with no ``finish_reason`` before it   ``completed`` / ``other`` with a warning
                                                 ``no_finish_reason`` (v1.1, as for Chat)
a chunk ``{"error": {...}}``                     ``failed``; category from the error
``finish_reason`` and then the end of the        ``interrupted`` (the end was not proved)
bytes without ``[DONE]``
===============================================  ==========================================

Blocks: each choice's ``text`` is one ``text`` block, opened at its first text
and closed at its ``finish_reason`` (or ``[DONE]``). Several choices (``n > 1``,
v1.1): the blocks carry ``choice``, ``stream.done`` lists each choice's end,
and ``[DONE]`` while a choice that started has no ``finish_reason`` is
``failed`` / ``protocol_error`` naming it (:mod:`.several`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Finish, Ignore, OpenBlock, Start
from ..choices import block_key
from ..sse import Frame
from . import several
from .base import Lane, fail_from_error_object, int_or_none, json_problem
from .fields import IGNORED, READ, FieldAccount, FieldTable
from .per_choice import ChoiceAdapter, ChoiceState
from .plain import Each, Plain, Shape

__all__ = [
    "CHUNK_FIELDS",
    "DONE",
    "FINAL_SIGNALS",
    "FINISH_REASONS",
    "PLAIN",
    "OpenAICompletionsAdapter",
]

#: The data of the frame that proves the end.
DONE: Final = "[DONE]"

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "[DONE]": ("completed", "after a finish_reason (without one: other, with a warning)"),
    "error": ("failed", "category from error.type / error.code"),
}
"""Frame → (terminal state, condition). Without ``[DONE]`` the end is ``interrupted``."""

FINISH_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "eos": "stop",  # TGI
    "abort": "other",  # vLLM, a request aborted by the server
}
"""``finish_reason`` → contract ``finish_reason``; anything else is ``other``."""

CHUNK_FIELDS: Final[FieldTable] = {
    "chunk": {
        "id": READ, "object": IGNORED, "created": IGNORED, "model": READ,
        "system_fingerprint": IGNORED, "usage": READ, "error": READ,
        # vLLM's `stop_reason` (the stop string or token behind finish_reason "stop") is
        # raw data only, as in Chat's vllm dialect row (docs/providers/openai-completions.md).
        "choices": {"index": READ, "text": READ, "finish_reason": READ, "logprobs": IGNORED,
                    "stop_reason": IGNORED},
    }
}  # fmt: skip
"""v1.1 unread-field accounting: the fields a chunk's reading covers (:mod:`.fields`)."""


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Completions usage → the contract's (the raw object kept)."""
    return {
        "input_tokens": int_or_none(usage.get("prompt_tokens")),
        "output_tokens": int_or_none(usage.get("completion_tokens")),
        "raw": dict(usage),
    }


PLAIN: Final = Plain(
    shapes={
        # Nearly every chunk: choice 0's next ``text`` for the open text block, no
        # finish_reason (nor vLLM's stop_reason), no error. The model and id are taken
        # from the first chunk only, so a plain chunk updates nothing but the usage.
        "text": Shape(
            text=("choices", 0, "text"),
            keys={
                (): frozenset({"id", "object", "created", "model", "system_fingerprint",
                               "choices", "usage"}),
                ("choices", 0): frozenset(
                    {"index", "text", "logprobs", "finish_reason", "stop_reason"}
                ),
            },
            equal={("choices", 0, "index"): 0},
            defaults={("choices", 0, "index"): 0},
            null=(("choices", 0, "finish_reason"), ("choices", 0, "stop_reason")),
            templates=True,
        )
    },
    fields={"usage": Each("usage", dict, normalize_usage)},
)  # fmt: skip
"""What a plain chunk is (see :mod:`.plain`)."""


class OpenAICompletionsAdapter(ChoiceAdapter[ChoiceState]):
    """Legacy Completions chunks to actions; see the module's final-signal table.

    Each choice (v1.1) has one block, its text: choice 0's has key 0, choice
    c's ``block_key(0, c)`` (the per-choice bookkeeping is :mod:`.per_choice`'s).
    """

    provider = "openai-completions"
    plain_frames = PLAIN

    def __init__(self) -> None:
        super().__init__(ChoiceState)
        self.started = False
        self.open: set[int] = set()  # choices whose text block is open
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self.fields = FieldAccount(CHUNK_FIELDS)

    @property
    def finish_reason(self) -> str | None:
        """The finish_reason of the first choice (by number) that has one."""
        return next((end for end in self._ends().values() if end is not None), None)

    def origin(self, header: Mapping[str, Any]) -> None:
        """Whether the request asked for several choices (``n``)."""
        if several.requested(header, "n"):
            self.several = True

    def feed(self, frame: Frame) -> list[Action]:
        """Map one chunk, or the ``[DONE]`` sentinel."""
        out: list[Action] = []
        if frame.data == DONE:
            self._done(out)
            return out
        try:
            chunk = self._json(frame)
        except orjson.JSONDecodeError as exc:
            out.append(json_problem(frame, exc))
            return out
        if not isinstance(chunk, dict):
            out.append(Ignore(f"frame {frame.index}: data is JSON but not an object"))
            return out
        if not self.started:
            self.started = True
            model = chunk.get("model")
            self.model = model if isinstance(model, str) and model else None
            response_id = chunk.get("id")
            self.response_id = response_id if isinstance(response_id, str) else None
            out.append(Start(self.model))
        error = chunk.get("error")
        if isinstance(error, dict):
            out.append(fail_from_error_object(error))
            return out
        self.fields.check("chunk", chunk, frame.index, out)
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = normalize_usage(usage)
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if isinstance(choice, dict):
                self._choice(choice, frame, out)
        return out

    def lane(self) -> Lane | None:
        """Choice 0's open text block (key 0): what a plain chunk extends."""
        return (0, "text", "text", ()) if 0 in self.open else None

    def _choice(self, choice: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        state = self._enter(choice.get("index"), frame, out)
        if state is None:
            return
        number = state.choice
        text = choice.get("text")
        if isinstance(text, str) and text:
            # Text after the block closed goes to it still: the machine refuses it.
            if not state.next_index:
                self.open.add(number)
                key, of = self._new_index(), self._choice_of_block()
                out.append(OpenBlock(key, "text", "text", choice=of))
            out.append(Delta(block_key(0, number), "text", text))
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            state.finish_reason = reason
            self._close(number, out)

    def _close(self, number: int, out: list[Action]) -> None:
        if number in self.open:
            self.open.discard(number)
            out.append(CloseBlock(block_key(0, number)))

    def _done(self, out: list[Action]) -> None:
        if not self.started:
            self.started = True
            out.append(Start(None))
        for number in sorted(self.open):
            self._close(number, out)
        ends = self._ends() or {0: None}
        if all(end is None for end in ends.values()):
            out.append(Ignore("[DONE] arrived without any finish_reason", "no_finish_reason"))
        elif self.several:
            missing = [number for number, end in sorted(ends.items()) if end is None]
            if missing:  # v1.1: every choice that started needs its own end
                out.append(several.missing_end(missing, "[DONE]", "finish_reason"))
                return
        outcomes = {
            number: (FINISH_REASONS.get(end, "other") if end is not None else "other", end)
            for number, end in ends.items()
        }
        reason, raw = outcomes[min(outcomes)]
        out.append(
            Finish(
                reason,
                raw,
                usage=self.usage,
                model=self.model,
                response_id=self.response_id,
                choices=several.outcomes(outcomes) if self.several else None,
            )
        )

    def eof_note(self) -> str | None:
        """Say when a finish_reason came but ``[DONE]`` never did."""
        if self.finish_reason is not None:
            note = (
                f"finish_reason {self.finish_reason!r} arrived, but [DONE] never did, "
                "so the end was not proved"
            )
            return f"{note}; {several.ends_note(self._ends())}" if self.several else note
        return None
