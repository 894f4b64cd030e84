"""Helpers shared by the subcommands: inputs, output of untrusted text, errors.

Everything a command prints that came from outside — file names, capture
and provider text, problems found in them — goes through :func:`say` (a
line on stdout) or :func:`error` (a line on stderr), which escape control
and invisible formatting characters (:mod:`inspector.terminal`). JSON Lines
output goes through :func:`write_jsonl`, which also ``\\u``-escapes what
orjson leaves raw, so ``jq -r`` cannot print a raw escape sequence either.

Imports of the pipeline happen inside the functions that use it, so that
``inspector --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ..library import expand_paths as expand_paths
from ..library import is_stream_file as is_stream_file
from ..terminal import escape_controls, escape_json

if TYPE_CHECKING:
    from ..core.trace import Trace

N = TypeVar("N", int, float)

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2

#: The names ``--provider`` accepts (kept here so parsers build without the core).
PROVIDER_NAMES: Final = (
    "openai-chat", "openai-responses", "anthropic", "gemini",
    "bedrock-converse", "ollama", "cohere", "openai-completions", "ai-sdk-ui",
    "bedrock-llama", "bedrock-titan", "bedrock-nova", "bedrock-cohere", "bedrock-mistral",
)  # fmt: skip


def add_provider_option(parser: Any) -> None:
    """``--provider NAME`` with the four known names."""
    parser.add_argument(
        "--provider",
        choices=PROVIDER_NAMES,
        help="the stream's protocol (default: from the capture header, else detected)",
    )


def add_batch_arguments(parser: Any, metavar: str, what: str) -> None:
    """A batch command's operands: ``PATH...`` (``what`` they may be) and ``-o DIR``."""
    parser.add_argument("paths", nargs="+", metavar=metavar, help=what)
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="where to write")


def add_reference_option(parser: Any) -> None:
    """``--reference``: normalize in the reference mode, the straightforward path only."""
    parser.add_argument(
        "--reference",
        action="store_true",
        help=(
            "normalize the straightforward way, frame by frame (no runs of plain events, "
            "no templates): slower, and the same output; to rule the fast paths out"
        ),
    )


def port_number(text: str) -> int:
    """An ``argparse`` type: a TCP port, 0 to 65535 (0: any free port)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 5 and int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {text!r}")
    return int(text)


def positive_int(text: str) -> int:
    """An ``argparse`` type: a whole number >= 1 in ASCII digits (not ``1_0`` or ``١٢``)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(text)


def at_least(kind: Callable[[str], N], least: int, what: str) -> Callable[[str], N]:
    """An ``argparse`` type: ``kind(text)`` (``int`` or ``float``) when it is at least
    ``least``, else the error "expected WHAT >= LEAST" (NaN is not at least anything)."""

    def parse(text: str) -> N:
        problem = argparse.ArgumentTypeError(f"expected {what} >= {least}, got {text!r}")
        try:
            value = kind(text)
        except ValueError:
            raise problem from None
        if not value >= least:
            raise problem
        return value

    return parse


def positive_size(text: str) -> int:
    """An ``argparse`` type: a size above 0 such as ``65536``, ``512K`` or ``1M``."""
    from ..live.options import parse_size  # the sizes record --max-bytes takes

    value = parse_size(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"expected a size above 0, got {text!r}")
    return value


def say(text: object) -> None:
    """Print one line of (possibly untrusted) text on stdout, escaped."""
    print(escape_controls(text))


def error(message: object) -> None:
    """Print a message for the user on stderr, escaped, prefixed with the tool's name;
    a credential in it (a URL's password, a key's shape) is shown masked."""
    from ..redact.messages import clean_message  # the secret rules load only for a message

    print(f"inspector: {escape_controls(clean_message(str(message)))}", file=sys.stderr)


def open_trace(
    path: str | Path, provider: str | None, *, as_received: bool = True, fast: bool = True
) -> Trace | None:
    """Load and normalize a file (``-``: stdin), or explain on stderr why not (None).

    Problems found while reading (a damaged line, a missing end record) are
    printed too; the trace keeps everything read before them. A command that
    shows no chunks or timing passes ``as_received=False`` (see
    :func:`inspector.session.load_trace`).
    """
    from ..session import load_trace

    try:
        trace = load_trace(path, provider, as_received=as_received, fast=fast)
    except ValueError as exc:  # UnreadableInput, ProviderUnknown
        error(exc)
        return None
    for problem in trace.problems:
        error(problem)
    return trace


def write_jsonl(records: Iterable[Any]) -> None:
    """Write records as JSON Lines to stdout, in one buffered pass, terminal-safe."""
    import orjson

    out = sys.stdout.buffer
    json_lines = getattr(records, "json_lines", None)  # a trace's EventLog: the same bytes
    if json_lines is not None:
        for lines in json_lines():  # escaping many lines at once is escaping each
            out.write(escape_json(lines))
        out.flush()
        return
    dumps = orjson.dumps
    for record in records:
        out.write(escape_json(dumps(record)))
        out.write(b"\n")
    out.flush()


@contextlib.contextmanager
def die_quietly_on_broken_pipe() -> Iterator[None]:
    """``inspector events x | head`` must not end in a traceback."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
