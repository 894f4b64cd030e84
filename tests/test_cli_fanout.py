"""``fanout.in_order``: what ``map`` gives, whoever computes it and whatever goes wrong.

Forked workers run here for real; every test also checks that none is left
behind (killed or not, every child is reaped before ``in_order`` returns).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.cli import fanout

needs_fork = pytest.mark.skipif(not fanout.CAN_FORK, reason="workers are forked")

PARENT = os.getpid()


@pytest.fixture(autouse=True)
def no_child_left_behind(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    forked: list[int] = []
    fork = getattr(os, "fork", None)

    def recording_fork() -> int:
        assert fork is not None, "no fork here: nothing may call it"
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork, raising=False)
    yield forked
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped already: no such child


def digest(n: int) -> tuple[int, str, list[bytes]]:
    """Uneven work: some items cost a hundred times others."""
    total = sum(i * i for i in range((n % 7) * 3000))
    return n, f"item {n}: {total}", [bytes([n % 256])] * (n % 5)


@needs_fork
@pytest.mark.parametrize("processes", [2, 3, 5])
def test_results_are_maps_in_input_order(processes: int) -> None:
    items = list(range(300))
    assert list(fanout.in_order(digest, items, processes)) == list(map(digest, items))


@needs_fork
def test_the_workers_compute_some_items_and_this_process_others(tmp_path: Path) -> None:
    # Each side's first item waits until the other side has begun one: claims are
    # first come, first served, so only this proves both take part.
    def where(n: int) -> tuple[int, bool]:
        in_parent = os.getpid() == PARENT
        mine, theirs = (tmp_path / "parent", tmp_path / "worker")[:: 1 if in_parent else -1]
        mine.touch()
        deadline = time.monotonic() + 60
        while not theirs.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        return n, in_parent

    results = list(fanout.in_order(where, list(range(300)), 2))
    assert [n for n, _ in results] == list(range(300))
    here = sum(1 for _, in_parent in results if in_parent)
    assert 0 < here < 300


@needs_fork
def test_more_results_than_a_pipe_holds_arrive_whole() -> None:
    def big(n: int) -> str:
        return f"{n}:" + "x" * 5000

    items = list(range(200))  # ~1 MB of results through 64 KiB pipes
    assert list(fanout.in_order(big, items, 3)) == list(map(big, items))


@needs_fork
def test_fewer_items_than_processes() -> None:
    assert list(fanout.in_order(digest, [1], 4)) == [digest(1)]
    assert list(fanout.in_order(digest, [], 4)) == []


@needs_fork
def test_a_worker_that_dies_leaves_its_items_to_this_process() -> None:
    def fragile(n: int) -> int:
        if os.getpid() != PARENT and n % 10 == 3:
            os._exit(9)  # killed mid-item, as by a signal or the OOM killer
        sum(range(5_000))
        return n * 2

    items = list(range(100))
    assert list(fanout.in_order(fragile, items, 3)) == [n * 2 for n in items]


@needs_fork
def test_an_item_that_raises_raises_here_as_map_would() -> None:
    def picky(n: int) -> int:
        if n == 57:
            raise ValueError("no 57")
        return n

    got: list[int] = []
    with pytest.raises(ValueError, match="no 57"):
        for value in fanout.in_order(picky, list(range(100)), 3):
            got.append(value)
    assert got == list(range(57))


@needs_fork
def test_stopping_early_stops_the_workers() -> None:
    results = fanout.in_order(digest, list(range(10_000)), 3)
    assert next(results) == digest(0)
    results.close()  # the fixture checks that every worker was reaped


@needs_fork
def test_results_marshal_cannot_write_fail_here_not_silently() -> None:
    def unmarshallable(n: int) -> object:
        return object() if os.getpid() != PARENT else n

    # A worker's result it cannot send ends that worker; this process computes the item.
    assert list(fanout.in_order(unmarshallable, list(range(50)), 2)) == list(range(50))


@pytest.mark.parametrize("processes", [1, 4])
def test_without_fork_or_a_second_process_it_is_map_here(
    processes: int, monkeypatch: pytest.MonkeyPatch, no_child_left_behind: list[int]
) -> None:
    monkeypatch.setattr(fanout, "CAN_FORK", processes != 4)
    items = list(range(50))
    assert list(fanout.in_order(digest, items, processes)) == list(map(digest, items))
    assert no_child_left_behind == []


@needs_fork
def test_an_item_raising_in_this_process_waits_for_the_items_before_it() -> None:
    # This process claims items too. When its own item raises while a worker still
    # computes an earlier one, the earlier results come first, as map gives them.
    parent = os.getpid()

    def slow_in_workers(n: int) -> int:
        # Whoever claims item 0, this process raises on its next item while a worker
        # still holds an earlier one (the workers are slow, and so is its own item 0).
        if os.getpid() != parent:
            time.sleep(0.3)
        elif n > 0:
            raise ValueError(f"raised at {n}")
        else:
            time.sleep(0.1)
        return n

    got: list[int] = []
    with pytest.raises(ValueError, match="raised at") as raised:
        for value in fanout.in_order(slow_in_workers, list(range(12)), 3):
            got.append(value)
    at = int(str(raised.value).rsplit(" ", 1)[1])
    assert got == list(range(at))
