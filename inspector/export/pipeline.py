"""The export as the steps it runs: read → rewrite → verify → write.

For one capture or raw SSE file, :func:`export_capture`

1. **reads** the recording and normalizes it, keeping what the anonymized
   copy must match (:mod:`.layout`);
2. **rewrites** it (:mod:`.anonymizer`: the header, and the body byte for
   byte with :mod:`.rewrite`) and stages the anonymized capture
   (:mod:`.capture_file`, :mod:`.staging`);
3. **verifies** it: the staged capture is read back as any reader would and
   normalized, and its chunking, frames, transport end and event skeleton
   must equal the original's; then the golden events, the test module
   (:mod:`.pytest_file`) and the report (:mod:`.report`) are rendered, and
   every output is scanned for every secret removed (:mod:`.leaks`);
4. **writes**: only then are the staged files renamed into place.

A failure at any step raises :class:`~.options.ExportError` and leaves
nothing behind. Each step is a function below that takes what the one
before it returned; :func:`prepare` runs them in order, and the entry
points (:mod:`.api`) commit the staged files.

Memory: the original stream, its trace, the anonymized body and the
exported trace are each given up at the step that last needs them, so two
of them are never held at once beside the outputs (peak RSS stays under
four times the stream: docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import orjson

from ..capture import parse_recording, parse_recording_file
from ..core.adapters import PROVIDERS, UnknownProvider, adapter_for
from ..core.trace import Trace
from ..inputs import Recording
from ..library import STREAM_SUFFIXES
from ..redact.messages import clean_name
from ..session import guess_provider, join_chunks, trace_recording
from ..terminal import escape_controls, safe_path
from .anonymizer import anonymize_body, cut, key_of
from .capture_file import capture_pieces, read_back_records
from .layout import Layout, chunk_columns, difference, layout_of
from .leaks import ReadCapture, scan_outputs
from .ledger import Ledger
from .options import (
    TEXT_MODES,
    ExportError,
    ExportOptions,
)
from .pytest_file import pytest_file_name, render_pytest
from .report import build_report
from .skeleton import EventSummary, summarize
from .staging import Outputs

__all__ = ["Prepared", "base_name", "prepare"]

#: What :func:`prepare` gives back: the file names by role, the report, the
#: ledger, and the original and exported traces (None unless kept).
Prepared = tuple[dict[str, str], dict[str, Any], Ledger, Trace | None, Trace | None]

#: Events per piece of the events file as it is staged (about 40 KB of lines).
_EVENT_LINES_BATCH: Final = 256


def prepare(
    rec: Recording,
    options: ExportOptions,
    files: Outputs,
    *,
    keep_traces: bool,
    consume: bool = False,
    as_received: bool = False,
) -> Prepared:
    """Steps 1-3: ``files`` holds the outputs of ``rec``, verified (raises :class:`ExportError`).

    Without ``keep_traces`` each trace is freed once read — the original
    before the anonymized one is built, that one before the leak scan — so
    at most one is held at a time. With ``consume`` the caller gives ``rec``
    away: its chunks are dropped once anonymized. Step 4, writing, is the
    caller's :meth:`~.staging.Outputs.commit`. Returns the names of the files
    by role, the report, the ledger, and the two traces when kept.
    """
    plan = _plan(rec, options)
    original = _read(
        rec, plan.provider, keep_trace=keep_traces, consume=consume, as_received=as_received
    )
    staged = _rewrite(rec, plan, options, original, files, consume=consume)
    exported, summary, read_back = _verify(rec, plan, original, staged)
    ledger = staged.ledger
    del staged  # its chunks went to the exported trace
    report = _render(rec, plan, options, files, exported, summary, original.layout, ledger)
    assembled = summary.assembled
    del summary
    kept = exported if keep_traces else None
    kept_original = original.trace
    del exported, original  # all read, layout too: the leak scan needs only files and texts
    _scan_for_leaks(rec, files, ledger, assembled, read_back)
    return plan.names, report, ledger, kept_original, kept


class _Plan:
    """What the export of one recording is: its provider and the names of its files."""

    __slots__ = ("name", "names", "provider")

    def __init__(self, name: str, names: dict[str, str], provider: str) -> None:
        self.name = name
        self.names = names
        self.provider = provider


def _plan(rec: Recording, options: ExportOptions) -> _Plan:
    """Check that ``rec`` can be exported with ``options``, and name its outputs."""
    if options.text not in TEXT_MODES:
        raise ExportError(f"--text must be one of {', '.join(TEXT_MODES)}, not {options.text!r}")
    damage = [p for p in rec.problems if "no end record" not in p]
    if damage:
        raise ExportError(f"cannot export a damaged recording: {damage[0]}")
    provider = _provider(rec, options.provider)
    name = options.name or base_name(rec.path)
    suffix = ".jsonl" if rec.kind == "capture" else ".sse"
    names = {"capture": name + suffix, "events": name + ".events.jsonl"}
    if options.pytest:
        names["pytest"] = pytest_file_name(options.test_prefix + name)
    names["report"] = name + ".report.json"
    return _Plan(name, names, provider)


class _Original:
    """Step 1's result: what the anonymized copy must match, and how both are normalized."""

    __slots__ = ("as_received", "key", "layout", "trace")

    def __init__(self, layout: Layout, trace: Trace | None, as_received: bool, key: bytes) -> None:
        self.layout = layout
        self.trace = trace  # only when the caller keeps the traces
        self.as_received = as_received
        self.key = key  # the pseudonym key, read from the chunks as recorded


def _read(
    rec: Recording, provider: str, *, keep_trace: bool, consume: bool, as_received: bool
) -> _Original:
    """Step 1: normalize the original; its layout (and its trace, with ``keep_trace``).

    Both captures are normalized the same way: joined into large pieces
    (the decoder's fast paths), or chunk by chunk with ``as_received``.
    Joined is as strict: the decoder makes the same frames, spans and
    events for any chunking, both are cut at the same places (their chunk
    times and sizes are compared first), and a stream that went over a
    decoder bound — whose report depends on the chunking — is normalized as
    received on both sides. With ``consume`` the recording is the export's
    own: its chunks become the pieces the trace keeps.
    """
    columns = chunk_columns(rec)
    key = key_of(rec)
    joined_here = consume and not as_received
    if joined_here:
        join_chunks(rec)
    trace = trace_recording(rec, provider, as_received=as_received)
    if joined_here and trace.decoder_error is not None:
        # Over a decoder bound (reported where the chunking found it out): as received.
        rec.chunks = list(cut(rec.body, *columns))
        trace = trace_recording(rec, provider)
    as_received = as_received or trace.decoder_error is not None
    layout = layout_of(columns, trace, summarize(trace))
    # Without keep_trace the trace is freed here, before the anonymized one is built.
    return _Original(layout, trace if keep_trace else None, as_received, key)


class _Staged:
    """Step 2's result: the anonymized capture, staged, as a reader of the file reads it."""

    __slots__ = ("ledger", "parsed", "records")

    def __init__(self, parsed: Recording, records: bytes | None, ledger: Ledger) -> None:
        self.parsed = parsed
        self.records = records  # its lines that are not chunks, for the leak scan (or None)
        self.ledger = ledger


def _rewrite(
    rec: Recording,
    plan: _Plan,
    options: ExportOptions,
    original: _Original,
    files: Outputs,
    *,
    consume: bool,
) -> _Staged:
    """Step 2: anonymize ``rec``, stage the capture, and read it back as a reader would.

    The anonymized body is given up on return: what is staged (and, for a
    raw body, what was read back of it) is its only copy. With ``consume``
    the recording's chunks are dropped once anonymized.
    """
    body, header, end, ledger = anonymize_body(
        rec,
        mask_text=options.text == "mask",
        keep_request=options.keep_request,
        consume=consume,
        key=original.key,
    )
    name = plan.names["capture"]
    if rec.kind == "raw":
        parsed = parse_recording(body, name)
        if [data for _, data in parsed.chunks] == [body]:
            # The reader made its own copy of a raw body (the trace keeps it): one is enough.
            body = parsed.chunks[0][1]
        # Staged before it is normalized, so the rendering is not held beside the
        # trace (a refusal below discards it with the rest).
        files.add(name, body)
        return _Staged(parsed, None, ledger)
    # Cut back into chunks one at a time and written a piece at a time, then
    # read back as a reader of the file would: never the whole file in memory.
    layout = original.layout
    files.add(name, capture_pieces(header, cut(body, layout.chunk_times, layout.chunk_sizes), end))
    del body  # the staged file holds it now
    size = files.size(name)
    with files.open(name) as file:
        parsed = parse_recording_file(file, name, size)
        records = None if original.as_received else read_back_records(file, size, parsed)
    return _Staged(parsed, records, ledger)


def _verify(
    rec: Recording, plan: _Plan, original: _Original, staged: _Staged
) -> tuple[Trace, EventSummary, dict[str, ReadCapture]]:
    """Step 3: the staged capture normalized; it must normalize like the original.

    Returns its trace, the summary of its events (skeleton, counts, the
    texts the leak scan reads) and, when the capture was read back joined,
    what the leak scan reads of it (the trace's own blocks: no copy).
    """
    parsed = staged.parsed
    columns = chunk_columns(parsed)
    read_back: dict[str, ReadCapture] = {}
    if not original.as_received:
        join_chunks(parsed)  # each chunk let go of as joined: the trace keeps the pieces
        if staged.records is not None:
            # The same records and chunks as parsing the file again, which costs as much.
            chunks = [data for _, data in parsed.chunks]
            read_back[plan.names["capture"]] = ReadCapture(staged.records, chunks)
    # Each chunk let go of as it is fed: the trace keeps their bytes anyway.
    exported = trace_recording(parsed, plan.provider, consume=True)
    summary = summarize(exported, assemble=True)
    problem = difference(original.layout, layout_of(columns, exported, summary))
    if problem is not None:
        raise ExportError(
            f"{safe_path(rec.path)}: the anonymized capture does not normalize like the original "
            f"({escape_controls(problem)}); nothing was written"
        )
    return exported, summary, read_back


def _render(
    rec: Recording,
    plan: _Plan,
    options: ExportOptions,
    files: Outputs,
    exported: Trace,
    summary: EventSummary,
    layout: Layout,
    ledger: Ledger,
) -> dict[str, Any]:
    """Step 3, continued: stage the golden events, the test module and the report."""
    names = plan.names
    # Staged piece by piece, in pieces small enough to come from the heap and
    # be reused: with the command's fixed mmap threshold (.allocator) a piece
    # over 128 KiB is a fresh mapping each time (2048 events a piece faulted
    # in ~110,000 pages, a third of the export's page faults on a 30 MB stream).
    files.add(names["events"], exported.events.json_lines(_EVENT_LINES_BATCH))
    option_words = f"--text {options.text}" + (" --keep-request" if options.keep_request else "")
    if options.pytest:
        files.add(
            names["pytest"],
            render_pytest(
                name=options.test_prefix + plan.name,
                capture_file=names["capture"],
                events_file=names["events"],
                provider=plan.provider,
                state=exported.state,
                terminal=exported.terminal_event,
                options=option_words,
            ).encode(),
        )
    report = build_report(
        source=clean_name(Path(rec.path).name),  # a key in the name is not published
        provider=plan.provider,
        options={"text": options.text, "keep_request": options.keep_request},
        files=names,
        ledger=ledger,
        trace=exported,
        summary=summary,
        # The original's chunk times and sizes: verified equal to the anonymized capture's.
        chunk_times=layout.chunk_times,
        chunk_bytes=sum(layout.chunk_sizes),
        scanned_files=len(files) + 1,
    )
    files.add(names["report"], orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    return report


def _scan_for_leaks(
    rec: Recording,
    files: Outputs,
    ledger: Ledger,
    assembled: Any,
    read_back: dict[str, ReadCapture],
) -> None:
    """Step 3, last: every output scanned for every secret removed; a hit refuses the export."""
    leaks = scan_outputs(files, ledger.secrets, assembled, read_back, digests=ledger.digests)
    if leaks:
        raise ExportError(
            f"{safe_path(rec.path)}: a secret would still be in the output "
            f"({leaks[0]}); nothing was written"
        )


def _provider(rec: Recording, requested: str | None) -> str:
    provider = requested or guess_provider(rec)
    if provider is None:
        raise ExportError(
            f"{safe_path(rec.path)}: cannot tell which provider this stream is from; "
            f"pass --provider ({', '.join(PROVIDERS)})"
        )
    try:
        adapter_for(provider)
    except UnknownProvider as exc:
        raise ExportError(f"{safe_path(rec.path)}: {exc}") from exc
    except ImportError as exc:
        raise ExportError(
            f"{safe_path(rec.path)}: this version has no {provider} adapter yet, so the export "
            "cannot be verified"
        ) from exc
    return provider


def base_name(source: str) -> str:
    """The outputs' base name for an input file: its name without the stream suffix
    (anything in it shaped like a secret replaced: the outputs are meant to be shared)."""
    name = Path(source).name
    for suffix in STREAM_SUFFIXES:
        if name.endswith(suffix):
            return clean_name(name[: -len(suffix)])
    return clean_name(Path(name).stem) or "capture"
