"""Helpers shared by the subcommands: inputs, JSON Lines output, errors."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ..core.adapters import PROVIDERS
from ..core.trace import Trace
from ..library import expand_paths as expand_paths
from ..library import is_stream_file as is_stream_file
from ..session import ProviderUnknown, load_trace

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2


def add_provider_option(parser: Any) -> None:
    """``--provider NAME`` with the four known names."""
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="the stream's protocol (default: from the capture header, else detected)",
    )


def error(message: str) -> None:
    """Print a message for the user on stderr, prefixed with the tool's name."""
    print(f"inspector: {message}", file=sys.stderr)


def open_trace(path: str | Path, provider: str | None) -> Trace | None:
    """Load and normalize a file, or explain on stderr why not (None)."""
    if not Path(path).exists():
        error(f"{path}: no such file")
        return None
    try:
        trace = load_trace(path, provider)
    except ProviderUnknown as exc:
        error(str(exc))
        return None
    for problem in trace.problems:
        error(problem)
    return trace


def write_jsonl(records: Iterable[Any]) -> None:
    """Write records as JSON Lines to stdout, in one buffered pass."""
    out = sys.stdout.buffer
    dumps = orjson.dumps
    for record in records:
        out.write(dumps(record))
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
