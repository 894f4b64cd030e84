"""``inspector open [PATH]``: the TUI on a capture, a folder, or the bundled library.

``inspector PATH`` and a bare ``inspector`` are rewritten to this command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..library import captures_dir
from .common import EXIT_OK, EXIT_USAGE, add_provider_option, error, open_trace


def register(sub: Any) -> None:
    """Add the ``open`` subcommand."""
    parser = sub.add_parser(
        "open",
        help="open the TUI on a capture, a folder of captures, or the bundled library",
        description=(
            "Step through a stream in the terminal: raw SSE frames, normalized events, "
            "block buffers and state transitions side by side. PATH is a capture (.jsonl) "
            "or raw SSE file; a folder opens a picker over the streams in it; without PATH "
            "the picker shows the bundled capture library. Press ? in the TUI for the keys."
        ),
    )
    parser.add_argument("path", nargs="?", help="a capture, a raw SSE file or a folder")
    add_provider_option(parser)
    parser.add_argument(
        "--frame",
        type=int,
        default=0,
        metavar="N",
        help="start with the cursor on frame N (-1: before the first frame; default 0)",
    )
    parser.add_argument(
        "--keymap",
        action="append",
        default=[],
        metavar="ID=KEYS",
        help=(
            "rebind a key by its binding id, e.g. step.next=j or step.previous=k,left "
            "(repeatable; ids are listed in docs/tui.md)"
        ),
    )
    parser.set_defaults(func=run)


def parse_keymap(items: list[str]) -> dict[str, str] | None:
    """``["step.next=j", ...]`` → ``{"step.next": "j"}``; None when malformed."""
    keymap: dict[str, str] = {}
    for item in items:
        binding_id, sep, keys = item.partition("=")
        if not sep or not binding_id.strip() or not keys.strip():
            error(f"--keymap {item!r}: expected ID=KEYS, e.g. step.next=j")
            return None
        keymap[binding_id.strip()] = keys.strip()
    return keymap


def run(args: argparse.Namespace) -> int:
    """Load what was asked for and run the TUI until the user quits."""
    # Textual is imported only by the command that needs it, so the headless
    # commands start fast.
    from ..tui import run_app

    keymap = parse_keymap(args.keymap)
    if keymap is None:
        return EXIT_USAGE
    if args.path is None:
        library = captures_dir()
        if library is None:
            error("no bundled capture library found; give a file: inspector open PATH")
            return EXIT_USAGE
        return run_app(None, captures=library, keymap=keymap)
    path = Path(args.path)
    if path.is_dir():
        return run_app(None, captures=path, keymap=keymap)
    trace = open_trace(path, args.provider)
    if trace is None:
        return EXIT_USAGE
    run_app(trace, keymap=keymap, position=args.frame)
    return EXIT_OK
