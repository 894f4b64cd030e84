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
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .trace import EventLog, Skeleton, skeleton_of

__all__ = ["TERMINAL_TYPES", "check_invariants"]

TERMINAL_TYPES = frozenset({"stream.done", "stream.error"})


def check_invariants(
    events: Iterable[Mapping[str, Any]], ended: bool = True
) -> list[tuple[int, int, str]]:
    """Return ``(rule, event index, message)`` for every broken invariant.

    ``ended`` says whether the stream is over (rule 6 then requires exactly
    one terminal event); pass False while a live stream is still running.
    """
    rows = events.skeleton() if isinstance(events, EventLog) else _skeletons(events)
    problems: list[tuple[int, int, str]] = []
    open_blocks: set[int] = set()
    seen_blocks: set[int] = set()
    terminals = 0
    last_seq: int | None = None
    stream_id: str | None = None
    for i, (kind, seq, sid, index) in enumerate(rows):
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
    if ended and terminals != 1:
        problems.append((6, -1, f"{terminals} terminal events; exactly one is required"))
    return problems


def _skeletons(events: Iterable[Mapping[str, Any]]) -> Iterator[Skeleton]:
    return (skeleton_of(event) for event in events)
