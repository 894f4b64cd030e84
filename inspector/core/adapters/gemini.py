"""Gemini ``streamGenerateContent?alt=sse`` (Google AI and Vertex AI) → contract actions.

Every data frame is one ``GenerateContentResponse``. Gemini has no end marker
and no block events: a part of one kind continues the block of that kind, and
the frame that carries ``finishReason`` is the only proof that the response
is complete. Several candidates (``candidateCount > 1``, v1.1) each have their
own blocks (:class:`CandidateState`, carrying ``choice``; :mod:`.per_choice`); the
stream ends at the frame that ends the last candidate that started (:mod:`.several`).

Final signals
-------------
====================================================  ======================================
signal                                                outcome
====================================================  ======================================
``finishReason`` in :data:`DONE_FINISH_REASONS`       ``completed`` at that frame, which
(STOP, MAX_TOKENS, SAFETY after output, …)            first closes the open text/reasoning
                                                      block
a content-filter ``finishReason`` (SAFETY,            ``failed`` / ``content_filter``:
RECITATION, …) with nothing produced but reasoning    no answer was produced
``finishReason`` in :data:`FAILED_FINISH_REASONS`     ``failed`` with that category
(MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, …)
any ``finishReason`` while a streamed                 ``failed`` / ``protocol_error`` (the
``functionCall`` is unfinished (``willContinue``      machine refuses ``Finish`` with the
and no closing ``functionCall {}`` yet)               call open; provider_code = reason)
``promptFeedback.blockReason``                        ``failed`` / ``content_filter``
``{"error": {code, status, message}}`` frame          ``failed``; category from the Google
                                                      ``status``, which is the provider_code
bytes end before any ``finishReason``                 ``interrupted``
====================================================  ======================================

A usage-only frame after the ``finishReason`` frame would arrive after the
terminal event and is kept in the trace as ignored; in every recorded stream
the final usage rides on the ``finishReason`` frame itself.

Blocks (in part order): ``text`` → ``text`` (continued across frames until a
part of another kind); ``text`` with ``thought: true`` → ``reasoning``;
``functionCall`` → ``tool_call`` (``call_id`` = ``functionCall.id`` or null);
parts the provider runs or returns itself (:data:`OPAQUE_PARTS`) → ``opaque``
with the part's JSON as one ``json_text`` delta. ``thoughtSignature`` is a
``signature`` delta on its part's block; an empty text part that carries only
a signature adds it to the open block of that kind, or opens one for it, so
the signature keeps the place the provider gave it. Vertex streamed
arguments (``partialArgs``) are turned into JSON text by :class:`ArgsWriter`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, OpenBlock, Start
from ..choices import choice_number
from ..sse import Frame
from . import several
from .base import Lane, fail_from_error_object, json_problem
from .fields import FieldAccount
from .gemini_args import ArgsWriter, parse_json_path
from .gemini_tables import (
    BLOCK_REASON_NUMBERS,
    DONE_FINISH_REASONS,
    FAILED_FINISH_REASONS,
    FAILED_WHAT,
    FINAL_SIGNALS,
    FINISH_REASON_NUMBERS,
    OPAQUE_PARTS,
    PART_META,
    RESPONSE_FIELDS,
    SHARED_NUMBERS,
    normalize_usage,
)
from .per_choice import ChoiceAdapter, ChoiceState
from .plain import Last, Plain, Shape

__all__ = [
    "DONE_FINISH_REASONS",
    "FAILED_FINISH_REASONS",
    "FINAL_SIGNALS",
    "OPAQUE_PARTS",
    "PLAIN",
    "ArgsWriter",
    "GeminiAdapter",
    "normalize_usage",
    "parse_json_path",
]

# The fields of nearly every response and candidate: nothing to check beyond them.
_USUAL_TOP: Final = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId"})
_PLAIN_CANDIDATE: Final = frozenset({"content", "index"})
_PLAIN_CONTENT: Final = frozenset({"parts", "role"})


PLAIN: Final = Plain(
    shapes={
        # Nearly every response: the usual fields and candidate 0, with one text part
        # continuing the open (non-thought) text block.
        "text": Shape(
            text=("candidates", 0, "content", "parts", 0, "text"),
            keys={
                (): _USUAL_TOP,
                ("candidates", 0): _PLAIN_CANDIDATE,
                ("candidates", 0, "content"): frozenset({"parts", "role"}),
                ("candidates", 0, "content", "parts", 0): frozenset({"text"}),
            },
            equal={("candidates", 0, "index"): 0},
            defaults={("candidates", 0, "index"): 0},
            events=frozenset({"message"}),  # Gemini never names its events
            templates=True,
        )
    },
    # What _response records of every response (the usage: running counts).
    fields={
        "model": Last("modelVersion", str),
        "response_id": Last("responseId", str),
        "usage": Last("usageMetadata", dict),
    },
    sets={"produced": True},  # text was produced (what _text records)
)
"""What a plain response is (see :mod:`.plain`): the fast path's one description."""


class CandidateState(ChoiceState):
    """What the adapter keeps of one candidate: its blocks and its finishReason."""

    __slots__ = ("client_calls", "produced", "streaming", "text_block")

    def __init__(self, choice: int) -> None:
        super().__init__(choice)
        self.text_block: tuple[bool, int] | None = None  # (is thought, block key)
        self.streaming: tuple[int, str, ArgsWriter] | None = None  # (block, name, writer)
        self.client_calls = 0
        self.produced = False  # text, a call or an opaque part: something beyond reasoning


class GeminiAdapter(ChoiceAdapter[CandidateState]):
    """``GenerateContentResponse`` frames to actions; see the module's final-signal table."""

    provider = "gemini"
    plain_frames = PLAIN
    choice_word = "candidate"

    def __init__(self) -> None:
        super().__init__(CandidateState)  # each candidate's blocks (v1.1)
        self.started = False
        self.ends: dict[int, tuple[str, str]] = {}  # candidate -> (finish_reason, raw)
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self.fields = FieldAccount(RESPONSE_FIELDS)
        self.vertex = False  # Vertex numbers its enums apart from the Gemini API

    def origin(self, header: Mapping[str, Any]) -> None:
        """Whether the request went to Vertex AI (its integer enums differ); ``candidateCount``."""
        request = header.get("request")
        url = request.get("url") if isinstance(request, Mapping) else None
        self.vertex = isinstance(url, str) and "aiplatform.googleapis.com" in url
        if several.requested(header, "generationConfig", "candidateCount"):
            self.several = True

    @property
    def produced(self) -> bool:
        """Whether candidate 0 produced more than reasoning (what a plain response sets)."""
        return self.first.produced

    @produced.setter
    def produced(self, value: bool) -> None:
        self.first.produced = value

    def _enum(self, value: Any, names: Mapping[int, str]) -> Any:
        """An enum's name, also when it came as an integer (v1.1)."""
        if type(value) is not int:
            return value
        if self.vertex and value > SHARED_NUMBERS:
            return str(value)  # a value we cannot name: still a final signal (``other``)
        return names.get(value, str(value))

    def feed(self, frame: Frame) -> list[Action]:
        """Map one frame (one response object, or a JSON array of them)."""
        try:
            data = self._json(frame)  # not frame_json: no call and tuple per frame
        except orjson.JSONDecodeError as exc:
            return [json_problem(frame, exc)]
        if frame.event != "message":
            # Gemini never names its events; a named one is not a response object.
            return self._named_event(frame, data)
        out: list[Action] = []
        if isinstance(data, dict):
            self._response(data, frame, out)
            return out
        # Without alt=sse Gemini streams a JSON array; a relay may forward its elements whole.
        for response in data if isinstance(data, list) else (data,):
            if isinstance(response, dict):
                self._response(response, frame, out)
            else:
                out.append(Ignore(f"frame {frame.index}: data is JSON but not an object"))
        return out

    def lane(self) -> Lane | None:
        """Candidate 0's open non-thought text block, before its finishReason: what plain
        responses extend."""
        block = self.first.text_block
        if block is None or block[0] or self.first.finish_reason is not None:
            return None
        return block[1], "text", "text", ()

    def eof_note(self) -> str | None:
        """Say what was missing when the bytes end without a ``finishReason``."""
        notes = ["no frame carried a finishReason, Gemini's only proof of a complete response"]
        if self.several:
            ends = {n: self.ends.get(n) for n in sorted(self.seen)}
            proof = "a finishReason is the only proof of a complete candidate"
            notes = [f"{proof}: {several.ends_note(ends)}"]
        for state in self.states.values():
            if state.streaming is not None:
                notes.append(
                    f"functionCall {state.streaming[1]!r} was still streaming its arguments"
                )
        return "; ".join(notes)

    @staticmethod
    def _named_event(frame: Frame, data: Any) -> list[Action]:
        # An error object is an error under any name; anything else is skipped.
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            return [fail_from_error_object(data["error"])]
        return [Ignore(f"frame {frame.index}: unknown event {frame.event!r}")]

    # -- one response object -------------------------------------------------
    #
    # Parsed JSON objects are always dicts: the checks below use isinstance(x, dict),
    # a C check, where isinstance(x, Mapping) runs the ABC machinery in Python.

    def _response(self, response: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        # One C-level set test; a response of only the usual fields has no error,
        # prompt feedback or unknown field to look for (nearly every frame).
        usual = _USUAL_TOP.issuperset(response)
        model = response.get("modelVersion")
        if isinstance(model, str):
            self.model = model
        if not self.started:
            self.started = True
            out.append(Start(self.model))
        if not usual:
            error = response.get("error")
            if isinstance(error, dict):
                out.append(fail_from_error_object(error))
                return
        response_id = response.get("responseId")
        if isinstance(response_id, str):
            self.response_id = response_id
        usage = response.get("usageMetadata")
        if isinstance(usage, dict):
            self.usage = usage  # running counts until the final frame; normalized once, there
        self.fields.check("response", response, frame.index, out)
        if not usual:
            feedback = response.get("promptFeedback")
            block = feedback.get("blockReason") if isinstance(feedback, dict) else None
            block = self._enum(block, BLOCK_REASON_NUMBERS)
            if isinstance(block, str) and block:
                reason = block
                out.append(Fail("content_filter", reason, f"the prompt was blocked ({reason})"))
                return
        candidates = response.get("candidates")
        if isinstance(candidates, list):
            if len(candidates) > 1:
                # Every candidate of this response has started, before any block of it
                # opens or any of its finishReasons could end the stream.
                if not self.several:
                    self._several(frame, out, 1)
                for candidate in candidates:
                    found = (
                        choice_number(candidate.get("index"))
                        if isinstance(candidate, dict)
                        else None
                    )
                    if found is not None:
                        self._started(found, frame, out)
            for candidate in candidates:
                if isinstance(candidate, dict):
                    self._each_candidate(candidate, frame, out)

    def _each_candidate(self, candidate: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        state = self._enter(candidate.get("index"), frame, out)
        if state is None:
            return
        if state.finish_reason is None:
            self._candidate(candidate, frame, out)
        elif self.several and candidate.get("content"):
            number = state.choice
            self._warn_once(
                f"after:{number}",
                f"frame {frame.index}: candidate {number} sent content after its finishReason; "
                "skipped",
                out,
                "after_choice_end",
            )

    def _candidate(self, candidate: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        content = candidate.get("content")
        if isinstance(content, dict):
            parts = content.get("parts")
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, dict):
                        self._part(part, frame, out)
        if not _PLAIN_CANDIDATE.issuperset(candidate):  # C-level; a plain one has nothing more
            self._candidate_rest(candidate, frame, out)

    def _candidate_rest(self, candidate: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        """Citations, grounding, unknown fields and finishReason: what a plain candidate lacks."""
        citations = candidate.get("citationMetadata")
        if isinstance(citations, dict):
            # Google AI names the list citationSources, Vertex names it citations.
            sources = citations.get("citationSources", citations.get("citations"))
            if isinstance(sources, list):
                for source in sources:
                    self._citation(source, out)
        grounding = candidate.get("groundingMetadata")
        if isinstance(grounding, dict) and grounding:
            self._citation(grounding, out)
        finish = self._enum(candidate.get("finishReason"), FINISH_REASON_NUMBERS)
        if isinstance(finish, str) and finish:
            self.c.finish_reason = finish
            self._finish(finish, candidate, out)

    # -- parts -----------------------------------------------------------------

    def _part(self, part: dict[str, Any], frame: Frame, out: list[Action]) -> None:
        signature = part.get("thoughtSignature")
        if not isinstance(signature, str) or not signature:
            signature = None
        if "text" in part:
            self._text(part, signature, out)
        elif "functionCall" in part:
            call = part["functionCall"]
            self._function_call(call if isinstance(call, dict) else {}, signature, out)
        else:
            kind = next((key for key in part if key in OPAQUE_PARTS), None)
            if kind is not None:
                self._opaque(kind, part[kind], signature, out)
            else:
                unknown = [key for key in part if key not in PART_META]
                for key in unknown:
                    self._warn_once(
                        f"part:{key}", f"frame {frame.index}: unknown part type {key!r}", out,
                        "unknown_part",
                    )  # fmt: skip
                if not unknown:
                    # Only a signature (and flags): the same as an empty text part.
                    self._text(part, signature, out)

    def _text(self, part: dict[str, Any], signature: str | None, out: list[Action]) -> None:
        text = part.get("text")
        text = text if isinstance(text, str) else ""
        if not text and signature is None:
            return  # an empty part carries nothing; it neither opens nor closes a block
        thought = part.get("thought") is True
        index = self._text_block(thought, out)
        if text:
            out.append(Delta(index, "text", text))
            if not thought:
                self.c.produced = True
        if signature is not None:
            out.append(Delta(index, "signature", signature))

    def _text_block(self, thought: bool, out: list[Action]) -> int:
        if self.c.text_block is not None and self.c.text_block[0] == thought:
            return self.c.text_block[1]
        self._close_text(out)
        index = self._new_index()
        self.c.text_block = (thought, index)
        if thought:
            out.append(OpenBlock(index, "reasoning", "thought", choice=self._choice_of_block()))
        else:
            out.append(OpenBlock(index, "text", "text", choice=self._choice_of_block()))
        return index

    def _function_call(
        self, call: dict[str, Any], signature: str | None, out: list[Action]
    ) -> None:
        name = call.get("name")
        will_continue = call.get("willContinue") is True
        partial = call.get("partialArgs")
        if isinstance(name, str) and name:
            self._close_text(out)
            if self.c.streaming is not None:
                # Its closing functionCall {} never came: it stays open, so the
                # final signal will end the stream protocol_error, as it must.
                out.append(
                    Ignore(
                        f"functionCall {name!r} began while {self.c.streaming[1]!r} was still "
                        "streaming its arguments; that call stays unfinished",
                        "unfinished_call",
                    )
                )
                self.c.streaming = None
            index = self._new_index()
            call_id = call.get("id")
            out.append(
                OpenBlock(
                    index,
                    "tool_call",
                    "functionCall",
                    name=name,
                    call_id=call_id if isinstance(call_id, str) and call_id else None,
                    choice=self._choice_of_block(),
                )
            )
            self.c.client_calls += 1
            self.c.produced = True
            if signature is not None:
                out.append(Delta(index, "signature", signature))
            args = call.get("args")
            if isinstance(args, dict):
                out.append(Delta(index, "json_text", orjson.dumps(args).decode()))
            writer = ArgsWriter()
            if isinstance(partial, list) and not self._partial(index, name, writer, partial, out):
                return
            if will_continue:
                self.c.streaming = (index, name, writer)
            else:
                self._end_call(index, writer, out)
            return
        if self.c.streaming is None:
            out.append(
                Ignore("a functionCall without a name while no call is streaming", "unknown_field")
            )
            return
        index, name, writer = self.c.streaming
        if signature is not None:
            out.append(Delta(index, "signature", signature))
        if isinstance(partial, list) and not self._partial(index, name, writer, partial, out):
            self.c.streaming = None
            return
        if not will_continue:
            # The closing chunk (an empty functionCall {}) ends the streamed call.
            self.c.streaming = None
            self._end_call(index, writer, out)

    def _partial(
        self, index: int, name: str, writer: ArgsWriter, args: list[Any], out: list[Action]
    ) -> bool:
        """Feed Vertex partialArgs to ``writer``; False when they cannot be assembled."""
        for arg in args:
            if not isinstance(arg, dict):
                continue
            text, note, fatal = writer.feed(arg)
            if fatal:
                out.append(Fail("protocol_error", None, f"functionCall {name!r}: {note}"))
                return False
            if text:
                out.append(Delta(index, "json_text", text))
            if note:
                out.append(Ignore(f"functionCall {name!r}: {note}", "partial_args"))
        return True

    def _end_call(self, index: int, writer: ArgsWriter, out: list[Action]) -> None:
        tail, note = writer.finish()
        if tail:
            out.append(Delta(index, "json_text", tail))
        if note:
            out.append(Ignore(note, "partial_args"))
        out.append(CloseBlock(index))

    def _opaque(self, kind: str, value: Any, signature: str | None, out: list[Action]) -> None:
        self._close_text(out)
        index = self._new_index()
        out.append(OpenBlock(index, "opaque", kind, choice=self._choice_of_block()))
        out.append(Delta(index, "json_text", orjson.dumps(value).decode()))
        if signature is not None:
            out.append(Delta(index, "signature", signature))
        out.append(CloseBlock(index))
        self.c.produced = True

    def _citation(self, citation: Any, out: list[Action]) -> None:
        if self.c.text_block is None or self.c.text_block[0]:
            self._text_block(False, out)
        assert self.c.text_block is not None
        out.append(Delta(self.c.text_block[1], "citation", "", citation=citation))

    # -- the end ---------------------------------------------------------------

    def _finish(self, reason: str, candidate: dict[str, Any], out: list[Action]) -> None:
        state = self.c
        who = f"candidate {state.choice}: " if self.several else ""
        category = FAILED_FINISH_REASONS.get(reason)
        if category is not None:
            out.append(Fail(category, reason, who + self._failed_message(reason, candidate)))
            return
        normalized = DONE_FINISH_REASONS.get(reason, "other")
        if normalized == "content_filter" and not state.produced:
            # The provider refused before producing an answer: nothing to complete.
            out.append(
                Fail(
                    "content_filter",
                    reason,
                    f"{who}the response was blocked ({reason}) before any output was produced",
                )
            )
            return
        if normalized == "stop" and state.client_calls:
            normalized = "tool_calls"
        # The final frame closes what is complete; an unfinished streamed call
        # stays open and the machine refuses the Finish (protocol_error).
        self._close_text(out)
        self.ends[state.choice] = (normalized, reason)
        choices = None
        if self.several:
            if not self.seen <= self.ends.keys():
                return  # v1.1: the stream ends when every candidate that started has
            choices = several.outcomes(self.ends)
            normalized, reason = self.ends[min(self.ends)]
        usage = normalize_usage(self.usage) if self.usage is not None else None
        out.append(Finish(normalized, reason, usage, self.model, self.response_id, choices))

    @staticmethod
    def _failed_message(reason: str, candidate: dict[str, Any]) -> str:
        message = f"finishReason {reason}: {FAILED_WHAT[reason]}"
        detail = candidate.get("finishMessage")
        if isinstance(detail, str) and detail:
            message += f" ({detail[:200]})"
        return message

    # -- helpers ---------------------------------------------------------------

    def _close_text(self, out: list[Action]) -> None:
        if self.c.text_block is not None:
            out.append(CloseBlock(self.c.text_block[1]))
            self.c.text_block = None
