"""``inspector check PATH...``: one summary line per stream, invariants verified.

Files are independent, so with ``--jobs N`` they are checked by a pool of N
processes; each file's report is built as text and printed by the main
process in input order, so the output is the same bytes whatever N is.
"""

from __future__ import annotations

import argparse
import contextlib
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
# Fewer files than this use a pool only if they hold at least this many bytes.
_POOL_MIN_FILES: Final = 8
_POOL_MIN_BYTES: Final = 4 << 20

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
    first = list(itertools.islice(jobs, _POOL_MIN_FILES))
    if processes <= 1 or not _worth_a_pool(first):
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
        pool = multiprocessing.Pool(processes, initializer=_worker_init)
    except BaseException:
        _release_sigint(held)
        raise
    try:
        _release_sigint(held)  # a held Ctrl+C is raised here, inside the try
        yield from pool.imap(check_file, itertools.chain(first, jobs), chunksize=_CHUNK)
    finally:
        pool.terminate()


def _worth_a_pool(first: list[tuple[Path, str | None]]) -> bool:
    # Starting workers costs about what normalizing a few MiB does: a pool
    # for many files, or for a few large ones.
    if len(first) >= _POOL_MIN_FILES:
        return True
    if len(first) < 2:
        return False
    total = 0
    for path, _ in first:
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return total >= _POOL_MIN_BYTES


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
