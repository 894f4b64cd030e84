"""``inspector open [PATH]``: the TUI on a capture, a folder, or the bundled library.

``inspector PATH`` and a bare ``inspector`` are rewritten to this command.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..library import captures_dir
from ..terminal import escape_controls
from .common import EXIT_OK, EXIT_USAGE, add_provider_option, at_least, error, open_trace

_frame = at_least(int, -1, "a frame number")


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
    parser.add_argument(
        "path", nargs="?", help="a capture, a raw SSE file or a folder; - reads stdin"
    )
    add_provider_option(parser)
    parser.add_argument(
        "--frame",
        type=_frame,
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
            "bind a binding id to KEYS instead of its own, e.g. step.next=right,n,l "
            "(repeatable; over the keymap file ~/.config/llm-stream-inspector/keymap.toml; "
            "ids are listed in docs/tui.md; an unknown id or a key taken twice exits 2)"
        ),
    )
    parser.set_defaults(func=run)


def parse_keymap(items: list[str]) -> dict[str, str] | None:
    """The keymap file overridden by ``--keymap`` items, checked; None (said why) when unusable."""
    from ..tui.keymap import KeymapError, resolve_keymap

    try:
        return resolve_keymap(items)
    except KeymapError as exc:
        for problem in exc.problems:
            error(f"keymap: {escape_controls(problem)}")
        return None


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
    if args.path != "-" and Path(args.path).is_dir():
        return run_app(None, captures=Path(args.path), keymap=keymap)
    trace = open_trace(args.path, args.provider)
    if trace is None:
        return EXIT_USAGE
    if args.path == "-" and not reattach_terminal():
        error("stdin was read, but there is no terminal to show it on (/dev/tty cannot be opened)")
        return EXIT_USAGE
    run_app(trace, keymap=keymap, position=args.frame)
    return EXIT_OK


def reattach_terminal() -> bool:
    """Make the controlling terminal stdin again, after the stream was read from a pipe.

    The TUI reads keys from stdin; ``curl ... | inspector open -`` used it up.
    """
    try:
        fd = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        return False
    try:
        os.dup2(fd, 0)
    finally:
        os.close(fd)
    return True
