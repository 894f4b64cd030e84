"""Errors, violations and ignored frames, placed on the timeline.

Kept sorted by the event (or frame) they belong to, so the State pane can
list those that exist as of the cursor and ``e`` can find the next one with
a bisect.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from ..core.trace import Ignored

__all__ = ["Problems", "ViolationInfo"]


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


class Problems:
    """What went wrong in a stream, and where."""

    def __init__(self) -> None:
        self.violations: list[ViolationInfo] = []
        #: ``stream.error`` events and violation events, sorted: what ``e`` visits.
        self.events = array("q")
        #: Frames that produced nothing, by frame index.
        self.ignored: dict[int, Ignored] = {}
        self._ignored_frames = array("q")  # sorted keys of ``ignored``

    def add_error(self, event: int) -> None:
        """A ``stream.error`` (or a violation) at event ``event``; each event once."""
        j = bisect_left(self.events, event)
        if j == len(self.events) or self.events[j] != event:
            self.events.insert(j, event)

    def add_violation(self, info: ViolationInfo) -> None:
        """A violation (stream-wide ones, ``event == -1``, sort last)."""
        self.violations.append(info)
        self.violations.sort(key=lambda v: (v.event if v.event >= 0 else 1 << 62, v.rule))
        if info.event >= 0:
            self.add_error(info.event)

    def add_ignored(self, entry: Ignored) -> None:
        """A frame produced nothing (the first reason given for it is kept)."""
        if entry.frame not in self.ignored:
            self.ignored[entry.frame] = entry
            self._ignored_frames.insert(
                bisect_right(self._ignored_frames, entry.frame), entry.frame
            )

    def violations_at(self, k: int, ended: bool) -> list[ViolationInfo]:
        """Violations whose event exists by ``k`` (stream-wide ones once ``ended``)."""
        return [v for v in self.violations if (v.event < k if v.event >= 0 else ended)]

    def ignored_at(self, position: int) -> int:
        """How many frames up to ``position`` produced nothing."""
        return bisect_right(self._ignored_frames, position)

    def next_event(self, k: int) -> int | None:
        """The first error or violation event not yet emitted at ``k`` events."""
        j = bisect_left(self.events, k)
        return self.events[j] if j < len(self.events) else None
