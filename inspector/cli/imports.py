"""``inspector import FILE... -o DIR``: VCR cassettes and HAR logs become captures.

The command is called ``import``; the module cannot be (``import`` is a
Python keyword), hence ``imports``.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, add_batch_arguments, error, say


def register(sub: Any) -> None:
    """Add the ``import`` subcommand."""
    parser = sub.add_parser(
        "import",
        help="turn VCR cassettes and HAR files into captures",
        description=(
            "Read VCR cassettes (vcrpy / pytest-recording YAML or JSON, including "
            "pydantic-ai's parsed_body form, !!binary, gzip and several interactions per "
            "file) and HAR 1.2 files (folders are searched, their layout kept), and write one "
            "capture per streamed response into DIR: "
            "NAME.jsonl, or NAME-N.jsonl when a file holds several (N is the interaction's "
            "place in the file); an existing file is never overwritten (the next free name is "
            "used, and said). The body's frames decide the provider and framing (SSE, NDJSON, a "
            "JSON array or a binary AWS event stream, as Bedrock sends); the request URL "
            "and body only where the frames do not contradict them. These "
            "formats keep the body but not its timing or chunking: the capture says so "
            '("timed": false). Non-streaming interactions are skipped and listed. '
            "inspector open/events/check/frames also read these files directly (the first "
            "streamed response). Exit 0 when every file was imported, 1 when a file could "
            "not be read or had nothing streamed, 2 on bad usage. A file named on the "
            "command line that is not a cassette or HAR file (a shell glob's stray) is "
            "passed over with a note."
        ),
    )
    add_batch_arguments(parser, "FILE", "cassettes, HAR files, or folders to search")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Import every file; print one line per capture written and per problem."""
    from ..importer import import_files
    from ..interop import InteropError
    from ..session import guess_provider
    from ..terminal import safe_path

    status = EXIT_OK
    written = 0
    strays = 0
    try:
        for outcome in import_files(args.paths, args.output):
            if outcome.stray is not None:
                say(outcome.stray)
                strays += 1
                continue
            if outcome.error is not None:
                error(outcome.error)
                status = EXIT_PROBLEM
                continue
            for line in outcome.skipped:
                say(f"skipped {line}")
            for line in outcome.problems:
                error(line)
                status = EXIT_PROBLEM
            if not outcome.written and not outcome.problems:
                error(f"{safe_path(outcome.source)}: no streamed response to import")
                status = EXIT_PROBLEM
            for wanted, placed in outcome.renamed:
                say(f"{wanted} exists; not overwritten: written as {placed}")
            for index, target, rec in outcome.written:
                written += 1
                provider = guess_provider(rec) or "provider unknown"
                timing = "timed" if (rec.header or {}).get("timed") else "untimed"
                say(f"{outcome.source}#{index} -> {target} ({provider}, {timing})")
    except InteropError as exc:
        error(exc)
        return EXIT_USAGE
    if strays and not written and status == EXIT_OK:
        error("nothing imported: no input was a VCR cassette or HAR file")
        status = EXIT_PROBLEM
    say(f"imported {written} stream(s) into {args.output}")
    return status
