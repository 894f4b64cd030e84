"""An independent checker of the contract's six invariants.

It reads only the emitted events — never the machine's state — so it can
catch a bug in the machine or an adapter rather than repeat it. ``inspector
check`` and the tests run it on every stream.

Only four fields of an event matter to the rules: its type, seq, stream_id
and block index. Given a trace's :class:`~inspector.core.trace.EventLog`, the
checker reads those from the log's compact columns
(:meth:`~inspector.core.trace.EventLog.skeleton`) instead of building every
``block.delta`` dict — the same values, without the per-event dict (the pass
was as costly as decoding the stream).

The rules live in one place, :meth:`InvariantChecker.rows`, which carries its
state from one call to the next: :func:`check_invariants` feeds it a whole
trace at once, and a :class:`~inspector.core.summary.Summary` feeds it
each event as it is recorded, keeping no event history.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .trace import EventLog, Skeleton, skeleton_of

__all__ = ["TERMINAL_TYPES", "IndexRanges", "InvariantChecker", "Problem", "check_invariants"]

TERMINAL_TYPES = frozenset({"stream.done", "stream.error"})

#: ``(rule, event index, message)``; index -1 for a rule about the whole stream.
Problem = tuple[int, int, str]


class IndexRanges:
    """A set of integers stored as sorted ``[start, stop)`` ranges.

    Block indices arrive mostly in order, so the blocks seen in a stream of any
    length take one range: memory does not grow with the number of blocks.
    Membership is a set's (an integral float is its int; anything else is absent).
    """

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._stops: list[int] = []

    def add(self, index: int) -> None:
        """Add ``index``."""
        starts, stops = self._starts, self._stops
        at = bisect_right(starts, index) - 1  # the range starting at or before index
        if at >= 0 and index < stops[at]:
            return
        joins_left = at >= 0 and stops[at] == index
        joins_right = at + 1 < len(starts) and starts[at + 1] == index + 1
        if joins_left and joins_right:
            stops[at] = stops[at + 1]
            del starts[at + 1], stops[at + 1]
        elif joins_left:
            stops[at] = index + 1
        elif joins_right:
            starts[at + 1] = index
        else:
            starts.insert(at + 1, index)
            stops.insert(at + 1, index + 1)

    def __contains__(self, index: object) -> bool:
        if not isinstance(index, int):
            if not isinstance(index, float) or not index.is_integer():
                return False
            index = int(index)
        at = bisect_right(self._starts, index) - 1
        return at >= 0 and index < self._stops[at]

    def __len__(self) -> int:
        return sum(stop - start for start, stop in zip(self._starts, self._stops, strict=True))

    @property
    def ranges(self) -> list[tuple[int, int]]:
        """The ranges, in order (their number is what is stored)."""
        return list(zip(self._starts, self._stops, strict=True))


class InvariantChecker:
    """The six rules, applied to events fed in order, one call or many.

    ``limit`` bounds the problems kept (the first ``limit``; None keeps all);
    :attr:`found` counts every one, kept or not.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.problems: list[Problem] = []
        #: Problems found so far, including those past :attr:`limit`.
        self.found = 0
        #: Events checked so far (the next one's index).
        self.events = 0
        self.open_blocks: set[int] = set()
        self.seen_blocks = IndexRanges()
        self.terminals = 0
        self.last_seq: int | None = None
        self.stream_id: str | None = None

    def rows(self, rows: Iterable[Skeleton]) -> None:
        """Check the next events, given as :data:`~inspector.core.trace.Skeleton` rows."""
        problems = self.problems
        before = len(problems)
        open_blocks = self.open_blocks
        seen_blocks = self.seen_blocks
        terminals = self.terminals
        last_seq = self.last_seq
        stream_id = self.stream_id
        i = self.events - 1
        for i, (kind, seq, sid, index) in enumerate(rows, start=self.events):
            if i == 0 and kind != "stream.start":
                problems.append((1, i, f"first event is {kind!r}, not 'stream.start'"))
            if stream_id is None:
                stream_id = sid
            elif sid != stream_id:
                problems.append((3, i, "stream_id changed within one stream"))
            if not isinstance(seq, int):
                problems.append((3, i, f"seq {seq!r} does not follow {last_seq!r}"))
            else:
                if last_seq is not None and seq != last_seq + 1:
                    problems.append((3, i, f"seq {seq!r} does not follow {last_seq!r}"))
                last_seq = seq
            if terminals:
                problems.append((4, i, f"{kind!r} follows the terminal event"))
            if kind == "block.delta":
                if index not in open_blocks:
                    problems.append((2, i, f"delta for block {index}, which is not open"))
                continue  # most events: nothing else applies
            if kind == "block.start":
                if index in seen_blocks:
                    problems.append((2, i, f"block {index} opened twice"))
                if isinstance(index, int):
                    open_blocks.add(index)
                    seen_blocks.add(index)
            elif kind == "block.stop":
                if index not in open_blocks:
                    problems.append((2, i, f"stop for block {index}, which is not open"))
                open_blocks.discard(index)
            elif kind == "stream.done" and open_blocks:
                problems.append((5, i, f"stream.done while blocks {sorted(open_blocks)} are open"))
            if kind in TERMINAL_TYPES:
                terminals += 1
        self.events = i + 1
        self.terminals = terminals
        self.last_seq = last_seq
        self.stream_id = stream_id
        self._kept(before)

    def deltas(self, index: int, stream_id: str, first_seq: int, count: int) -> None:
        """Check ``count`` ``block.delta`` events for block ``index``, seq ``first_seq`` on.

        The same as :meth:`rows` given those rows; when nothing can be wrong
        with them (block open, seq following, same stream, not after the end)
        only the counters move, so a run of deltas costs nothing per delta.
        """
        if (
            self.events
            and not self.terminals
            and index in self.open_blocks
            and stream_id == self.stream_id
            and self.last_seq == first_seq - 1
        ):
            self.events += count
            self.last_seq = first_seq + count - 1
            return
        seqs = range(first_seq, first_seq + count)
        self.rows(("block.delta", seq, stream_id, index) for seq in seqs)

    def finish(self, ended: bool = True) -> list[Problem]:
        """The problems found so far (a copy; the checker can go on).

        ``ended`` says the stream is over: rule 6 then requires exactly one
        terminal event. Kept within :attr:`limit` like the others.
        """
        problems = list(self.problems)
        if ended and self.terminals != 1 and (self.limit is None or len(problems) < self.limit):
            problems.append((6, -1, f"{self.terminals} terminal events; exactly one is required"))
        return problems

    def _kept(self, before: int) -> None:
        problems = self.problems
        self.found += len(problems) - before
        if self.limit is not None and len(problems) > self.limit:
            del problems[self.limit :]


def check_invariants(
    events: Iterable[Mapping[str, Any]], ended: bool = True
) -> list[tuple[int, int, str]]:
    """Return ``(rule, event index, message)`` for every broken invariant.

    ``ended`` says whether the stream is over (rule 6 then requires exactly
    one terminal event); pass False while a live stream is still running.
    """
    rows = events.skeleton() if isinstance(events, EventLog) else _skeletons(events)
    checker = InvariantChecker()
    checker.rows(rows)
    return checker.finish(ended)


def _skeletons(events: Iterable[Mapping[str, Any]]) -> Iterator[Skeleton]:
    return (skeleton_of(event) for event in events)
