"""``inspector diff A B``: compare two streams by their normalized events."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, add_provider_option, error, say


def register(sub: Any) -> None:
    """Add the ``diff`` subcommand."""
    parser = sub.add_parser(
        "diff",
        help="compare two streams by their normalized events",
        description=(
            "Normalize A and B (captures, raw SSE files, cassettes, HAR files, or golden "
            "NAME.events.jsonl files) and compare their events: the first divergence (event "
            "index and both events), what differs in each block (text, tool arguments), the "
            "terminal state, usage, and the timing shape of each (TTFT, total, longest gap, "
            "chunks; shown, never compared). Stream ids, provider response/call ids and raw "
            "usage objects are ignored unless --exact. Exit 0 when the events are the same, "
            "1 when they differ, 2 when a file cannot be read."
        ),
    )
    parser.add_argument("a", metavar="A", help="the stream that worked (or the golden)")
    parser.add_argument("b", metavar="B", help="the stream to compare with it")
    add_provider_option(parser)
    parser.add_argument(
        "--exact", action="store_true", help="compare ids and raw usage objects too"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the comparison as JSON")
    output.add_argument(
        "--tui", action="store_true", help="show both event lists side by side in the TUI"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare, print (or show) the result; exit 0 same, 1 different, 2 unreadable."""
    from ..stream_diff import DiffInputError, diff_streams
    from ..stream_diff_report import report_lines, to_json

    try:
        diff = diff_streams(args.a, args.b, args.provider, exact=args.exact)
    except DiffInputError as exc:
        error(exc)
        return EXIT_USAGE
    if args.tui:
        from ..tui.screens.diff import run_diff_app

        run_diff_app(diff)
    elif args.json:
        from .common import write_jsonl

        write_jsonl([to_json(diff)])
    else:
        for line in report_lines(diff):
            say(line)
    return EXIT_OK if diff.same else EXIT_PROBLEM
