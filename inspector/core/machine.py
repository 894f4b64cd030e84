"""The stream machine: the one owner of a stream's state.

Theory of operation
-------------------
Adapters hand the machine *actions* (:mod:`inspector.core.actions`). The
machine looks each one up in two transition tables — one for the stream,
one for blocks — and either applies it, producing exactly one contract event
and recording every state change in the trace, or refuses it. A refused
action is something the provider's stream would have needed us to break a
contract invariant for (a delta for a block never opened, a final signal
while a block is still open, ...): the machine records a provider
:class:`~inspector.core.trace.Violation` naming the rule, and ends the stream
``failed`` with category ``protocol_error``. So the emitted sequence keeps
all six invariants whatever the provider sends, and the caller never sees an
exception.

Stream states: ``idle → open → receiving → completed | failed | interrupted``.
Block states: ``new → open → closed``. A forbidden transition is simply a
missing key in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from .actions import (
    Action,
    CloseBlock,
    Delta,
    Fail,
    Finish,
    Heartbeat,
    Ignore,
    OpenBlock,
    Start,
)
from .choices import block_id, key_name, place_of
from .errors import error_object
from .invariants import IndexRanges
from .recorder import Recorder
from .trace import Ignored, IntColumn, Transition, TransportEnd, Violation

__all__ = [
    "BLOCK_TRANSITIONS",
    "STREAM_TRANSITIONS",
    "TERMINAL_STATES",
    "BlockBuffer",
    "StreamMachine",
    "TransitionError",
]

Event = dict[str, Any]

# (state, trigger) -> next state. Triggers name what happened, not who did it.
STREAM_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    ("idle", "start"): "open",
    ("open", "content"): "receiving",
    ("receiving", "content"): "receiving",
    ("open", "done"): "completed",
    ("receiving", "done"): "completed",
    ("open", "error"): "failed",
    ("receiving", "error"): "failed",
    ("open", "interrupt"): "interrupted",
    ("receiving", "interrupt"): "interrupted",
}

BLOCK_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    ("new", "start"): "open",
    ("open", "delta"): "open",
    ("open", "stop"): "closed",
    # After stream.error open blocks are closed internally, without block.stop.
    ("open", "abort"): "closed",
}

TERMINAL_STATES: Final = frozenset({"completed", "failed", "interrupted"})

DELTA_KINDS: Final = frozenset({"text", "json_text", "signature", "citation"})
# Kinds a run of deltas may have (a citation's event is kept whole, one by one).
_RUN_KINDS: Final = frozenset({"text", "json_text", "signature"})
BLOCK_KINDS: Final = frozenset({"text", "tool_call", "reasoning", "refusal", "opaque"})

_INTERRUPT_CATEGORY: Final[dict[str, str]] = {
    "eof": "transport",
    "reset": "transport",
    "timeout": "transport",
    "progress_timeout": "progress_timeout",
    "cancelled": "cancelled",
}

_INTERRUPT_WHAT: Final[dict[str, str]] = {
    "eof": "the bytes ended",
    "reset": "the connection was reset",
    "timeout": "the transport timed out",
    "progress_timeout": "no meaningful frame arrived within the progress timeout",
    "cancelled": "the client cancelled the stream",
}


class TransitionError(Exception):
    """A (state, trigger) pair that the tables do not allow."""

    def __init__(self, subject: str, state: str, trigger: str) -> None:
        super().__init__(f"{subject}: no transition from {state!r} on {trigger!r}")
        self.subject = subject
        self.state = state
        self.trigger = trigger


def next_state(table: dict[tuple[str, str], str], subject: str, state: str, trigger: str) -> str:
    """Look up a transition; a missing key is a :class:`TransitionError`."""
    try:
        return table[(state, trigger)]
    except KeyError:
        raise TransitionError(subject, state, trigger) from None


@dataclass(slots=True)
class BlockBuffer:
    """One block as assembled so far: its state and its content."""

    index: int
    kind: str
    provider_type: str
    name: str | None = None
    call_id: str | None = None
    #: Its choice when the stream has several (v1.1); ``index`` is then its key.
    choice: int | None = None
    state: str = "new"
    parts: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)
    ref: dict[str, Any] = field(default_factory=dict)
    #: Indices of this block's events: the same column as ``trace.block_events[index]``
    #: (a recorder that keeps no history leaves it empty).
    events: IntColumn = field(default_factory=IntColumn)
    #: Whether the content is kept: always with history; without, only a tool call's
    #: arguments, which the contract parses at its ``block.stop``.
    keeps: bool = True

    @property
    def id(self) -> str:
        """The contract's stable block id."""
        return block_id(place_of(self.index), self.choice)

    @property
    def text(self) -> str:
        """Text, tool-call JSON arguments or opaque content received so far."""
        return "".join(self.parts)


def parse_arguments(raw: str) -> tuple[Any, str | None]:
    """Parse tool-call arguments at ``block.stop``: (value, error message).

    Empty arguments mean a call without parameters (providers send ``""``
    for those), so they parse as ``{}``.
    """
    if not raw.strip():
        return {}, None
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError as exc:
        return None, str(exc)


class StreamMachine:
    """Applies adapter actions to one stream, writing events to a recorder.

    The recorder (a :class:`~inspector.core.trace.Trace`, or a
    :class:`~inspector.core.summary.Summary`) is given when the machine is
    built; without history the machine keeps no block content but a tool
    call's arguments, and which block indices were seen as ranges, so its own
    memory is bounded too.
    """

    def __init__(self, recorder: Recorder, provider: str) -> None:
        self.trace = recorder
        self.provider = provider
        #: The framing when not SSE, which ``stream.start`` then carries (contract v1.1).
        self.framing: str | None = None
        self.state = "idle"
        self.history = recorder.keeps_history
        #: Every block by index (with history; without, only :attr:`seen` says which).
        self.blocks: dict[int, BlockBuffer] = {}
        self.seen = IndexRanges()
        self.open_blocks: dict[int, BlockBuffer] = {}
        self.frame = -1
        #: Tool calls whose input is free text (v1.1 ``input_format: "text"``): never parsed.
        self.text_inputs: set[int] = set()

    @property
    def terminal(self) -> bool:
        """True once ``stream.done`` or ``stream.error`` was emitted."""
        return self.state in TERMINAL_STATES

    # -- the entry points --------------------------------------------------

    def take_frame(self, frame: int) -> bool:
        """Whether frame ``frame`` is to be mapped at all.

        After the terminal event nothing is: the frame is recorded as having
        arrived after it, and False says so. This, and :meth:`apply` for an
        action of a frame that ended the stream, is the one place that decides it.
        """
        if self.state in TERMINAL_STATES:
            self._after_terminal(frame)
            return False
        return True

    def apply(self, action: Action, frame: int = -1) -> None:
        """Apply one action caused by frame ``frame`` (-1: no frame)."""
        self.frame = frame
        if self.state in TERMINAL_STATES:
            self._after_terminal(frame)
            return
        handler = _HANDLERS[type(action)]
        handler(self, action)

    def apply_deltas(
        self, index: int, kind: str, texts: list[str], frame: int
    ) -> Sequence[int] | None:
        """Apply ``Delta(index, kind, text)`` for each text, from frames ``frame``, ``frame + 1``…

        The same events, transitions and block content as applying them one by
        one, recorded in bulk (a run of plain deltas, see ``Adapter.feed_run``);
        the answer is the new events' indices. Only a run every delta of which
        the machine simply accepts is taken: when the block is not open, the
        kind is not a compact one or the stream is over, nothing is applied and
        the answer is None (apply them one by one then, to get the refusal).
        """
        block = self.open_blocks.get(index)
        if block is None or kind not in _RUN_KINDS or self.state in TERMINAL_STATES:
            return None
        self.frame = frame
        if self.state == "open":
            self._stream("content")
        if block.keeps:
            (block.signature if kind == "signature" else block.parts).extend(texts)
        events = self.trace.emit_deltas(block.ref, kind, texts, frame, block.events)
        self.frame = frame + len(texts) - 1
        return events

    def interrupt(self, end: TransportEnd, detail: str | None = None) -> None:
        """The transport ended: ``interrupted`` unless already terminal."""
        self.frame = -1
        if self.terminal:
            return
        self._ensure_started()
        what = _INTERRUPT_WHAT.get(end.reason, f"the transport ended ({end.reason})")
        parts = [f"{what} before the provider's terminal signal"]
        if end.error:
            parts.append(end.error)
        if self.open_blocks:
            names = ", ".join(f"{b.id} {b.kind}" for b in self.open_blocks.values())
            parts.append(f"still open: {names} (content is a draft)")
        if detail:
            parts.append(detail)
        category = _INTERRUPT_CATEGORY.get(end.reason, "transport")
        self._terminate("interrupt", "interrupted", error_object(category, None, "; ".join(parts)))

    def fail(self, category: str, message: str, provider_code: Any = None) -> None:
        """End the stream ``failed`` from outside an adapter (decoder, HTTP)."""
        if not self.terminal:
            self._ensure_started()
            self._fail(Fail(category, provider_code, message))

    # -- handlers ----------------------------------------------------------

    def _start(self, action: Start) -> None:
        if self.state != "idle":
            self._reject(1, "the provider started the stream a second time")
            return
        self._stream("start")
        event: Event = {"provider": self.provider}
        if self.framing is not None:
            event["framing"] = self.framing
        if action.model:  # v1.1: omitted when unknown or empty
            event["model"] = action.model
        self._emit("stream.start", event)

    def _open(self, action: OpenBlock) -> None:
        self._ensure_started()
        if action.index in self.seen:
            self._reject(2, f"block {action.index} was opened a second time")
            return
        if action.kind not in BLOCK_KINDS:
            self._reject(2, f"unknown block kind {action.kind!r}")
            return
        block = BlockBuffer(
            action.index,
            action.kind,
            action.provider_type,
            action.name,
            action.call_id,
            action.choice,
            keeps=self.history or action.kind == "tool_call",
        )
        if action.choice is None:
            block.ref = {"id": block.id, "index": block.index, "kind": block.kind}
        else:  # v1.1: several choices; the index is the block's place within its choice
            place, choice = place_of(block.index), action.choice
            block.ref = {"id": block.id, "index": place, "kind": block.kind, "choice": choice}
        self.seen.add(block.index)
        if self.history:
            self.blocks[block.index] = block
        self.open_blocks[block.index] = block
        self._content()
        event: Event = {"block": block.ref}
        if block.kind == "tool_call":
            event["name"] = block.name
            event["call_id"] = block.call_id
            if action.input_format is not None:
                event["input_format"] = action.input_format
                if action.input_format == "text":
                    self.text_inputs.add(block.index)
        elif block.kind == "reasoning":
            event["visibility"] = "internal"
        event["provider_type"] = block.provider_type
        self._emit("block.start", event)
        self._block(block, "start")

    def _delta(self, action: Delta) -> None:
        # The hot path: most of a stream is deltas for a block already open, which
        # also proves the stream started, so no other check is needed.
        block = self.open_blocks.get(action.index)
        kind = action.kind
        if block is None or kind not in DELTA_KINDS:
            self._ensure_started()
            if block is None:
                self._reject(2, self._not_open(action.index, "a delta"))
            else:
                self._reject(2, f"unknown delta kind {kind!r} for {key_name(action.index)}")
            return
        if self.state == "open":
            self._stream("content")
        text = action.text
        if kind == "citation":
            if block.keeps:
                block.citations.append(action.citation)
            delta = {"kind": kind, "text": text, "citation": action.citation}
            self._emit("block.delta", {"block": block.ref, "delta": delta})
            if self.history:
                block.events.append(self.trace.event_count - 1)
            return
        if block.keeps:
            (block.signature if kind == "signature" else block.parts).append(text)
        # Stored compactly: the event keeps the very str the block buffer holds.
        self.trace.emit_delta(block.ref, kind, text, self.frame, block.events)

    def _close(self, action: CloseBlock) -> None:
        self._ensure_started()
        block = self.open_blocks.get(action.index)
        if block is None:
            self._reject(2, self._not_open(action.index, "a block stop"))
            return
        if block.kind == "tool_call" and block.index not in self.text_inputs:
            _, problem = parse_arguments(block.text)
            if problem is not None:
                self._fail(
                    Fail(
                        "protocol_error",
                        None,
                        f"tool call {block.id} ({block.name}) arguments are not valid "
                        f"JSON at block.stop: {problem}",
                    )
                )
                return
        del self.open_blocks[block.index]
        self._emit("block.stop", {"block": block.ref})
        self._block(block, "stop")

    def _finish(self, action: Finish) -> None:
        self._ensure_started()
        if self.open_blocks:
            names = ", ".join(f"{b.id} {b.kind}" for b in self.open_blocks.values())
            self._reject(
                5,
                f"final signal {action.provider_finish_reason!r} arrived while a block is "
                f"still open ({names}); its content is incomplete",
                provider_code=action.provider_finish_reason,
            )
            return
        self._stream("done")
        done: Event = {
            "status": "completed",
            "finish_reason": action.finish_reason,
            "provider_finish_reason": action.provider_finish_reason,
            "usage": action.usage,
            "model": action.model,
            "response_id": action.response_id,
        }
        if action.choices is not None:  # v1.1: several choices, each with its own end
            done["choices"] = action.choices
        self._emit("stream.done", done)

    def _fail(self, action: Fail) -> None:
        self._ensure_started()
        trigger = "interrupt" if action.status == "interrupted" else "error"
        self._terminate(
            trigger,
            action.status,
            error_object(action.category, action.provider_code, action.message),
        )

    def _heartbeat(self, action: Heartbeat) -> None:
        if self.state == "idle":
            return  # before stream.start there is nothing to attach it to
        self._emit("stream.heartbeat", {"source": action.source})

    def _ignore(self, action: Ignore) -> None:
        self.trace.add_ignored(Ignored(self.frame, action.reason, action.code))
        if self.state == "idle":
            return
        warning: Event = {"code": action.code, "message": action.reason}
        if action.path is not None:
            warning["path"] = action.path
        self._emit("stream.warning", warning)

    # -- helpers -----------------------------------------------------------

    def _after_terminal(self, frame: int) -> None:
        self.trace.add_ignored(Ignored(frame, "arrived after the terminal event", "after_terminal"))

    def _ensure_started(self) -> None:
        if self.state == "idle":
            self._start(Start(None))

    def _not_open(self, index: int, what: str) -> str:
        if index in self.seen:
            return f"{what} arrived for {key_name(index)}, which is already closed"
        return f"{what} arrived for {key_name(index)}, which was never opened"

    def _reject(self, rule: int, message: str, provider_code: Any = None) -> None:
        self.trace.add_violation(
            Violation(rule, message, self.frame, self.trace.event_count, "provider")
        )
        self._fail(Fail("protocol_error", provider_code, message))

    def _terminate(self, trigger: str, status: str, error: dict[str, Any]) -> None:
        self._stream(trigger)
        self._emit("stream.error", {"status": status, "error": error})
        for block in list(self.open_blocks.values()):
            self._block(block, "abort")
        self.open_blocks.clear()

    def _content(self) -> None:
        if self.state == "open":
            self._stream("content")

    def _emit(self, type_: str, fields: Event) -> None:
        trace = self.trace
        event: Event = {"stream_id": trace.stream_id, "seq": trace.event_count + 1, "type": type_}
        event.update(fields)
        trace.emit(event, self.frame)

    def _stream(self, trigger: str) -> None:
        after = next_state(STREAM_TRANSITIONS, "stream", self.state, trigger)
        if after != self.state:
            self.trace.add_transition(
                Transition("stream", self.state, after, self.trace.event_count, self.frame)
            )
            self.state = after

    def _block(self, block: BlockBuffer, trigger: str) -> None:
        after = next_state(BLOCK_TRANSITIONS, block.id, block.state, trigger)
        # The event that caused it was just emitted (none for an abort).
        caused_by = self.trace.event_count - 1
        self.trace.add_transition(Transition(block.id, block.state, after, caused_by, self.frame))
        if trigger == "start":
            if self.history:
                block.events.append(caused_by)
            self.trace.block_opened(block.index, block.events)
        elif trigger == "stop" and self.history:
            block.events.append(caused_by)
        block.state = after


_HANDLERS: Final[dict[type, Any]] = {
    Start: StreamMachine._start,
    OpenBlock: StreamMachine._open,
    Delta: StreamMachine._delta,
    CloseBlock: StreamMachine._close,
    Finish: StreamMachine._finish,
    Fail: StreamMachine._fail,
    Heartbeat: StreamMachine._heartbeat,
    Ignore: StreamMachine._ignore,
}
