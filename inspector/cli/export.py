"""``inspector export PATH... -o DIR``: anonymized captures ready for a test suite."""

from __future__ import annotations

import argparse
import os
import stat
from typing import Any

from ..terminal import escape_controls, safe_path
from .common import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    add_batch_arguments,
    add_provider_option,
    error,
)

#: ``--text`` choices: export.TEXT_MODES, spelled here so that ``export --help``
#: does not import the exporter (a test keeps the two equal).
TEXT_CHOICES = ("keep", "mask")


def register(sub: Any) -> None:
    """Add the ``export`` subcommand."""
    parser = sub.add_parser(
        "export",
        help="anonymize captures and write them with their golden events",
        description=(
            "For each capture or raw SSE file (directories are searched), write into DIR "
            "the anonymized capture (same format, timing and chunking), its golden "
            "NAME.events.jsonl (what `inspector events` prints for it), NAME.report.json "
            "(what was removed and kept — never the values) and, with --pytest, a "
            "ready-to-run test_NAME.py. Secrets, e-mail addresses and the request's prompt "
            "are always removed, ids pseudonymized. Every export is verified: the "
            "anonymized capture must normalize to the same skeleton, and no removed secret "
            "may remain in any output. Exit 0 when every file was exported, 1 when one "
            "failed verification or could not be read, 2 on bad usage."
        ),
    )
    add_batch_arguments(parser, "PATH", "captures, raw SSE files or directories")
    parser.add_argument(
        "--text",
        choices=TEXT_CHOICES,
        default="keep",
        help="keep the model's text, or mask it and tool-argument values character for "
        "character (letters -> x, digits -> 0); default: keep",
    )
    parser.add_argument("--name", help="base name of the outputs (one input only)")
    parser.add_argument("--pytest", action="store_true", help="also write test_NAME.py")
    parser.add_argument(
        "--keep-request",
        action="store_true",
        help="keep the recorded request's prompt (secrets are removed anyway)",
    )
    add_provider_option(parser)
    parser.add_argument(
        "--format",
        choices=("capture", "vcr", "har"),
        default="capture",
        help="also write the anonymized exchange as a VCR cassette (NAME.yaml, replayable by "
        "vcrpy / pytest-recording) or a HAR 1.2 log (NAME.har); default: capture only",
    )
    parser.set_defaults(func=run)


#: Inputs from this size on (or a directory) make the command return large
#: buffers to the system as soon as they are freed (:mod:`inspector.export.allocator`).
LARGE_INPUT_BYTES = 4 << 20


def _large_input(paths: list[str]) -> bool:
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue  # export_paths says why it cannot be read
        if stat.S_ISDIR(info.st_mode) or info.st_size >= LARGE_INPUT_BYTES:
            return True
    return False


def run(args: argparse.Namespace) -> int:
    """Export every input; print each report, or why it failed."""
    from ..collector import collector_paused

    with collector_paused():  # the exporter's import makes tens of thousands of objects
        from ..export import ExportError, ExportOptions, export_paths

    if _large_input(args.paths):
        from ..export.allocator import unmap_large_buffers

        unmap_large_buffers()

    options = ExportOptions(
        text=args.text,
        keep_request=args.keep_request,
        pytest=args.pytest,
        name=args.name,
        provider=args.provider,
    )
    status = EXIT_OK
    exported = total = 0
    try:
        for outcome in export_paths(args.paths, args.output, options):
            total += 1
            if outcome.result is not None:
                exported += 1
                # File names and tool names come from outside: one line each, escaped.
                lines = (escape_controls(line) for line in outcome.result.summary())
                print("\n".join(lines), flush=True)
                if args.format != "capture":
                    status = max(status, _write_format(outcome.result, args.format))
            else:
                error(
                    escape_controls(outcome.error or f"{safe_path(outcome.source)}: not exported")
                )
                status = EXIT_PROBLEM
    except ExportError as exc:
        error(escape_controls(str(exc)))
        return EXIT_USAGE
    if total == 0:
        error("no stream files found")
        return EXIT_USAGE
    print(f"exported {exported} of {total} files into {safe_path(args.output)}")
    return status


def _write_format(result: Any, fmt: str) -> int:
    """The exported (anonymized, verified) capture also written as a cassette / HAR log."""
    from ..export.foreign import write_exported

    try:
        target, notes = write_exported(result.files["capture"], fmt, result.report.get("provider"))
    except (OSError, ValueError) as exc:
        error(f"{safe_path(result.files['capture'])}: could not write the {fmt} file: {exc}")
        return EXIT_PROBLEM
    print(f"  {fmt}: {safe_path(target)} ({'; '.join(notes)})", flush=True)
    return EXIT_OK
