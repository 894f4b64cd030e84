"""``inspector events PATH``: the normalized events as JSON Lines."""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    EXIT_OK,
    EXIT_USAGE,
    add_provider_option,
    add_reference_option,
    open_trace,
    write_jsonl,
)


def register(sub: Any) -> None:
    """Add the ``events`` subcommand."""
    parser = sub.add_parser(
        "events",
        help="print the normalized contract events as JSON Lines",
        description=(
            "Normalize a capture or raw SSE file and print its events, exactly the "
            "fields of the contract (docs/contract.md), one JSON object per line."
        ),
    )
    parser.add_argument("path", help="a capture (.jsonl) or raw SSE file; - reads stdin")
    add_provider_option(parser)
    add_reference_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the events; exit 2 when the file cannot be read or normalized."""
    # Events carry no times or chunk links: how the bytes arrived cannot change them.
    trace = open_trace(args.path, args.provider, as_received=False, fast=not args.reference)
    if trace is None:
        return EXIT_USAGE
    write_jsonl(trace.events)
    return EXIT_OK
