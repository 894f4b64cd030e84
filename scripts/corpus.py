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

It uses only what ``inspector`` offered before contract v1.1 too (the
``PYTHONPATH`` decides which code runs), so the same corpus can be compared
across versions: ``PYTHONPATH=/path/to/old python scripts/corpus.py DIR``.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".sse", ".jsonl", ".json", ".ndjson", ".txt", ".yaml", ".yml", ".har", ".bin")


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
            path_ = event.get("path")
            stream.warnings.append(f"{event['code']} {path_}" if path_ else str(event["code"]))
    return stream


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
    try:
        from inspector.importer import import_files
    except ImportError:  # (where it lived before)
        from inspector.interop.importer import import_files  # type: ignore[no-redef]

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
    except Exception:
        yield Stream(str(path), crash=traceback.format_exc(limit=3).strip().splitlines()[-1])


def table(streams: list[Stream], listing: bool) -> str:
    """The report, as aligned plain text."""
    lines: list[str] = []
    read = [s for s in streams if s.outcome]
    untold = sum(1 for s in streams if s.cannot_tell)
    crashed = sum(1 for s in streams if s.crash)
    lines.append(
        f"streams: {len(streams)}  normalized: {len(read)}  cannot tell: {untold}  "
        f"crashes: {crashed}  invariant violations: {sum(s.violations for s in streams)}  "
        f"provider violations refused: {sum(s.rejected for s in streams)}"
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
    crashes = [s for s in streams if s.crash]
    if crashes:
        lines.append("\ncrashes:")
        lines.extend(f"  {s.source}: {s.crash}" for s in crashes)
    if listing:
        lines.append("\nstreams:")
        for s in streams:
            what = s.outcome or ("cannot tell" if s.cannot_tell else "crash")
            lines.append(f"  {s.source}: {s.provider or '-'} {what} warnings={len(s.warnings)}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    paths = [a for a in argv if a != "--list"]
    if not paths:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        streams = [s for path in files_under(paths) for s in streams_of(path, Path(scratch))]
    print(table(streams, listing))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
