"""``inspector check PATH...``: one summary line per stream, invariants verified.

Files are independent, so with ``--jobs N`` they are checked by N processes
(this one and a pool of N - 1); each file's report is built as text and
printed by this process in input order, so the output is the same bytes
whatever N is.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .common import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    add_provider_option,
    error,
    positive_int,
)

if TYPE_CHECKING:
    from ..core.trace import Trace

# Files handed to a worker at a time: large enough to amortize the round
# trip, small enough that the output keeps flowing and the load stays even.
_CHUNK: Final = 8
# Starting workers costs about what normalizing 4 MiB does; each file also
# costs about what 16 KiB of stream does (opening, sniffing, its report). A
# pool is started once the files ahead are worth that much work.
_POOL_MIN_WORK: Final = 4 << 20
_FILE_WORK: Final = 16 << 10

#: One file's report: lines for stdout (False) or stderr (True), and its status.
Report = tuple[list[tuple[bool, str]], int]


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def register(sub: Any) -> None:
    """Add the ``check`` subcommand."""
    parser = sub.add_parser(
        "check",
        help="normalize files and verify the contract's invariants",
        description=(
            "Normalize each file (directories are searched for .sse/.jsonl streams; - reads "
            "stdin) and print one line per file. Exit 1 if any file breaks an invariant, is "
            "damaged or cannot be read, else 0."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    add_provider_option(parser)
    parser.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="check files in N processes (default: one per CPU; 1: in this process)",
    )
    parser.set_defaults(func=run)


def summary(trace: Trace, violations: int) -> str:
    """The one-line report for a trace."""
    return (
        f"{trace.outcome} frames={len(trace.frames)} events={len(trace.events)} "
        f"blocks={len(trace.block_events)} ignored={len(trace.ignored)} "
        f"violations={violations} rejected={len(trace.violations)}"
    )


def check_file(job: tuple[Path, str | None]) -> Report:
    """Check one file; the lines to print and the status (run in a worker or here)."""
    from ..capture import input_name
    from ..core.invariants import check_invariants
    from ..session import load_trace
    from ..terminal import escape_controls

    path, provider = job
    name = input_name(path)
    try:
        # The report shows no chunks or timing: how the bytes arrived cannot change it.
        trace = load_trace(path, provider, as_received=False)
    except ValueError as exc:  # UnreadableInput, ProviderUnknown
        return [(True, f"inspector: {escape_controls(exc)}"), (False, f"{name}: unreadable")], 1
    problems = check_invariants(trace.events)
    lines = [(False, escape_controls(f"{name}: {summary(trace, len(problems))}"))]
    lines += [(False, f"  damaged: {escape_controls(problem)}") for problem in trace.problems]
    lines += [
        (False, escape_controls(f"  invariant {rule} broken at event {index}: {message}"))
        for rule, index, message in problems
    ]
    return lines, EXIT_PROBLEM if problems or trace.problems else EXIT_OK


def _reports(jobs: Iterable[tuple[Path, str | None]], processes: int) -> Iterator[Report]:
    """Every file's report, in input order; a process pool when it helps."""
    jobs = iter(jobs)
    first, worth_a_pool = _look_ahead(jobs) if processes > 1 else ([], False)
    if not worth_a_pool:
        yield from map(check_file, first)
        yield from map(check_file, jobs)
        return
    import multiprocessing

    from .. import session  # noqa: F401  imported once here, inherited by forked workers
    from ..core import invariants  # noqa: F401

    sys.stdout.flush()  # a forked worker must not inherit unwritten output
    # Ctrl+C while the workers start would leave them behind, holding our
    # stdout open: the pool is started with SIGINT held back, and the
    # interrupt lands once the pool is ours to terminate.
    held = _hold_sigint()
    try:
        # The workers and this process check the files: one worker fewer than the
        # processes asked for, and none of them waits for the others to start.
        pool = multiprocessing.Pool(processes - 1, initializer=_worker_init)
    except BaseException:
        _release_sigint(held)
        raise
    try:
        _release_sigint(held)  # a held Ctrl+C is raised here, inside the try
        yield from _shared(pool, processes, itertools.chain(first, jobs))
    finally:
        pool.terminate()


def _shared(pool: Any, processes: int, jobs: Iterator[tuple[Path, str | None]]) -> Iterator[Report]:
    """Every report in input order, batches dealt in turn to this process and the pool.

    Of every ``processes`` batches, the first is checked here and the others
    by the pool, sent ahead so that the workers are busy while this process
    checks its own.
    """
    batches = iter(lambda: list(itertools.islice(jobs, _CHUNK)), [])
    ahead: collections.deque[Any] = collections.deque()  # batches' results, or batches
    for number, batch in enumerate(batches):
        ahead.append(batch if number % processes == 0 else pool.apply_async(_check_batch, (batch,)))
        if len(ahead) < 2 * processes:
            continue
        yield from _settle(ahead.popleft())
    while ahead:
        yield from _settle(ahead.popleft())


def _settle(item: Any) -> list[Report]:
    """The reports of a batch: checked here now, or the pool's answer."""
    return _check_batch(item) if isinstance(item, list) else item.get()


def _check_batch(batch: list[tuple[Path, str | None]]) -> list[Report]:
    """A pool worker's task: the reports of one batch of files."""
    return list(map(check_file, batch))


def _look_ahead(
    jobs: Iterator[tuple[Path, str | None]],
) -> tuple[list[tuple[Path, str | None]], bool]:
    """The next files, up to the one that makes them worth a pool; and whether they are.

    A pool pays when there are several files and enough work in them to cover
    starting the workers: a folder of small captures is checked faster here.
    """
    first: list[tuple[Path, str | None]] = []
    work = 0
    for job in jobs:
        first.append(job)
        work += _work_of(job[0])
        if work >= _POOL_MIN_WORK and len(first) >= 2:
            return first, True
    return first, False


def _work_of(path: Path) -> int:
    try:
        return os.stat(path).st_size + _FILE_WORK
    except OSError:  # reported by check_file, in its place
        return _FILE_WORK


def _hold_sigint() -> object:
    import signal  # here, as the pool's other helpers: only a pool needs it

    if not hasattr(signal, "pthread_sigmask"):  # not on POSIX: nothing to hold
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _release_sigint(held: object) -> None:
    import signal

    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # type: ignore[arg-type]


def _worker_init() -> None:
    import signal

    # Ctrl+C is the main process's to handle: it stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(args: argparse.Namespace) -> int:
    """Check every file; the exit code says whether all were clean."""
    from ..library import iter_stream_files
    from ..terminal import safe_path

    unlisted: list[tuple[Path, OSError]] = []
    files = iter_stream_files(args.paths, unlisted)
    # stdin can only be read here, not in a worker.
    processes = 1 if "-" in args.paths else args.jobs or default_jobs()
    status = EXIT_OK
    seen = 0
    for lines, file_status in _reports(((path, args.provider) for path in files), processes):
        seen += 1
        status = max(status, file_status)
        for to_stderr, line in lines:
            print(line, file=sys.stderr if to_stderr else sys.stdout)
    for folder, exc in unlisted:
        error(f"{safe_path(folder)}: cannot list its files ({exc.strerror or exc})")
        status = max(status, EXIT_PROBLEM)
    if not seen:
        error("no stream files found")
        return EXIT_USAGE
    return status
