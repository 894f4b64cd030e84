"""``inspector check PATH...``: one summary line per stream, invariants verified."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.invariants import check_invariants
from ..core.trace import Trace
from .common import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, add_provider_option, expand_paths, open_trace


def register(sub: Any) -> None:
    """Add the ``check`` subcommand."""
    parser = sub.add_parser(
        "check",
        help="normalize files and verify the contract's invariants",
        description=(
            "Normalize each file (directories are searched for .sse/.jsonl streams) and "
            "print one line per file. Exit 1 if any file breaks an invariant or cannot be "
            "read, else 0."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    add_provider_option(parser)
    parser.set_defaults(func=run)


def summary(trace: Trace, violations: int) -> str:
    """The one-line report for a trace."""
    terminal = trace.terminal_event
    state = trace.state
    detail = ""
    if terminal is not None and terminal["type"] == "stream.error":
        detail = f" ({terminal['error']['category']})"
    elif terminal is not None:
        detail = f" ({terminal['finish_reason']})"
    return (
        f"{state}{detail} frames={len(trace.frames)} events={len(trace.events)} "
        f"blocks={len(trace.block_events)} ignored={len(trace.ignored)} "
        f"violations={violations} rejected={len(trace.violations)}"
    )


def run(args: argparse.Namespace) -> int:
    """Check every file; the exit code says whether all were clean."""
    files = expand_paths(args.paths)
    if not files:
        print("inspector: no stream files found")
        return EXIT_USAGE
    status = EXIT_OK
    for path in files:
        trace = open_trace(path, args.provider)
        if trace is None:
            print(f"{path}: unreadable")
            status = EXIT_PROBLEM
            continue
        problems = check_invariants(trace.events)
        print(f"{path}: {summary(trace, len(problems))}")
        for rule, index, message in problems:
            print(f"  invariant {rule} broken at event {index}: {message}")
        if problems:
            status = EXIT_PROBLEM
    return status
