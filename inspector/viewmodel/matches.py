"""Search: every position a query matches, found once per query.

A match is looked for in two places:

* the **wire bytes** of every frame (event name, id, data, comment as
  received) — one regular-expression scan over the stream's bytes, mapped
  to frames with a bisect, skipping to the next frame after each hit, so a
  query that occurs a million times costs one search per frame at most;
* the **assembled text** of every block as of the end of the stream (and
  tool names, call ids, the model, error messages): a word split across
  fragments is found there, and the match is placed on the frame where the
  matched text became complete — the frame of the fragment that carried its
  last character.

The result is the sorted list of cursor positions that match, so "next",
"previous" and the "2 of 5" counter are bisects. Matching ignores case (the
wire bytes by ASCII rules, the text by Unicode rules).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .cursor import SearchHit
from .index import TraceIndex

__all__ = ["Matches", "find_matches", "query_pattern"]


def query_pattern(query: str) -> re.Pattern[str]:
    """The query as a case-insensitive literal pattern (also used to highlight rows)."""
    return re.compile(re.escape(query), re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Matches:
    """The positions a query matches, sorted, and what they were computed over."""

    query: str
    positions: list[int]
    #: ``(frames, events)`` indexed when computed: a live trace may have grown since.
    extent: tuple[int, int]

    def __len__(self) -> int:
        return len(self.positions)

    def next_after(self, position: int) -> SearchHit | None:
        """The first match after ``position``, wrapping to the first one."""
        if not self.positions:
            return None
        j = bisect_right(self.positions, position)
        if j < len(self.positions):
            return SearchHit(self.positions[j], False)
        return SearchHit(self.positions[0], True)

    def previous_before(self, position: int) -> SearchHit | None:
        """The last match before ``position``, wrapping to the last one."""
        if not self.positions:
            return None
        j = bisect_left(self.positions, position)
        if j > 0:
            return SearchHit(self.positions[j - 1], False)
        return SearchHit(self.positions[-1], True)

    def counter(self, position: int) -> str:
        """``2 of 5`` on a match, ``– of 5`` between matches, ``no match``."""
        total = len(self.positions)
        if not total:
            return "no match"
        j = bisect_left(self.positions, position)
        here = j < total and self.positions[j] == position
        return f"{j + 1 if here else '–'} of {total}"


def find_matches(index: TraceIndex, query: str) -> Matches:
    """Every position where ``query`` occurs (see the module docstring)."""
    found: set[int] = set()
    if query:
        found.update(_wire_matches(index, query))
        found.update(_text_matches(index, query_pattern(query)))
    return Matches(query, sorted(found), (index.n_frames, index.n_events))


def _wire_matches(index: TraceIndex, query: str) -> list[int]:
    n = index.n_frames
    if not n:
        return []
    frames = index.trace.frames
    starts = array("q", (frames.span_of(i)[0] for i in range(n)))
    base, end = starts[0], frames.span_of(n - 1)[1]
    data = index.trace.chunks.span(base, end)
    pattern = re.compile(re.escape(query.encode()), re.IGNORECASE)
    out: list[int] = []
    at = 0
    while (hit := pattern.search(data, at)) is not None:
        frame = bisect_right(starts, base + hit.start()) - 1
        frame_end = frames.span_of(frame)[1] - base
        if hit.end() <= frame_end:
            out.append(frame)
            at = frame_end  # one hit is enough for a frame
        else:
            at = hit.start() + 1  # the hit straddles two frames: not a frame's match
    return out


def _text_matches(index: TraceIndex, pattern: re.Pattern[str]) -> list[int]:
    trace = index.trace
    out: list[int] = []
    for block in index.blocks.values():
        for word in (block.name, block.call_id):
            if isinstance(word, str) and pattern.search(word):
                out.append(index.position_of_event(block.start_event))
        text, _ = block.text.text_at(1 << 62)
        ends, events = block.text.ends, block.text.events
        at = 0
        while (hit := pattern.search(text, at)) is not None:
            # The fragment that carried the match's last character completed it.
            j = bisect_left(ends, hit.end())
            out.append(index.position_of_event(events[j]))
            # Later hits in the same fragment land on the same frame: skip them.
            at = max(hit.start() + 1, ends[j] - (hit.end() - hit.start()) + 1)
    for event in _worded_events(index):
        words = _event_words(trace.events[event])
        if any(pattern.search(w) for w in words):
            out.append(index.position_of_event(event))
    return out


def _worded_events(index: TraceIndex) -> list[int]:
    """The few non-delta events with searchable words: the start and every error."""
    trace = index.trace
    out = [e for e in index.problems.events if trace.events.type_of(e) == "stream.error"]
    if index.n_events and trace.events.type_of(0) == "stream.start":
        out.append(0)
    return out


def _event_words(event: dict[str, object]) -> list[str]:
    words = [event.get("model"), event.get("name")]
    error = event.get("error")
    if isinstance(error, dict):
        words.append(error.get("message"))
    return [w for w in words if isinstance(w, str)]
