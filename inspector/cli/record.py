"""``inspector record``: stream one request headless, record it, print one summary line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..live.options import UsageError, add_live_arguments, feed_from_args
from ..terminal import escape_controls, safe_path
from .common import EXIT_USAGE, error

if TYPE_CHECKING:
    from ..core.recorder import Recorder
    from ..live.feed import LiveFeed


def register(sub: Any) -> None:
    """Add the ``record`` subcommand."""
    parser = sub.add_parser(
        "record",
        help="stream a request to a provider and record it, without the TUI",
        description=(
            "Send one streaming request, record every chunk as it arrives, and print a "
            "one-line summary. Keys come from OPENAI_API_KEY, ANTHROPIC_API_KEY, "
            "GEMINI_API_KEY / GOOGLE_API_KEY, CO_API_KEY, OLLAMA_API_KEY (optional), "
            "AWS_BEARER_TOKEN_BEDROCK or AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (SigV4) "
            "(or --api-key-env) and are never written. "
            "Exit 0 completed; 1 failed or interrupted (HTTP error, transport, timeout); "
            "2 bad usage or missing key; 130 cancelled with Ctrl+C."
        ),
    )
    add_live_arguments(parser)
    parser.set_defaults(func=run)


def open_feed(args: argparse.Namespace, *, keep_history: bool = True) -> LiveFeed | int:
    """The feed the options describe, with its secret warnings said; ``EXIT_USAGE``
    (and why) when the options make none. ``inspector live`` starts the same way."""
    from ..live.headless import secret_warnings  # (the stream's machinery: not for --help)

    try:
        feed = feed_from_args(args, keep_history=keep_history)
    except UsageError as exc:
        error(escape_controls(exc))
        return EXIT_USAGE
    for warning in secret_warnings(feed):
        error(warning)
    return feed


def report(feed: LiveFeed, trace: Recorder) -> int:
    """Say what went wrong (if anything) and the summary line; the exit code for how
    the stream ended. ``inspector live`` ends the same way."""
    from ..live.headless import exit_code, problem_line, summary_line

    problem = problem_line(feed)
    if problem is not None:
        error(problem)
    print(summary_line(feed), flush=True)
    return exit_code(trace, capped=feed.capped)


def run(args: argparse.Namespace) -> int:
    """Record; the exit code says how the stream ended."""
    # The stream's machinery (asyncio, the pipeline) loads only to run, not for --help.
    import asyncio

    from ..live.headless import record

    # No view: the trace keeps counts, not history, so memory stays flat
    # however long the stream (the capture file has every byte).
    feed = open_feed(args, keep_history=False)
    if isinstance(feed, int):
        return feed
    try:
        trace = asyncio.run(record(feed))
    except OSError as exc:
        path = safe_path(feed.sink.path or "")
        error(f"{path}: cannot write the capture ({escape_controls(exc.strerror or exc)})")
        return EXIT_USAGE
    if feed.sink.requested is not None:
        error(
            f"{safe_path(feed.sink.requested)} exists and was not overwritten; "
            f"recorded to {safe_path(feed.sink.path or '')}"
        )
    return report(feed, trace)
