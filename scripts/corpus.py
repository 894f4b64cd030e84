"""Run ``import`` + ``check`` over a folder of recordings and print what they add up to.

Usage: python scripts/corpus.py FOLDER_OR_FILE... [--list]

Every file under the folders is read the way the CLI reads it: a VCR cassette
or a HAR file is imported (each streamed interaction becomes a capture, as
``inspector import`` writes it, into a temporary folder) and each capture is
then checked; any other file (a capture, a raw SSE body, NDJSON, a JSON
document) is checked as it is. The table says how many streams there were,
their terminal states, which provider each was detected as, every warning by
code and field path, the streams detection could not tell (with its
evidence), invariant violations and crashes. ``--list`` adds one line per
stream. The next dialect is found by running this over a new corpus, not by a
user: an ``unread_field`` row or a ``cannot tell`` row is the lead.

An interaction the importer leaves out as "not a streamed response" is not
dropped from the table: it is listed with why and what its body looks like.
When the body is a stream all the same (its content type or its first bytes
say SSE, NDJSON or an AWS event stream, or its URL is a streaming endpoint),
the body itself is checked and counted, marked "import skipped it" — that row
is a lead for the importer, the rest of its line for the adapters.

It uses only what ``inspector`` offered before contract v1.1 too (the
``PYTHONPATH`` decides which code runs), so the same corpus can be compared
across versions: ``PYTHONPATH=/path/to/old python scripts/corpus.py DIR``.
"""

from __future__ import annotations

import re
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIXES = (".sse", ".jsonl", ".json", ".ndjson", ".txt", ".yaml", ".yml", ".har", ".bin")
#: Content types of a streamed body (any one of them in the response's header).
STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/vnd.amazon.eventstream")
#: URL paths of endpoints that only stream.
STREAM_PATHS = ("converse-stream", "invoke-with-response-stream", ":streamgeneratecontent")
#: What ``describe_input`` says of a body that is a stream in another framing.
STREAM_SHAPES = ("NDJSON", "AWS event stream", "JSON array")
#: How much of a skipped body is looked at to say what it is.
SNIFF = 64 * 1024


@dataclass
class Stream:
    """One stream's result: where it came from and what checking it said."""

    source: str
    provider: str = ""
    outcome: str = ""
    warnings: list[str] = field(default_factory=list)
    violations: int = 0  # broken invariants in our output (a bug of ours)
    rejected: int = 0  # provider violations the machine refused
    cannot_tell: str = ""
    crash: str = ""
    skipped: str = ""  # import left it out: why, and what its body is
    missed: bool = False  # ... though its body is a stream (checked directly)


def files_under(paths: list[str]) -> Iterator[Path]:
    """Every recording under ``paths`` (folders searched, sorted; goldens skipped)."""
    for name in paths:
        root = Path(name)
        candidates = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in candidates:
            golden = path.name.endswith(".events.jsonl")
            if path.is_file() and path.suffix.lower() in SUFFIXES and not golden:
                yield path


def check_one(path: Path, label: str) -> Stream:
    """Normalize one capture or raw body; never raises."""
    from inspector.core.invariants import check_invariants
    from inspector.session import ProviderUnknown, load_trace

    stream = Stream(label)
    try:
        trace = load_trace(path, as_received=False)
    except ProviderUnknown as exc:
        stream.cannot_tell = str(exc).split("cannot tell which provider this stream is from: ")[-1]
        return stream
    except ValueError as exc:
        stream.cannot_tell = f"unreadable: {exc}"
        return stream
    except Exception:  # a crash is what this runner is for finding
        stream.crash = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return stream
    stream.provider = trace.provider
    stream.outcome = trace.outcome
    stream.violations = len(check_invariants(trace.events))
    stream.rejected = len(trace.violations)
    for event in trace.events:
        if event["type"] == "stream.warning":
            stream.warnings.append(warning_key(event))
    return stream


def warning_key(event: dict[str, Any]) -> str:
    """A warning's row: its code and path, else its code and message (frame number cut)."""
    if event.get("path"):
        return f"{event['code']} {event['path']}"
    message = re.sub(r"^frame \d+: ", "", str(event.get("message", "")))
    return f"{event['code']} ({message[:80]})" if message else str(event["code"])


def clean(text: str) -> str:
    """Text from a recording made safe for a terminal (control characters escaped)."""
    try:
        from inspector.terminal import escape_controls
    except ImportError:  # (older code) the same idea, cruder
        return "".join(ch if ch.isprintable() or ch == "\n" else repr(ch)[1:-1] for ch in text)
    return escape_controls(text, multiline=True)


def is_cassette(path: Path) -> bool:
    """A VCR cassette or a HAR file (imported first), by its first bytes."""
    try:
        from inspector.interop.format_sniff import sniff_format
    except ImportError:  # (the module's name before the interop package was split)
        from inspector.interop.sniff import sniff_format  # type: ignore[no-redef]

    with path.open("rb") as handle:
        return sniff_format(handle.read(8192)) is not None


def streams_of(path: Path, scratch: Path) -> Iterator[Stream]:
    """The streams of one file: each imported interaction, or the file itself."""
    try:
        cassette = is_cassette(path)
    except OSError as exc:
        yield Stream(str(path), cannot_tell=f"unreadable: {exc}")
        return
    if not cassette:
        yield check_one(path, str(path))
        return
    from inspector.importer import import_files

    out = Path(tempfile.mkdtemp(dir=scratch))
    try:
        for outcome in import_files([path], out):
            if outcome.error is not None:
                yield Stream(str(path), cannot_tell=f"import failed: {outcome.error}")
                continue
            for problem in outcome.problems:
                yield Stream(str(path), cannot_tell=f"import: {problem}")
            for index, target, _rec in outcome.written:
                yield check_one(target, f"{path}#{index}")
            if outcome.skipped:
                yield from skipped_streams(path, outcome.skipped, out)
    except Exception:
        yield Stream(str(path), crash=traceback.format_exc(limit=3).strip().splitlines()[-1])


def exchanges_of(path: Path) -> list[Any]:
    """The interactions of a cassette or HAR file, as the importer reads them."""
    from inspector.interop.format_sniff import sniff_format
    from inspector.interop.har import read_har
    from inspector.interop.vcr import read_vcr

    data = path.read_bytes()
    fmt = sniff_format(data[:4096])
    return list(read_vcr(data, str(path)) if fmt == "vcr" else read_har(data, str(path)))


def body_kind(exchange: Any) -> tuple[str, bool]:
    """What a skipped interaction's body is, and whether it is a stream all the same."""
    from inspector.input_sniff import describe_input

    body = exchange.body or b""
    ctype = exchange.header("content-type").split(";")[0].strip().lower() or "no content type"
    url_path = exchange.url.split("?")[0].lower()
    said = describe_input(body[:SNIFF]) or "it could be SSE"
    said = said.split("; pass --provider")[0]
    streamed = (
        ctype in STREAM_TYPES
        or any(url_path.endswith(p) or p in url_path for p in STREAM_PATHS)
        or said == "it could be SSE"
        or any(shape in said for shape in STREAM_SHAPES)
    )
    return f"{ctype}, {len(body):,} bytes: {said}", streamed and bool(body)


def skipped_streams(path: Path, reasons: list[str], scratch: Path) -> Iterator[Stream]:
    """One row per interaction the importer left out; a streamed body is checked itself."""
    try:
        by_index = {ex.index: ex for ex in exchanges_of(path)}
    except (ImportError, ValueError, OSError):  # older code, or a file only import can read
        by_index = {}
    for reason in reasons:
        why = reason.removeprefix(f"{path}: ")
        match = re.search(r"(?:interaction|entry) (\d+) ", why)
        exchange = by_index.get(int(match.group(1))) if match else None
        label = f"{path}#{match.group(1)}" if match else str(path)
        if exchange is None:
            yield Stream(label, skipped=why)
            continue
        kind, streamed = body_kind(exchange)
        if not streamed:
            yield Stream(label, skipped=f"{why} ({kind})")
            continue
        body = scratch / f"skipped-{len(list(scratch.iterdir()))}.body"
        body.write_bytes(exchange.body)
        stream = check_one(body, label)
        stream.skipped, stream.missed = f"{why} ({kind})", True
        yield stream


def table(streams: list[Stream], listing: bool) -> str:
    """The report, as aligned plain text."""
    lines: list[str] = []
    left_out = [s for s in streams if s.skipped and not s.missed]
    streams = [s for s in streams if not (s.skipped and not s.missed)]
    read = [s for s in streams if s.outcome]
    untold = sum(1 for s in streams if s.cannot_tell)
    crashed = sum(1 for s in streams if s.crash)
    missed = [s for s in streams if s.missed]
    lines.append(
        f"streams: {len(streams)}  normalized: {len(read)}  cannot tell: {untold}  "
        f"crashes: {crashed}  invariant violations: {sum(s.violations for s in streams)}  "
        f"provider violations refused: {sum(s.rejected for s in streams)}  "
        f"import skipped a stream: {len(missed)}  not streamed: {len(left_out)}"
    )
    sections = [
        ("terminal states", Counter(s.outcome for s in read)),
        ("detections", Counter(s.provider or "cannot tell" for s in streams if not s.crash)),
        ("warnings by code and path (streams)", Counter(w for s in read for w in set(s.warnings))),
    ]
    for title, counts in sections:
        lines.append(f"\n{title}:")
        if not counts:
            lines.append("  (none)")
        for key, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count:5}  {key}")
    lines.append("\ncannot tell (evidence):")
    told = [s for s in streams if s.cannot_tell]
    lines.extend(f"  {s.source}: {s.cannot_tell}" for s in told)
    if not told:
        lines.append("  (none)")
    if missed:
        lines.append("\nimport skipped a stream (its body checked directly):")
        lines.extend(f"  {s.source}: {s.skipped}" for s in missed)
    if left_out:
        lines.append("\nnot streamed (left out by import):")
        lines.extend(f"  {s.source}: {s.skipped}" for s in left_out)
    crashes = [s for s in streams if s.crash]
    if crashes:
        lines.append("\ncrashes:")
        lines.extend(f"  {s.source}: {s.crash}" for s in crashes)
    if listing:
        lines.append("\nstreams:")
        for s in streams:
            what = s.outcome or ("cannot tell" if s.cannot_tell else "crash")
            note = " (import skipped it)" if s.missed else ""
            lines.append(
                f"  {s.source}: {s.provider or '-'} {what} warnings={len(s.warnings)}{note}"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    paths = [a for a in argv if a != "--list"]
    if not paths:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        streams = [s for path in files_under(paths) for s in streams_of(path, Path(scratch))]
    print(clean(table(streams, listing)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
