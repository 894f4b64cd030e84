"""The ``inspector`` command line: one module per subcommand.

Exit codes (every command): 0 success; 1 the command ran but found a problem
(``check``: a violation, a damaged capture or an unreadable file); 2 bad
usage, an unreadable input or an unknown provider; 130 interrupted by Ctrl+C.

Start-up is kept short by importing a subcommand's module only when that
subcommand is used: the table below gives each command's one-line help for
``inspector --help``, and the command's parser is filled in (its module
imported, its ``register`` run) the first time it parses. ``inspector check``
therefore never imports Textual, httpx, Starlette, uvicorn or Rich.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, Final, NoReturn

from ..terminal import escape_controls
from .common import EXIT_USAGE, die_quietly_on_broken_pipe

__all__ = ["COMMANDS", "build_parser", "main"]

#: Every subcommand, in the help's order, with its one-line help. The module
#: ``inspector.cli.<name>`` has ``register(subparsers)``, which adds the
#: parser (setting ``func(args) -> int``).
COMMAND_HELP: Final = {
    "open": "open the TUI on a capture, a folder of captures, or the bundled library",
    "frames": "print the decoded SSE frames as JSON Lines",
    "events": "print the normalized contract events as JSON Lines",
    "check": "normalize files and verify the contract's invariants",
    "live": "stream a request to a provider and watch it in the TUI, recording it",
    "record": "stream a request to a provider and record it, without the TUI",
    "serve": "serve captures as provider streaming endpoints, with faults on demand",
    "export": "anonymize captures and write them with their golden events",
    "proxy": "a recording reverse proxy: point an app's base URL at it, see and record its streams",
    "import": "turn VCR cassettes and HAR files into captures",
    "diff": "compare two streams by their normalized events",
    "harness": "replay captures to a client under stream mutations and judge it by the oracle",
    "shrink": "shrink a capture by delta debugging while a predicate still holds",
}
COMMANDS: tuple[str, ...] = tuple(COMMAND_HELP)
#: A command whose name cannot be a module name (``import`` is a keyword).
_MODULES: Final = {"import": "imports"}

# What a command's ``sub.add_parser(...)`` may set on the parser made for it.
_PARSER_SETTINGS = frozenset({"description", "epilog", "formatter_class", "usage"})


def _columns() -> int:
    """The terminal's width, found as ``shutil.get_terminal_size()`` finds it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (ValueError, OSError):
            columns = 0
    return columns or 80


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's help formatter, told the width argparse would find.

    Left to find it, every formatter - one is made for each argument added,
    help or not - imports shutil, and with it zlib, bz2 and lzma: ~2 ms of
    each command's start-up.
    """
    return argparse.HelpFormatter(prog, width=_columns() - 2)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose error messages cannot drive the terminal.

    argparse echoes the offending argument ("invalid choice: '...'"); an
    argument can hold ESC or a bidi override, so the message is escaped.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print usage and the escaped message on stderr; exit 2."""
        super().error(escape_controls(message))


class _CommandParser(_Parser):
    """A subcommand's parser, filled in by its module the first time it parses."""

    def __init__(self, *args: Any, command: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.command = command
        self.loaded = False

    def load(self) -> _CommandParser:
        """Import the command's module and let it add its arguments (once)."""
        if not self.loaded:
            self.loaded = True
            module = _MODULES.get(self.command, self.command)
            importlib.import_module(f"{__package__}.{module}").register(_Adopt(self))
        return self

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Load the command, then parse as usual."""
        self.load()
        return super().parse_known_args(args, namespace)


class _Adopt:
    """Stands in for the subparsers action in a module's ``register(sub)``.

    The parser already exists (made from the table); the module's
    ``add_parser`` call only completes it.
    """

    def __init__(self, parser: _CommandParser) -> None:
        self._parser = parser

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name != self._parser.command:
            raise ValueError(f"module {name!r} registered as {self._parser.command!r}")
        kwargs.pop("help", None)  # the table's help is the one shown
        unknown = set(kwargs) - _PARSER_SETTINGS
        if unknown:
            raise TypeError(f"add_parser({name!r}): unsupported {sorted(unknown)}")
        for key, value in kwargs.items():
            setattr(self._parser, key, value)
        return self._parser


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; each subcommand is loaded when it parses.

    ``only`` names the one subcommand the arguments start with: the others'
    parsers are left out (each costs ~0.2 ms of start-up). The top-level help
    lists every command, so only a parser without ``only`` prints it.
    """
    parser = _Parser(
        prog="inspector",
        description=(
            "A terminal debugger for LLM provider streams. Run with no arguments to browse "
            "the bundled captures, or give a capture / raw SSE file to open it."
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for name, help_text in COMMAND_HELP.items():
        if only is None or name == only:
            sub.add_parser(name, help=help_text, command=name)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    # `inspector PATH` means `inspector open PATH` (`-` is stdin); bare
    # `inspector` opens the picker.
    if not argv:
        return ["open"]
    first = argv[0]
    if first == "-" or (first not in COMMANDS and not first.startswith("-")):
        return ["open", *argv]
    return argv


def _never_fail_to_print() -> None:
    # A file name or model text the terminal's encoding cannot show is
    # printed as backslash escapes, never a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script and ``python -m inspector``."""
    _never_fail_to_print()
    args_list = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(args_list[0] if args_list[0] in COMMANDS else None)
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
