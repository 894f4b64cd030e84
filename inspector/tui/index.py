"""Read-side indexes over a :class:`Trace`, so any cursor position is a bisect.

Theory of operation
-------------------
The TUI shows everything *as of a cursor*: a frame position ``p`` (``-1`` is
"before the first frame", ``len(frames)`` the end of the bytes). That
position fixes ``k``, the number of events that exist by then
(``Trace.events_until_frame``); everything else follows from ``k``:

* the stream state is the ``after`` of the last stream transition whose
  event is ``< k`` — a bisect over the stream transitions;
* a block exists when its ``block.start`` is ``< k`` and is open until the
  event that closed it (``block.stop``, or the ``stream.error`` that aborted
  it) is ``< k``;
* a block's text as of ``k`` is a prefix of its whole text, whose length is
  a bisect over the cumulative lengths recorded at each delta;
* which blocks are open at ``k`` comes from a checkpoint of the open set
  taken every :data:`CHECKPOINT_EVERY` events, plus the few block
  transitions between that checkpoint and ``k``.

So stepping costs the same on a 100-frame capture as on a 100,000-frame
one, and stepping back never replays anything. :meth:`TraceIndex.sync` reads
only what was appended since the last call, which is how a live trace that
grows while it is shown stays cheap. The index never writes to the trace.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..core.invariants import check_invariants
from ..core.trace import Ignored, Trace

__all__ = ["CHECKPOINT_EVERY", "BlockInfo", "PrefixText", "TraceIndex", "ViolationInfo"]

#: Events between two checkpoints of the set of open blocks.
CHECKPOINT_EVERY: Final = 256

#: Gaps between frames from this long (seconds) are called out in the Frames pane.
LONG_GAP: Final = 0.25


class PrefixText:
    """Text assembled from fragments, readable as of any event count.

    ``ends[j]`` is the total length after fragment ``j`` and ``events[j]`` the
    event that carried it; the text as of ``k`` events is a prefix of the
    whole, found with one bisect. Fragments are joined lazily, once.
    """

    __slots__ = ("_joined", "_pending", "ends", "events")

    def __init__(self) -> None:
        self.ends = array("q")
        self.events = array("q")
        self._joined = ""
        self._pending: list[str] = []

    def add(self, event: int, text: str) -> None:
        """Record one fragment carried by event ``event``."""
        self.ends.append((self.ends[-1] if self.ends else 0) + len(text))
        self.events.append(event)
        self._pending.append(text)

    def count_at(self, k: int) -> int:
        """Fragments received among the first ``k`` events."""
        return bisect_left(self.events, k)

    def length_at(self, k: int) -> int:
        """Characters received among the first ``k`` events."""
        j = bisect_left(self.events, k)
        return self.ends[j - 1] if j else 0

    def text_at(self, k: int, tail: int | None = None) -> tuple[str, int]:
        """(text as of ``k`` events, characters left out before it).

        With ``tail`` only the last ``tail`` characters are returned, so a
        block of megabytes still renders in constant time.
        """
        length = self.length_at(k)
        if self._pending:
            self._joined += "".join(self._pending)
            self._pending.clear()
        start = 0 if tail is None else max(0, length - tail)
        return self._joined[start:length], start


@dataclass(slots=True)
class BlockInfo:
    """One block as the index knows it (content readable at any event count)."""

    index: int
    id: str
    kind: str
    provider_type: str
    name: str | None
    call_id: str | None
    start_event: int
    close_event: int | None = None  # block.stop, or the stream.error that aborted it
    stopped: bool = False  # closed by block.stop (not aborted)
    events: array[int] = field(default_factory=lambda: array("q"))
    text: PrefixText = field(default_factory=PrefixText)
    signature: PrefixText = field(default_factory=PrefixText)
    citations: array[int] = field(default_factory=lambda: array("q"))
    parsed: tuple[bool, str | None] | None = None  # (valid, error) once closed

    def state_at(self, k: int) -> str:
        """``new`` / ``open`` / ``closed`` as of ``k`` events."""
        if self.start_event >= k:
            return "new"
        if self.close_event is not None and self.close_event < k:
            return "closed"
        return "open"

    def aborted_at(self, k: int) -> bool:
        """True when the block was closed by the stream ending, not by block.stop."""
        return self.state_at(k) == "closed" and not self.stopped

    def events_at(self, k: int) -> int:
        """How many of the events that built this block exist among the first ``k``."""
        return bisect_left(self.events, k)

    def arguments_check(self) -> tuple[bool, str | None]:
        """Parse the whole content as JSON (only ever asked once the block closed)."""
        if self.parsed is None:
            raw, _ = self.text.text_at(1 << 62)
            if not raw.strip():
                self.parsed = (True, None)  # no parameters: providers send ""
            else:
                try:
                    orjson.loads(raw)
                    self.parsed = (True, None)
                except orjson.JSONDecodeError as exc:
                    self.parsed = (False, str(exc))
        return self.parsed


@dataclass(frozen=True, slots=True)
class ViolationInfo:
    """A broken rule, placed on the timeline.

    ``source`` is ``provider`` (the machine refused the provider's stream) or
    ``output`` (the independent checker found our own output broken).
    ``event`` is the event it is attached to (-1: the stream as a whole).
    """

    rule: int
    message: str
    frame: int
    event: int
    source: str


class TraceIndex:
    """Incremental indexes over one trace; see the module docstring."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.n_frames = 0
        self.n_events = 0
        self._n_transitions = 0
        self._n_violations = 0
        self._n_ignored = 0
        self.version = 0  # bumped whenever something already shown may change look
        self.blocks: dict[int, BlockInfo] = {}
        self.block_order: list[int] = []  # block indices in the order they started
        self.block_starts = array("q")  # their start events, same order (sorted)
        self._block_by_id: dict[str, int] = {}
        self.stream_events = array("q")  # stream transitions: causing event
        self.stream_states: list[str] = []  # ... and the state after
        self.transition_events = array("q")  # every transition's event, in order
        self._block_tr_events = array("q")
        self._block_tr: list[tuple[int, bool]] = []  # (block index, opened?)
        self._open: set[int] = set()
        self._checkpoints: list[tuple[int, ...]] = []  # open set before event c*K
        self.violations: list[ViolationInfo] = []
        self.problem_events = array("q")  # stream.error events and violation events
        self.ignored: dict[int, Ignored] = {}
        self._ignored_frames = array("q")  # sorted frame indices of ``ignored``
        self.heartbeat_frames: set[int] = set()
        self.first_content_event: int | None = None
        self.max_gap = 0.0
        self.max_gap_frame: int | None = None
        self.any_frame_id = False
        self.output_checked = False
        self._labels: dict[int, str] = {}
        self.sync()

    # -- keeping up with the trace ----------------------------------------

    def sync(self) -> bool:
        """Index whatever was appended to the trace since the last call."""
        trace = self.trace
        before = (self.n_frames, self.n_events, self._n_transitions, self._n_ignored)
        self._sync_frames(trace)
        self._sync_events(trace)
        self._sync_transitions(trace)
        self._sync_violations(trace)
        self._sync_ignored(trace)
        after = (self.n_frames, self.n_events, self._n_transitions, self._n_ignored)
        return before != after

    @property
    def finished(self) -> bool:
        """True once the stream ended (terminal event or transport end recorded)."""
        trace = self.trace
        return trace.transport_end is not None or trace.terminal_event is not None

    def _sync_frames(self, trace: Trace) -> None:
        frames = trace.frames
        total = len(frames)
        time_of = frames.time_of  # a frame's time without decoding the frame
        previous = time_of(self.n_frames - 1) if self.n_frames else None
        for i in range(self.n_frames, total):
            time = time_of(i)
            if previous is not None and time - previous > self.max_gap:
                self.max_gap = time - previous
                self.max_gap_frame = i
            previous = time
        if total > self.n_frames and not self.any_frame_id:
            # The last-event-ID persists from frame to frame, so a stream that
            # uses ids shows one on its newest frame.
            self.any_frame_id = bool(frames[total - 1].id)
        self.n_frames = total

    def _sync_events(self, trace: Trace) -> None:
        events = trace.events
        type_of = events.type_of  # the type without building the event
        total = len(events)
        for i in range(self.n_events, total):
            kind = type_of(i)
            if kind == "block.delta":
                self._on_delta(i, events[i])
            elif kind == "block.start":
                self._on_block_start(i, events[i])
            elif kind == "block.stop":
                block = self._block_of(events[i])
                if block is not None:
                    block.events.append(i)
                    block.stopped = True
            elif kind == "stream.error":
                self.problem_events.append(i)
            elif kind == "stream.heartbeat":
                frame = trace.frame_of_event(i)
                if frame >= 0:
                    self.heartbeat_frames.add(frame)
        self.n_events = total

    def _on_block_start(self, i: int, event: dict[str, Any]) -> None:
        ref = event.get("block") or {}
        index = ref.get("index")
        if not isinstance(index, int) or index in self.blocks:
            return
        block_id = str(ref.get("id", f"b_{index}"))
        self.blocks[index] = BlockInfo(
            index=index,
            id=block_id,
            kind=str(ref.get("kind", "?")),
            provider_type=str(event.get("provider_type") or ""),
            name=event.get("name"),
            call_id=event.get("call_id"),
            start_event=i,
        )
        self.blocks[index].events.append(i)
        self._block_by_id[block_id] = index
        self.block_order.append(index)
        self.block_starts.append(i)

    def _on_delta(self, i: int, event: dict[str, Any]) -> None:
        block = self._block_of(event)
        if block is None:
            return
        block.events.append(i)
        delta = event.get("delta") or {}
        kind = delta.get("kind")
        text = delta.get("text") or ""
        if kind == "signature":
            block.signature.add(i, text)
        elif kind == "citation":
            block.citations.append(i)
        else:
            block.text.add(i, text)
            if self.first_content_event is None:
                self.first_content_event = i

    def _block_of(self, event: dict[str, Any]) -> BlockInfo | None:
        ref = event.get("block") or {}
        index = ref.get("index")
        return self.blocks.get(index) if isinstance(index, int) else None

    def _sync_transitions(self, trace: Trace) -> None:
        transitions = trace.transitions
        total = len(transitions)
        k_every = CHECKPOINT_EVERY
        for i in range(self._n_transitions, total):
            t = transitions[i]
            self.transition_events.append(t.event)
            if t.subject == "stream":
                self.stream_events.append(t.event)
                self.stream_states.append(t.after)
                continue
            index = self._block_by_id.get(t.subject)
            if index is None:
                continue
            # Checkpoints hold the open set before event c*K: take every one
            # this transition's event has reached before applying it.
            while len(self._checkpoints) * k_every <= t.event:
                self._checkpoints.append(tuple(sorted(self._open)))
            opened = t.after == "open"
            if opened:
                self._open.add(index)
            elif t.after == "closed":
                self._open.discard(index)
                self.blocks[index].close_event = t.event
            self._block_tr_events.append(t.event)
            self._block_tr.append((index, opened))
        self._n_transitions = total

    def _sync_violations(self, trace: Trace) -> None:
        violations = trace.violations
        total = len(violations)
        if total == self._n_violations:
            return
        for i in range(self._n_violations, total):
            v = violations[i]
            self._add_violation(ViolationInfo(v.rule, v.message, v.frame, v.event, v.source))
        self._n_violations = total

    def _add_violation(self, info: ViolationInfo) -> None:
        self.violations.append(info)
        self.violations.sort(key=lambda v: (v.event if v.event >= 0 else 1 << 62, v.rule))
        if info.event >= 0:
            position = bisect_right(self.problem_events, info.event)
            self.problem_events.insert(position, info.event)
        self.version += 1

    def check_output(self) -> list[ViolationInfo]:
        """Run the independent checker over the emitted events (once the stream ended).

        It reads only the events — a broken invariant here is a bug in this
        tool, shown beside the provider's. Pure reading, so the screen runs
        it in a thread on a finished trace and hands the result to
        :meth:`add_output_violations`.
        """
        trace = self.trace
        found = []
        for rule, event, message in check_invariants(trace.events):
            frame = trace.frame_of_event(event) if 0 <= event < len(trace.events) else -1
            found.append(ViolationInfo(rule, message, frame, event, "output"))
        return found

    def add_output_violations(self, found: list[ViolationInfo]) -> None:
        """Record what :meth:`check_output` found."""
        self.output_checked = True
        for info in found:
            self._add_violation(info)
        self.version += 1

    def _sync_ignored(self, trace: Trace) -> None:
        ignored = trace.ignored
        total = len(ignored)
        for i in range(self._n_ignored, total):
            entry = ignored[i]
            if entry.frame not in self.ignored:
                self.ignored[entry.frame] = entry
                self._ignored_frames.insert(
                    bisect_right(self._ignored_frames, entry.frame), entry.frame
                )
        if total != self._n_ignored:
            self.version += 1
        self._n_ignored = total

    # -- positions ---------------------------------------------------------

    @property
    def has_end(self) -> bool:
        """Whether the timeline has an end position after the last frame."""
        if self.trace.transport_end is not None:
            return True
        return self.n_events > self.events_at(self.n_frames - 1)

    @property
    def last_position(self) -> int:
        """The largest valid cursor position (the end row when there is one)."""
        return self.n_frames if self.has_end else self.n_frames - 1

    def events_at(self, position: int) -> int:
        """How many events exist at cursor ``position`` (``k``)."""
        if position >= self.n_frames:
            return self.n_events
        if position < 0 and self.n_frames == 0:
            return 0
        return min(self.trace.events_until_frame(position), self.n_events)

    def position_of_event(self, event: int) -> int:
        """The cursor position at which event ``event`` first exists."""
        frame = self.trace.frame_of_event(event)
        if frame >= 0:
            return frame
        if self.n_frames and event < self.events_at(-1):
            return -1
        return self.n_frames

    # -- state as of k events ----------------------------------------------

    def stream_state_at(self, k: int) -> str:
        """The stream's state once the first ``k`` events were emitted."""
        j = bisect_left(self.stream_events, k)
        return self.stream_states[j - 1] if j else "idle"

    def transitions_at(self, k: int) -> int:
        """How many transitions happened by ``k`` events (a prefix of the list)."""
        return bisect_left(self.transition_events, k)

    def blocks_at(self, k: int) -> int:
        """How many blocks have started by ``k`` events (a prefix of ``block_order``)."""
        return bisect_left(self.block_starts, k)

    def open_blocks_at(self, k: int) -> list[int]:
        """Indices of the blocks open after ``k`` events, from the nearest checkpoint."""
        c = min(k // CHECKPOINT_EVERY, len(self._checkpoints) - 1)
        current: set[int] = set(self._checkpoints[c]) if c >= 0 else set()
        c = max(c, 0)
        lo = bisect_left(self._block_tr_events, c * CHECKPOINT_EVERY)
        hi = bisect_left(self._block_tr_events, k)
        for index, opened in self._block_tr[lo:hi] if hi - lo else ():
            if opened:
                current.add(index)
            else:
                current.discard(index)
        return sorted(current, key=lambda i: self.blocks[i].start_event)

    def violations_at(self, k: int, ended: bool) -> list[ViolationInfo]:
        """Violations whose event exists by ``k`` (stream-wide ones once ``ended``)."""
        return [v for v in self.violations if (v.event < k if v.event >= 0 else ended)]

    def ignored_at(self, position: int) -> int:
        """How many frames up to ``position`` produced nothing (ignored)."""
        return bisect_right(self._ignored_frames, position)

    def next_problem_event(self, k: int) -> int | None:
        """The first error or violation event not yet emitted at ``k`` events."""
        j = bisect_left(self.problem_events, k)
        return self.problem_events[j] if j < len(self.problem_events) else None

    # -- frames ---------------------------------------------------------------

    def frame_label(self, frame: int) -> str:
        """A frame's event name; for data-only protocols the JSON ``type``.

        OpenAI Chat and Gemini send every frame as the default ``message``
        event, which says nothing; their data's ``type`` (when there is one),
        ``[DONE]`` or ``: comment`` does.
        """
        label = self._labels.get(frame)
        if label is not None:
            return label
        f = self.trace.frames[frame]
        if f.comment is not None:
            label = ": comment"
        elif f.event != "message":
            label = f.event
        elif f.data.strip() == "[DONE]":
            label = "[DONE]"
        else:
            label = "message"
            head = f.data.lstrip()[:1]
            if head == "{" and '"type"' in f.data:
                try:
                    value = orjson.loads(f.data)
                except orjson.JSONDecodeError:
                    value = None
                if isinstance(value, dict) and isinstance(value.get("type"), str):
                    label = value["type"]
        self._labels[frame] = label
        return label

    def frame_gap(self, frame: int) -> float | None:
        """Seconds since the previous frame (None for the first)."""
        if frame <= 0:
            return None
        time_of = self.trace.frames.time_of
        return time_of(frame) - time_of(frame - 1)

    def time_to_first_content(self) -> float | None:
        """Seconds until the frame that carried the first content delta."""
        if self.first_content_event is None:
            return None
        frame = self.trace.frame_of_event(self.first_content_event)
        return self.trace.frames.time_of(frame) if frame >= 0 else None

    def block_at_order(self, order: int) -> BlockInfo:
        """The ``order``-th block to start."""
        return self.blocks[self.block_order[order]]

    def block_of_event(self, event: int) -> BlockInfo | None:
        """The block an event belongs to, if it is a block event."""
        ref = self.trace.events[event].get("block")
        if isinstance(ref, dict) and isinstance(ref.get("index"), int):
            return self.blocks.get(ref["index"])
        return None
