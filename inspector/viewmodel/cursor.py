"""The one cursor every pane follows, and the moves the keys make.

The cursor is a *position* on the timeline: ``-1`` before the first frame,
``0 … n-1`` a frame, ``n`` the end of the bytes (when the trace has one).
Within the events that exist at that position one event is *selected* —
by default the newest, so stepping frame by frame always shows what the
last frame produced. Choosing an event moves the position to its frame.

Every pane shows the stream *as of the selected event* (:attr:`Cursor.k`):
one frame may produce several events (a Gemini frame can carry a whole
response), and ``]`` / ``[`` stop at each of them, so the blocks and states
shown are those after exactly that event, not after the whole frame.

Nothing here imports Textual: the screen calls these methods and repaints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .index import TraceIndex

__all__ = ["SPEEDS", "Breakpoint", "Cursor", "Player", "SearchHit"]

#: Playback speeds ``+`` and ``-`` step through.
SPEEDS: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)

#: Events whose text a search looks into.
_TEXT_EVENTS: Final = frozenset({"stream.start", "block.start", "block.delta", "stream.error"})

#: ``("frame", label)`` stops on frames with that label, ``("event", type)``
#: on frames that produced an event of that type.
Breakpoint = tuple[str, str]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """Where a search landed; ``wrapped`` when it went past the end to find it."""

    position: int
    wrapped: bool


class Cursor:
    """A position on the trace's timeline plus the selected event."""

    def __init__(self, index: TraceIndex, position: int = 0) -> None:
        self.index = index
        self.position = -1
        self.event: int | None = None
        #: Live mode: keep the cursor on the newest frame until the user moves.
        self.follow = False
        self.breakpoints: set[Breakpoint] = set()
        self.goto(position)

    # -- where we are -------------------------------------------------------

    @property
    def k(self) -> int:
        """How many events exist as of the selected event (what every pane shows)."""
        return self.event + 1 if self.event is not None else self.frame_k

    @property
    def frame_k(self) -> int:
        """How many events exist once the cursor's frame was processed (``k`` or more)."""
        return self.index.events_at(self.position)

    @property
    def at_end(self) -> bool:
        """True on the last position of the timeline."""
        return self.position >= self.index.last_position

    @property
    def on_end_row(self) -> bool:
        """True on the end-of-bytes position (after the last frame)."""
        return self.position >= self.index.n_frames

    @property
    def frame(self) -> int | None:
        """The selected frame, or None before the first / at the end of bytes."""
        return self.position if 0 <= self.position < self.index.n_frames else None

    # -- moves (each returns whether anything changed) ------------------------

    def goto(self, position: int) -> bool:
        """Move to ``position`` (clamped); the newest event there is selected."""
        position = max(-1, min(position, self.index.last_position))
        k = self.index.events_at(position)
        event = k - 1 if k else None
        changed = (position, event) != (self.position, self.event)
        self.position, self.event = position, event
        return changed

    def step(self, delta: int) -> bool:
        """Move ``delta`` frames forwards (negative: backwards)."""
        return self.goto(self.position + delta)

    def home(self) -> bool:
        """Before the first frame: nothing has happened yet."""
        return self.goto(-1)

    def end(self) -> bool:
        """The last position: the stream as it finally is."""
        return self.goto(self.index.last_position)

    def select_event(self, event: int) -> bool:
        """Select event ``event`` and move to the frame that produced it."""
        if not 0 <= event < self.index.n_events:
            return False
        position = self.index.position_of_event(event)
        changed = (position, event) != (self.position, self.event)
        self.position, self.event = position, event
        return changed

    def step_event(self, delta: int) -> bool:
        """Select the next (``delta > 0``) or previous normalized event."""
        if delta > 0:
            target = self.event + 1 if self.event is not None else self.frame_k
            return self.select_event(target) if target < self.index.n_events else False
        if self.event is None:
            return False
        if self.event == 0:
            return self.home()
        return self.select_event(self.event - 1)

    def next_problem(self) -> bool:
        """Jump to the next ``stream.error`` or violation after the selected event."""
        start = self.event + 1 if self.event is not None else 0
        target = self.index.problems.next_event(start)
        if target is not None:
            return self.select_event(target)
        # A stream-wide violation (exactly-one-terminal) lives at the end.
        if any(v.event < 0 for v in self.index.problems.violations) and not self.at_end:
            return self.end()
        return False

    # -- breakpoints ----------------------------------------------------------

    def frame_breakpoint(self) -> Breakpoint | None:
        """The breakpoint ``b`` toggles: the selected frame's label."""
        frame = self.frame
        return None if frame is None else ("frame", self.index.frame_label(frame))

    def toggle(self, breakpoint: Breakpoint) -> bool:
        """Set or clear a breakpoint; True when it is now set."""
        if breakpoint in self.breakpoints:
            self.breakpoints.discard(breakpoint)
            return False
        self.breakpoints.add(breakpoint)
        return True

    def hits_breakpoint(self, position: int) -> bool:
        """Whether frame ``position`` matches a breakpoint."""
        if not self.breakpoints or not 0 <= position < self.index.n_frames:
            return False
        if ("frame", self.index.frame_label(position)) in self.breakpoints:
            return True
        trace = self.index.trace
        return any(
            ("event", trace.events[e]["type"]) in self.breakpoints
            for e in trace.events_of_frame(position)
        )

    # -- search -----------------------------------------------------------------

    def search(self, query: str) -> SearchHit | None:
        """The next frame after the cursor whose bytes or event text contain ``query``.

        Matching ignores case and looks at the frame's bytes as received
        (event name, id, data, comment) and at the text of the events it
        produced (delta text, tool names, error messages), so text is found
        even where the wire escaped it. The search wraps around once.
        """
        needle = query.casefold()
        n = self.index.n_frames
        if not needle or not n:
            return None
        # An ASCII query can be matched against the wire bytes without decoding them.
        raw_needle = needle.encode() if needle.isascii() else None
        start = self.position + 1
        for offset in range(n):
            frame = (start + offset) % n
            if self._frame_matches(frame, needle, raw_needle):
                return SearchHit(frame, start + offset >= n)
        return None

    def _frame_matches(self, frame: int, needle: str, raw_needle: bytes | None) -> bool:
        trace = self.index.trace
        raw = trace.chunks.span(*trace.frames.span_of(frame))
        if raw_needle is not None:
            if raw_needle in raw.lower():
                return True
        elif needle in raw.decode("utf-8", "replace").casefold():
            return True
        type_of = trace.events.type_of
        for e in trace.events_of_frame(frame):
            if type_of(e) not in _TEXT_EVENTS:
                continue
            event = trace.events[e]
            words = [event.get("name"), event.get("call_id"), event.get("model")]
            delta = event.get("delta")
            if isinstance(delta, dict):
                words.append(delta.get("text"))
            error = event.get("error")
            if isinstance(error, dict):
                words.append(error.get("message"))
            if any(isinstance(w, str) and needle in w.casefold() for w in words):
                return True
        return False


class Player:
    """Plays the trace with its recorded timing: ``tick(now)`` moves the cursor.

    The play clock maps wall time to stream time: ``origin_t`` (the stream
    time of the cursor when play started or the speed changed) plus elapsed
    wall time times ``speed``. Each tick moves past every frame whose time
    has come, so any number of frames per second plays correctly at a
    steady repaint rate, and stops on the first frame that hits a
    breakpoint.
    """

    def __init__(self, cursor: Cursor, speed: float = 1.0) -> None:
        self.cursor = cursor
        self.speed = speed
        self.playing = False
        self.stopped_by: str | None = None  # "breakpoint" or "end" after a stop
        self.stopped_at: int | None = None  # the cursor's position when it stopped
        self._origin_t = 0.0
        self._origin_wall = 0.0

    def time_at(self, position: int) -> float:
        """Stream time (seconds since the request) at a cursor position."""
        index = self.cursor.index
        if position < 0 or not index.n_frames:
            return 0.0
        time_of = index.trace.frames.time_of
        if position >= index.n_frames:
            end = index.trace.transport_end
            last = time_of(index.n_frames - 1)
            return end.time if end is not None and end.time is not None else last
        return float(time_of(position))

    def start(self, now: float) -> None:
        """Start playing from the cursor (from the beginning when at the end)."""
        if self.cursor.at_end:
            self.cursor.home()
        self.playing = True
        self.stopped_by = None
        self._origin_t = self.time_at(self.cursor.position)
        self._origin_wall = now

    def stop(self, reason: str | None = None) -> None:
        """Pause."""
        self.playing = False
        self.stopped_by = reason
        self.stopped_at = self.cursor.position

    def stopped_here(self, reason: str) -> bool:
        """Whether play stopped for ``reason`` and the cursor is still where it stopped.

        Once the cursor moved the stop is forgotten: coming back is no new stop.
        """
        if self.stopped_at != self.cursor.position:
            self.stopped_by = None
        return self.stopped_by == reason

    def change_speed(self, steps: int, now: float) -> float:
        """Move ``steps`` along :data:`SPEEDS`, keeping the stream clock continuous."""
        if self.playing:
            self._origin_t = self._clock(now)
            self._origin_wall = now
        i = min(range(len(SPEEDS)), key=lambda j: abs(SPEEDS[j] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + steps))]
        return self.speed

    def _clock(self, now: float) -> float:
        return self._origin_t + (now - self._origin_wall) * self.speed

    def tick(self, now: float) -> bool:
        """Advance to the stream time of ``now``; True when the cursor moved."""
        if not self.playing:
            return False
        cursor = self.cursor
        target = self._clock(now)
        moved = False
        while not cursor.at_end and self.time_at(cursor.position + 1) <= target:
            cursor.goto(cursor.position + 1)
            moved = True
            if cursor.hits_breakpoint(cursor.position):
                self.stop("breakpoint")
                return True
        if cursor.at_end and cursor.index.finished:
            self.stop("end")
        return moved
