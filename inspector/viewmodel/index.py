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
  transitions between that checkpoint and ``k`` (:mod:`.timeline`);
* errors, violations and ignored frames are sorted by where they happen, so
  "the next one after the cursor" is a bisect too (:mod:`.problems`);
  :attr:`TraceIndex.frame_marks` says which frames carry an error, a
  violation or a refusal, for the Frames pane's marks.

A raw SSE body (``.sse``, ``curl -N`` output) has no timing: it has no
capture header and every frame sits at time 0. :attr:`TraceIndex.timed` is
False then (it turns True as soon as a frame has a time), and every time the
index hands out (:meth:`~TraceIndex.frame_time`, :meth:`~TraceIndex.frame_gap`,
:meth:`~TraceIndex.time_to_first_content`, :attr:`~TraceIndex.max_gap_or_none`)
is ``None``, shown as ``—``, never as a fake ``0 ms``.

So stepping costs the same on a 100-frame capture as on a 100,000-frame
one, and stepping back never replays anything. :meth:`TraceIndex.sync` reads
only what was appended since the last call, which is how a live trace that
grows while it is shown stays cheap. The index never writes to the trace.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..core.choices import key_of
from ..core.invariants import check_invariants
from ..core.trace import Trace
from .buffers import BlockInfo
from .labels import frame_label
from .problems import Problems, ViolationInfo
from .timeline import CHECKPOINT_EVERY, StateTimeline

__all__ = ["CHECKPOINT_EVERY", "LONG_GAP", "BlockInfo", "TraceIndex", "ViolationInfo"]

#: Gaps between frames from this long (seconds) are called out in the Frames pane.
LONG_GAP: Final = 0.25

#: What a frame can be marked for, strongest first (one mark per frame).
MARK_ORDER: Final = ("error", "violation", "refusal")

#: Block kinds and finish reasons that make a frame a refusal.
_REFUSAL_REASONS: Final = frozenset({"refusal", "content_filter"})


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
        #: The choice numbers blocks carried (empty for a stream of one choice).
        self.choices: set[int] = set()
        self.block_order: list[int] = []  # block indices in the order they started
        self.block_starts = array("q")  # their start events, same order (sorted)
        self._block_by_id: dict[str, int] = {}
        self.states = StateTimeline()
        self.problems = Problems()
        self.heartbeat_frames: set[int] = set()
        # Per opaque block: whether its last JSON delta was a whole document.
        self._whole_json: dict[int, bool] = {}
        self.first_content_event: int | None = None
        self.max_gap = 0.0
        self.max_gap_frame: int | None = None
        self.any_frame_id = False
        self.output_checked = False
        #: Frames that carry an ``error``, a ``violation`` or a ``refusal`` (see MARK_ORDER).
        self.frame_marks: dict[int, str] = {}
        #: False for a raw SSE body (no header, every frame at 0) and for a capture
        #: whose header says ``"timed": false`` (imported from a VCR cassette or a
        #: HAR file, which keep no timing): no time is shown.
        self.timed = trace.header is not None and trace.header.get("timed") is not False
        # Without a header nothing says either way: the first frame with a time decides.
        self._timed_by_frames = trace.header is None
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
            if time and not self.timed and self._timed_by_frames:
                self.timed = True
                self.version += 1  # rows drawn with "—" must be drawn again
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
                self.problems.add_error(i)
                self._mark(trace.frame_of_event(i), "error")
            elif kind == "stream.done":
                if events[i].get("finish_reason") in _REFUSAL_REASONS:
                    self._mark(trace.frame_of_event(i), "refusal")
            elif kind == "stream.heartbeat":
                frame = trace.frame_of_event(i)
                if frame >= 0:
                    self.heartbeat_frames.add(frame)
        self.n_events = total

    def _on_block_start(self, i: int, event: dict[str, Any]) -> None:
        ref = event.get("block") or {}
        index = block_key(ref)
        if index is None or index in self.blocks:
            return
        choice = ref.get("choice") if "choice" in ref else None
        block_id = str(ref.get("id", f"b_{index}"))
        if choice is not None:
            self.choices.add(choice)
        self.blocks[index] = BlockInfo(
            index=index,
            id=block_id,
            choice=choice,
            kind=str(ref.get("kind", "?")),
            provider_type=str(event.get("provider_type") or ""),
            name=event.get("name"),
            call_id=event.get("call_id"),
            start_event=i,
        )
        self.blocks[index].events.append(i)
        if self.blocks[index].kind == "refusal":
            self._mark(self.trace.frame_of_event(i), "refusal")
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
            if block.kind == "opaque" and kind == "json_text":
                # An opaque block's delta may be a whole JSON document (the provider's
                # own delta object): what follows one starts a line of its own, not
                # glued to it. Fragments of one document (a tool input's JSON) join.
                if self._whole_json.get(block.index):
                    text = "\n" + text
                self._whole_json[block.index] = _is_json_document(text.lstrip("\n"))
            block.text.add(i, text)
            if self.first_content_event is None:
                self.first_content_event = i

    def _mark(self, frame: int, why: str) -> None:
        # The strongest reason wins; frames are only ever marked, never unmarked.
        if frame < 0:
            return
        current = self.frame_marks.get(frame)
        if current is None or MARK_ORDER.index(why) < MARK_ORDER.index(current):
            self.frame_marks[frame] = why
            self.version += 1

    def _block_of(self, event: dict[str, Any]) -> BlockInfo | None:
        index = block_key(event.get("block") or {})
        return None if index is None else self.blocks.get(index)

    def _sync_transitions(self, trace: Trace) -> None:
        transitions = trace.transitions
        total = len(transitions)
        for i in range(self._n_transitions, total):
            t = transitions[i]
            index = None if t.subject == "stream" else self._block_by_id.get(t.subject)
            self.states.add(t, index)
            if index is not None and t.after == "closed":
                self.blocks[index].close_event = t.event
        self._n_transitions = total

    def _sync_violations(self, trace: Trace) -> None:
        violations = trace.violations
        total = len(violations)
        for i in range(self._n_violations, total):
            v = violations[i]
            self.problems.add_violation(
                ViolationInfo(v.rule, v.message, v.frame, v.event, v.source)
            )
            self._mark(v.frame, "violation")
        if total != self._n_violations:
            self.version += 1
        self._n_violations = total

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
            self.problems.add_violation(info)
            self._mark(info.frame, "violation")
        self.version += 1

    def _sync_ignored(self, trace: Trace) -> None:
        ignored = trace.ignored
        total = len(ignored)
        for i in range(self._n_ignored, total):
            self.problems.add_ignored(ignored[i])
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
        return self.states.stream_state_at(k)

    def transitions_at(self, k: int) -> int:
        """How many transitions happened by ``k`` events (a prefix of the list)."""
        return self.states.transitions_at(k)

    def blocks_at(self, k: int) -> int:
        """How many blocks have started by ``k`` events (a prefix of ``block_order``)."""
        return bisect_left(self.block_starts, k)

    def open_blocks_at(self, k: int) -> list[int]:
        """Indices of the blocks open after ``k`` events, oldest first."""
        return sorted(self.states.open_at(k), key=lambda i: self.blocks[i].start_event)

    # -- frames ---------------------------------------------------------------

    def frame_label(self, frame: int) -> str:
        """The frame's label for the Frames pane and breakpoints (cached)."""
        label = self._labels.get(frame)
        if label is None:
            label = self._labels[frame] = frame_label(self.trace.frames[frame])
        return label

    def frame_time(self, frame: int) -> float | None:
        """Seconds from the request to the frame (None when the trace is untimed)."""
        return self.trace.frames.time_of(frame) if self.timed else None

    def frame_gap(self, frame: int) -> float | None:
        """Seconds since the previous frame (None for the first, or untimed)."""
        if frame <= 0 or not self.timed:
            return None
        time_of = self.trace.frames.time_of
        return time_of(frame) - time_of(frame - 1)

    @property
    def max_gap_or_none(self) -> float | None:
        """The longest gap between two frames (None when untimed or with no two frames)."""
        return self.max_gap if self.timed and self.n_frames >= 2 else None

    def time_to_first_content(self) -> float | None:
        """Seconds until the frame that carried the first content delta (None: untimed)."""
        if self.first_content_event is None or not self.timed:
            return None
        frame = self.trace.frame_of_event(self.first_content_event)
        return self.trace.frames.time_of(frame) if frame >= 0 else None

    def block_at_order(self, order: int) -> BlockInfo:
        """The ``order``-th block to start."""
        return self.blocks[self.block_order[order]]

    def block_of_event(self, event: int) -> BlockInfo | None:
        """The block an event belongs to, if it is a block event."""
        ref = self.trace.events[event].get("block")
        index = block_key(ref) if isinstance(ref, dict) else None
        return None if index is None else self.blocks.get(index)

    @property
    def several_choices(self) -> bool:
        """True when blocks of more than one choice started (``n > 1``; contract v1.1)."""
        return len(self.choices) > 1


def block_key(ref: Mapping[str, Any]) -> int | None:
    """The int the core names a block by (:func:`~inspector.core.choices.key_of`: its
    ``index``, with its choice above it); None for a ref that names no block."""
    key = key_of(ref)
    return key if type(key) is int and 0 <= key < 1 << 64 else None


def _is_json_document(text: str) -> bool:
    """Whether ``text`` is one whole JSON object (not a fragment of one)."""
    if not (text.startswith("{") and text.endswith("}")):
        return False
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True
