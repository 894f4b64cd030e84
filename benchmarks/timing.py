"""Timing several candidates fairly on a shared, noisy machine.

Candidates run round-robin — one run of each, then the next round, in the
reverse order every other round — so a burst of load from elsewhere slows
every candidate of a round, not one of them. A ratio between two candidates
is *paired*: the median, over the rounds, of one's time over the other's in
that round (:func:`paired_ratio`), so a machine whose speed drifts from one
second to the next (a shared host's does, by a third) moves both sides of
each quotient together instead of whichever candidate it caught. A full
collection before every run keeps one candidate's garbage from being
collected on the next one's clock.

Time is the process's CPU time (``time.process_time``): the loops are
single-threaded and CPU-bound, so on an idle machine it equals the wall
clock, and on a shared one it leaves out the time other processes had the
CPU. (Cache and hyper-thread sharing still leak through: run on a quiet
machine for absolute numbers; the ratios are what the targets use.)
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Result", "compare", "paired_ratio", "ratio_spread"]


@dataclass
class Result:
    """The runs of one candidate on one input."""

    name: str
    nbytes: int
    events: int
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        """Median seconds of one run."""
        return statistics.median(self.seconds)

    @property
    def mb_per_s(self) -> float:
        """Megabytes (10**6 bytes) of stream per second, at the median."""
        return self.nbytes / self.median / 1e6

    @property
    def events_per_s(self) -> float:
        """SSE events per second, at the median."""
        return self.events / self.median

    @property
    def us_per_event(self) -> float:
        """Microseconds per SSE event, at the median."""
        return self.median / self.events * 1e6


def compare(
    candidates: Sequence[tuple[str, Callable[[], Any]]],
    nbytes: int,
    events: int,
    repeats: int,
) -> dict[str, Result]:
    """Time each ``(name, run)`` ``repeats`` times, round-robin; results by name."""
    results = {name: Result(name, nbytes, events) for name, _ in candidates}
    for round_ in range(repeats):
        # (reversed every other round: no candidate always runs just after the same one)
        for name, run in candidates if round_ % 2 == 0 else candidates[::-1]:
            gc.collect()
            start = time.process_time()
            outcome = run()
            elapsed = time.process_time() - start
            del outcome  # freed off the clock
            results[name].seconds.append(elapsed)
    return results


def _quotients(slower: Result, faster: Result) -> list[float]:
    return [a / b for a, b in zip(slower.seconds, faster.seconds, strict=True)]


def paired_ratio(slower: Result, faster: Result) -> float:
    """How many times ``faster`` ran in the time of ``slower``: the median of the rounds' quotients.

    Both must come from one :func:`compare` (their runs are paired by round).
    """
    return statistics.median(_quotients(slower, faster))


def ratio_spread(slower: Result, faster: Result) -> tuple[float, float]:
    """The lowest and highest of the rounds' quotients behind :func:`paired_ratio`."""
    quotients = _quotients(slower, faster)
    return min(quotients), max(quotients)
