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

from collections.abc import Callable, Sequence
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
from .errors import error_object
from .trace import Ignored, IntColumn, Trace, Transition, TransportEnd, Violation

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
    state: str = "new"
    parts: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)
    ref: dict[str, Any] = field(default_factory=dict)
    #: Indices of this block's events: the same column as ``trace.block_events[index]``.
    events: IntColumn = field(default_factory=IntColumn)

    @property
    def id(self) -> str:
        """The contract's stable block id."""
        return f"b_{self.index}"

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
    """Applies adapter actions to one stream, writing events into a trace."""

    def __init__(self, trace: Trace, provider: str) -> None:
        self.trace = trace
        self.provider = provider
        #: The framing when not SSE, which ``stream.start`` then carries (contract v1.1).
        self.framing: str | None = None
        self.state = "idle"
        self.blocks: dict[int, BlockBuffer] = {}
        self.open_blocks: dict[int, BlockBuffer] = {}
        self.frame = -1
        #: Makes each block's buffer (``BlockBuffer``'s arguments); a bounded trace's
        #: keeps no content (see :func:`inspector.core.bounded.bound_machine`).
        self.new_block: Callable[..., BlockBuffer] = BlockBuffer

    @property
    def terminal(self) -> bool:
        """True once ``stream.done`` or ``stream.error`` was emitted."""
        return self.state in TERMINAL_STATES

    # -- the entry points --------------------------------------------------

    def apply(self, action: Action, frame: int = -1) -> None:
        """Apply one action caused by frame ``frame`` (-1: no frame)."""
        self.frame = frame
        if self.state in TERMINAL_STATES:
            self.trace.ignored.append(
                Ignored(frame, "arrived after the terminal event", "after_terminal")
            )
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
        count = len(texts)
        self.frame = frame
        if self.state == "open":
            self._stream("content")
        (block.signature if kind == "signature" else block.parts).extend(texts)
        trace = self.trace
        first = trace.events.extend_deltas(block.ref, kind, texts)
        # (an array extends another of its type with one copy)
        events = trace.indices(first, count)
        block.events.extend(events)
        trace.event_frame.extend(trace.indices(frame, count))
        self.frame = frame + count - 1
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
            names = ", ".join(f"b_{b.index} {b.kind}" for b in self.open_blocks.values())
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
        if action.model is not None:
            event["model"] = action.model
        self._emit("stream.start", event)

    def _open(self, action: OpenBlock) -> None:
        self._ensure_started()
        if action.index in self.blocks:
            self._reject(2, f"block {action.index} was opened a second time")
            return
        if action.kind not in BLOCK_KINDS:
            self._reject(2, f"unknown block kind {action.kind!r}")
            return
        block = self.new_block(
            action.index, action.kind, action.provider_type, action.name, action.call_id
        )
        block.ref = {"id": block.id, "index": block.index, "kind": block.kind}
        self.blocks[block.index] = block
        self.open_blocks[block.index] = block
        self._content()
        event: Event = {"block": block.ref}
        if block.kind == "tool_call":
            event["name"] = block.name
            event["call_id"] = block.call_id
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
                self._reject(2, f"unknown delta kind {kind!r} for b_{action.index}")
            return
        if self.state == "open":
            self._stream("content")
        text = action.text
        if kind == "citation":
            block.citations.append(action.citation)
            delta = {"kind": kind, "text": text, "citation": action.citation}
            self._emit("block.delta", {"block": block.ref, "delta": delta})
            block.events.append(len(self.trace.event_frame) - 1)
            return
        if kind == "signature":
            block.signature.append(text)
        else:
            block.parts.append(text)
        trace = self.trace
        # Stored compactly: the event keeps the very str the block buffer holds.
        block.events.append(trace.events.append_delta(block.ref, kind, text))
        trace.event_frame.append(self.frame)

    def _close(self, action: CloseBlock) -> None:
        self._ensure_started()
        block = self.open_blocks.get(action.index)
        if block is None:
            self._reject(2, self._not_open(action.index, "a block stop"))
            return
        if block.kind == "tool_call":
            _, problem = parse_arguments(block.text)
            if problem is not None:
                self._fail(
                    Fail(
                        "protocol_error",
                        None,
                        f"tool call b_{block.index} ({block.name}) arguments are not valid "
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
            names = ", ".join(f"b_{b.index} {b.kind}" for b in self.open_blocks.values())
            self._reject(
                5,
                f"final signal {action.provider_finish_reason!r} arrived while a block is "
                f"still open ({names}); its content is incomplete",
                provider_code=action.provider_finish_reason,
            )
            return
        self._stream("done")
        self._emit(
            "stream.done",
            {
                "status": "completed",
                "finish_reason": action.finish_reason,
                "provider_finish_reason": action.provider_finish_reason,
                "usage": action.usage,
                "model": action.model,
                "response_id": action.response_id,
            },
        )

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
        self.trace.ignored.append(Ignored(self.frame, action.reason, action.code))
        if self.state == "idle":
            return
        self._emit("stream.warning", {"code": action.code, "message": action.reason})

    # -- helpers -----------------------------------------------------------

    def _ensure_started(self) -> None:
        if self.state == "idle":
            self._start(Start(None))

    def _not_open(self, index: int, what: str) -> str:
        if index in self.blocks:
            return f"{what} arrived for b_{index}, which is already closed"
        return f"{what} arrived for b_{index}, which was never opened"

    def _reject(self, rule: int, message: str, provider_code: Any = None) -> None:
        self.trace.violations.append(
            Violation(rule, message, self.frame, len(self.trace.events), "provider")
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
        event: Event = {"stream_id": trace.stream_id, "seq": len(trace.events) + 1, "type": type_}
        event.update(fields)
        trace.events.append(event)
        trace.event_frame.append(self.frame)

    def _stream(self, trigger: str) -> None:
        after = next_state(STREAM_TRANSITIONS, "stream", self.state, trigger)
        if after != self.state:
            self.trace.transitions.append(
                Transition("stream", self.state, after, len(self.trace.events), self.frame)
            )
            self.state = after

    def _block(self, block: BlockBuffer, trigger: str) -> None:
        after = next_state(BLOCK_TRANSITIONS, block.id, block.state, trigger)
        # The event that caused it was just emitted (none for an abort).
        caused_by = len(self.trace.events) - 1
        self.trace.transitions.append(
            Transition(block.id, block.state, after, caused_by, self.frame)
        )
        if trigger == "start":
            block.events.append(caused_by)
            self.trace.block_events[block.index] = block.events
        elif trigger == "stop":
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
