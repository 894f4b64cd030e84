"""``inspector live``: stream one request and watch it in the TUI as it arrives."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, cast

from ..live.options import UsageError, add_live_arguments, feed_from_args
from ..terminal import escape_controls
from .common import EXIT_USAGE, error

if TYPE_CHECKING:
    from ..feeds import Feed


def register(sub: Any) -> None:
    """Add the ``live`` subcommand."""
    parser = sub.add_parser(
        "live",
        help="stream a request to a provider and watch it in the TUI, recording it",
        description=(
            "Send one streaming request and show it in the TUI as it arrives (the cursor "
            "follows the newest frame until you move it; c cancels the stream). Everything "
            "received is recorded to the capture as it arrives. Keys and exit codes as for "
            "`inspector record`."
        ),
    )
    add_live_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Show the stream; after the TUI closes, print the same summary as ``record``."""
    # The stream's machinery (asyncio, the pipeline) loads only to run, not for --help.
    from ..live.headless import exit_code as stream_exit_code
    from ..live.headless import problem_line, secret_warnings, summary_line

    try:
        feed = feed_from_args(args)
    except UsageError as exc:
        error(escape_controls(exc))
        return EXIT_USAGE
    for warning in secret_warnings(feed):
        error(warning)
    from ..tui import run_app  # Textual loads only when the TUI is used

    try:
        run_app(cast("Feed", feed))  # (a feed with history: its trace is a Trace)
    finally:
        # Quitting mid-stream cancels the feed; make sure the capture says so.
        feed.settle_cancelled()
    problem = problem_line(feed)
    if problem is not None:
        error(problem)
    print(summary_line(feed), flush=True)
    return stream_exit_code(feed.trace, capped=feed.capped)
