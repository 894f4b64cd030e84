"""A function over a list in several forked processes, results in input order.

``in_order(function, items, processes)`` yields ``function(item)`` for every
item, in order, as ``map`` would; this process and ``processes - 1`` forked
workers compute them. Items are claimed one at a time, by whoever is free, so
one slow item holds up no one else's work, and this process computes as many
as it can itself between passing results on.

Why not ``multiprocessing.Pool``: importing it and starting a pool costs
~25 ms before any item is computed, as much as a worker's share of a
hundred small files; ``os.fork`` and two pipes cost ~2 ms. The workers are
forked, so they share everything this process imported and ``items`` as it
is: nothing is pickled on the way in.

The protocol:

- **The baton.** One pipe holds one 8-byte number at a time: the next item
  to claim. A process reads it (and so holds it alone), writes back the
  number after it, and computes the item it took. Once the number reaches
  ``len(items)`` it is passed on as is, so everyone learns there is nothing
  left. No pipe ever holds more than one number, whatever the item count.
- **Results.** Each worker writes ``(index, result)`` frames (``marshal``:
  the results are plain data) on its own pipe, and a last empty frame when
  it runs out of items. This process reads them whenever it is not computing
  and keeps those that come early until their turn.
- **Failure.** A worker whose pipe closes without that last frame died (an
  exception in ``function``, a signal, the OOM killer). The other workers are
  stopped and this process computes every item without a result itself: the
  output is the same, and an exception ``function`` raises for an item is
  raised here, as ``map`` would raise it.

Where ``os.fork`` does not exist (:data:`CAN_FORK`: Windows), ``in_order``
is ``map``, in this process.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, Generic, TypeVar

__all__ = ["CAN_FORK", "in_order"]

T = TypeVar("T")
R = TypeVar("R")

#: Whether workers can be forked here (not on Windows).
CAN_FORK: Final = hasattr(os, "fork")

_NUMBER: Final = 8  # bytes of the baton and of a frame's length
_READ: Final = 1 << 16


def in_order(function: Callable[[T], R], items: Sequence[T], processes: int) -> Iterator[R]:
    """``map(function, items)``, computed by this process and ``processes - 1`` forked ones.

    ``function`` must return values ``marshal`` can write (None, numbers,
    strings, bytes, and lists, tuples and dicts of them). Whatever this
    process has buffered for stdout should be flushed first: a worker starts
    with a copy of it.
    """
    if not CAN_FORK or processes < 2:
        yield from map(function, items)
        return
    crew = _Crew()
    try:
        # Ctrl+C is held back while forking: it lands once every worker is known.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for _ in range(processes - 1):
                crew.fork(function, items, held)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        os.write(crew.baton[1], _pack(0))
        yield from _Results(function, items, crew)
    finally:
        crew.stop()


class _Worker:
    """This process's end of one worker: its pid and the pipe its results come on."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.buffer = bytearray()
        self.finished = False  # its last, empty frame came


class _Crew:
    """The baton's pipe and the workers; :meth:`stop` ends them all, once."""

    def __init__(self) -> None:
        self.baton = os.pipe()
        os.set_blocking(self.baton[0], False)  # see _claim
        self.workers: dict[int, _Worker] = {}  # by the fd their results come on
        self.stopped = False

    def fork(self, function: Callable[[T], R], items: Sequence[T], mask: object) -> None:
        """Start one worker."""
        results_in, results_out = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent's to handle
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # type: ignore[arg-type]
                os.close(results_in)
                for other in self.workers:
                    os.close(other)
                _serve(function, items, *self.baton, results_out)
                status = 0
            finally:
                # Never back into the parent's code: its finally blocks, atexit, buffers.
                os._exit(status)
        os.close(results_out)
        self.workers[results_in] = _Worker(pid, results_in)

    def finish(self, worker: _Worker) -> None:
        """A worker's pipe closed: reap it."""
        del self.workers[worker.fd]
        os.close(worker.fd)
        os.waitpid(worker.pid, 0)

    def stop(self) -> None:
        """Kill and reap every worker still running; close every pipe."""
        if self.stopped:
            return  # an fd closed twice could be another file's by then
        self.stopped = True
        for worker in self.workers.values():
            os.kill(worker.pid, signal.SIGKILL)  # not reaped yet: the pid is still its own
        for worker in list(self.workers.values()):
            self.finish(worker)
        for fd in self.baton:
            os.close(fd)


def _serve(
    function: Callable[[T], R], items: Sequence[T], baton_in: int, baton_out: int, out: int
) -> None:
    """A worker's loop: claim, compute, send; the empty frame when none are left."""
    count = len(items)
    while True:
        select.select([baton_in], [], [])
        index = _claim(baton_in, baton_out, count)
        if index == count:
            break
        if index is not None:
            result: Any = function(items[index])  # marshal's to judge, as documented
            _write_all(out, _frame(marshal.dumps((index, result))))
    _write_all(out, _frame(b""))


def _claim(baton_in: int, baton_out: int, count: int) -> int | None:
    """Take the baton's number and pass the next one on (``count`` once all are taken).

    None if another process took the baton first: its read end does not
    block, so no one ever waits in a read that a dead holder would never end.
    """
    try:
        data = os.read(baton_in, _NUMBER)  # 8 bytes written at once come out at once
    except BlockingIOError:
        return None
    index = min(int.from_bytes(data, "little"), count) if data else count
    os.write(baton_out, _pack(min(index + 1, count)))
    return index


class _Results(Generic[T, R]):
    """This process's side: claims and computes items, gathers the workers' results."""

    def __init__(self, function: Callable[[T], R], items: Sequence[T], crew: _Crew) -> None:
        self.function = function
        self.items = items
        self.crew = crew
        self.done: dict[int, R | _Raised] = {}
        self.claiming = True  # items may be left to claim
        self.alone = False  # a worker died: what is missing is computed here

    def __iter__(self) -> Iterator[R]:
        done = self.done
        for index in range(len(self.items)):
            while index not in done:
                if self.alone or not (self.claiming or self.crew.workers):
                    done[index] = self.function(self.items[index])
                else:
                    self._step()
            outcome = done.pop(index)
            if isinstance(outcome, _Raised):
                raise outcome.error
            yield outcome

    def _step(self) -> None:
        """Read what the workers sent, and compute the next unclaimed item here."""
        crew = self.crew
        baton_in, baton_out = crew.baton
        waiting = [*crew.workers, baton_in] if self.claiming else list(crew.workers)
        ready, _, _ = select.select(waiting, [], [])
        for fd in ready:
            if fd in crew.workers and not self.alone:
                self._read(crew.workers[fd])
        if self.alone or baton_in not in ready:
            return
        index = _claim(baton_in, baton_out, len(self.items))
        if index == len(self.items):
            self.claiming = False
        elif index is not None:
            try:
                self.done[index] = self.function(self.items[index])
            except Exception as error:  # raised in its turn: the items before it come first
                self.done[index] = _Raised(error)

    def _read(self, worker: _Worker) -> None:
        data = os.read(worker.fd, _READ)
        if not data:
            self.crew.finish(worker)
            if not worker.finished:
                self.alone = True  # it died with items claimed: the rest is done here
                self.crew.stop()
            return
        buffer = worker.buffer
        buffer += data
        while len(buffer) >= _NUMBER:
            size = int.from_bytes(buffer[:_NUMBER], "little")
            if len(buffer) < _NUMBER + size:
                break
            frame = bytes(buffer[_NUMBER : _NUMBER + size])
            del buffer[: _NUMBER + size]
            if frame:
                index, result = marshal.loads(frame)
                self.done[index] = result
            else:
                worker.finished = True


class _Raised:
    """What an item claimed here raised, held until the items before it are given."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def _pack(number: int) -> bytes:
    return number.to_bytes(_NUMBER, "little")


def _frame(payload: bytes) -> bytes:
    return _pack(len(payload)) + payload


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
