"""``inspector check PATH...``: one summary line per stream, invariants verified.

Files are independent, so with ``--jobs N`` they are checked by N processes
(this one and N - 1 forked workers, :mod:`.fanout`); each file's report is
built as text and printed by this process in input order, so the output is
the same bytes whatever N is.
"""

from __future__ import annotations

import argparse
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
    add_reference_option,
    error,
    positive_int,
)

if TYPE_CHECKING:
    from ..core.trace import Trace

# Forking a worker costs about what normalizing 128 KiB does (a few ms); each
# file also costs about what 16 KiB of stream does (opening, sniffing, its
# report). Workers are forked once the files ahead are worth 1 MiB of work.
_FORK_MIN_WORK: Final = 1 << 20
_FILE_WORK: Final = 16 << 10

#: One file's report: lines for stdout (False) or stderr (True), and its status.
Report = tuple[list[tuple[bool, str]], int]
#: One file to check: its path, the provider named (None: detect), and whether fast.
Job = tuple[Path, str | None, bool]


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
        help=(
            "check files in N processes (default: one per CPU; 1: in this process; "
            "workers are forked, so on Windows always 1)"
        ),
    )
    add_reference_option(parser)
    parser.set_defaults(func=run)


def summary(trace: Trace, violations: int) -> str:
    """The one-line report for a trace."""
    events = trace.events  # (type_of: no delta dict is built to be counted)
    warnings = sum(1 for i in range(len(events)) if events.type_of(i) == "stream.warning")
    return (
        f"{trace.outcome} frames={len(trace.frames)} events={len(trace.events)} "
        f"blocks={len(trace.block_events)} warnings={warnings} ignored={len(trace.ignored)} "
        f"violations={violations} rejected={len(trace.violations)}"
    )


def check_file(job: Job) -> Report:
    """Check one file; the lines to print and the status (run in a worker or here)."""
    from ..capture import input_name
    from ..core.invariants import check_invariants
    from ..session import load_trace
    from ..terminal import escape_controls

    path, provider, fast = job
    name = input_name(path)
    try:
        # The report shows no chunks or timing: how the bytes arrived cannot change it.
        trace = load_trace(path, provider, as_received=False, fast=fast)
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


def _reports(jobs: Iterable[Job], processes: int) -> Iterator[Report]:
    """Every file's report, in input order; forked workers too when they help."""
    jobs = iter(jobs)
    first, worth_it = _look_ahead(jobs) if processes > 1 else ([], False)
    if not worth_it:
        yield from map(check_file, first)
        yield from map(check_file, jobs)
        return
    # Only here: a small check never loads the fork machinery. The pipeline is
    # imported once, before forking, and shared by the workers.
    from .. import session  # noqa: F401
    from ..core import invariants  # noqa: F401
    from . import fanout

    every = [*first, *jobs]
    sys.stdout.flush()  # a forked worker must not inherit unwritten output
    yield from fanout.in_order(check_file, every, min(processes, len(every)))


def _look_ahead(
    jobs: Iterator[Job],
) -> tuple[list[Job], bool]:
    """The next files, up to the one that makes them worth forking; and whether they are.

    Workers pay when there are several files and enough work in them to
    cover forking: a couple of small captures are checked faster here.
    """
    first: list[Job] = []
    work = 0
    for job in jobs:
        first.append(job)
        work += _work_of(job[0])
        if work >= _FORK_MIN_WORK and len(first) >= 2:
            return first, True
    return first, False


def _work_of(path: Path) -> int:
    try:
        return os.stat(path).st_size + _FILE_WORK
    except OSError:  # reported by check_file, in its place
        return _FILE_WORK


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
    for lines, file_status in _reports(
        ((path, args.provider, not args.reference) for path in files), processes
    ):
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
