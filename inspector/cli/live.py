"""``inspector live``: stream one request and watch it in the TUI as it arrives."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, cast

from ..live.options import add_live_arguments
from .record import open_feed, report

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
    feed = open_feed(args)
    if isinstance(feed, int):
        return feed
    from ..tui import run_app  # Textual loads only when the TUI is used

    try:
        run_app(cast("Feed", feed))  # (a feed with history: its trace is a Trace)
    finally:
        # Quitting mid-stream cancels the feed; make sure the capture says so.
        feed.settle_cancelled()
    return report(feed, feed.trace)
