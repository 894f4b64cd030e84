"""The ``inspector`` command line: one module per subcommand.

Exit codes (every command): 0 success; 1 the command ran but found a problem
(``check``: a violation or an unreadable file); 2 bad usage, an unreadable
input or an unknown provider; 130 interrupted by Ctrl+C.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from .common import EXIT_USAGE, die_quietly_on_broken_pipe

__all__ = ["COMMANDS", "build_parser", "main"]

# Every module of this package with ``register(subparsers)`` is a subcommand
# (the parser it adds sets ``func(args) -> int``); this order is the help's.
_ORDER = ("open", "frames", "events", "check", "live", "record", "serve", "export")


def _command_modules() -> tuple[str, ...]:
    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name != "common"]
    return tuple(sorted(names, key=lambda n: (_ORDER.index(n) if n in _ORDER else 99, n)))


COMMANDS: tuple[str, ...] = _command_modules()


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="inspector",
        description=(
            "A terminal debugger for LLM provider streams. Run with no arguments to browse "
            "the bundled captures, or give a capture / raw SSE file to open it."
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    # `inspector PATH` means `inspector open PATH`; bare `inspector` opens the picker.
    if "open" in COMMANDS:
        if not argv:
            return ["open"]
        if argv[0] not in COMMANDS and not argv[0].startswith("-"):
            return ["open", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script and ``python -m inspector``."""
    args_list = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        with die_quietly_on_broken_pipe():
            return int(args.func(args))
    except KeyboardInterrupt:
        print("inspector: interrupted", file=sys.stderr)
        return 130
