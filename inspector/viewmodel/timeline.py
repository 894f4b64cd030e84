"""Stream and block states as of any event count: bisects and checkpoints.

Every transition names the event that caused it, and transitions arrive in
event order, so "the state after ``k`` events" is a bisect:

* the stream's state is the ``after`` of the last stream transition whose
  event is ``< k``;
* the set of open blocks is a *checkpoint* — the open set taken every
  :data:`CHECKPOINT_EVERY` events — plus the few block transitions between
  that checkpoint and ``k``. A block can stay open for the whole stream
  (parallel tool calls do), so no bounded look-back could answer this
  without them.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Final

from ..core.trace import Transition

__all__ = ["CHECKPOINT_EVERY", "StateTimeline"]

#: Events between two checkpoints of the set of open blocks.
CHECKPOINT_EVERY: Final = 256


class StateTimeline:
    """Transitions in arrival order, queryable as of any event count."""

    def __init__(self) -> None:
        self.stream_events = array("q")  # stream transitions: causing event
        self.stream_states: list[str] = []  # ... and the state after
        self.transition_events = array("q")  # every transition's event, in order
        self._block_events = array("q")  # block transitions: causing event
        self._block_changes: list[tuple[int, bool]] = []  # (block index, opened?)
        self._open: set[int] = set()
        self._checkpoints: list[tuple[int, ...]] = []  # the open set before event c*K

    def add(self, transition: Transition, block: int | None) -> None:
        """Record one transition; ``block`` is its block's index (None: the stream)."""
        self.transition_events.append(transition.event)
        if transition.subject == "stream":
            self.stream_events.append(transition.event)
            self.stream_states.append(transition.after)
            return
        if block is None:
            return
        # Take every checkpoint this transition's event has reached before
        # applying it: checkpoint c is the open set before event c*K.
        every = CHECKPOINT_EVERY
        while len(self._checkpoints) * every <= transition.event:
            self._checkpoints.append(tuple(sorted(self._open)))
        opened = transition.after == "open"
        if opened:
            self._open.add(block)
        elif transition.after == "closed":
            self._open.discard(block)
        self._block_events.append(transition.event)
        self._block_changes.append((block, opened))

    def stream_state_at(self, k: int) -> str:
        """The stream's state once the first ``k`` events were emitted."""
        j = bisect_left(self.stream_events, k)
        return self.stream_states[j - 1] if j else "idle"

    def transitions_at(self, k: int) -> int:
        """How many transitions happened by ``k`` events."""
        return bisect_left(self.transition_events, k)

    def open_at(self, k: int) -> set[int]:
        """Block indices open after ``k`` events, from the nearest checkpoint."""
        c = min(k // CHECKPOINT_EVERY, len(self._checkpoints) - 1)
        current: set[int] = set(self._checkpoints[c]) if c >= 0 else set()
        lo = bisect_left(self._block_events, max(c, 0) * CHECKPOINT_EVERY)
        hi = bisect_left(self._block_events, k)
        for block, opened in self._block_changes[lo:hi]:
            if opened:
                current.add(block)
            else:
                current.discard(block)
        return current
