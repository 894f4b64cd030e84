"""Record → anonymize → export: a capture made safe to commit to a test suite.

:func:`export_capture` is the one entry point (the CLI's ``inspector export``
and the TUI's export dialog both call it). For one capture or raw SSE file it

1. anonymizes the recording (:func:`anonymize`): the header record
   (:mod:`.request`) and the stream body byte for byte (:mod:`.rewrite`) —
   same chunks, same timing, same frame boundaries;
2. normalizes the original and the anonymized capture and compares their
   skeletons (:mod:`.skeleton`) and their chunking: any difference aborts;
3. renders the outputs — the anonymized capture, its golden
   ``.events.jsonl`` (exactly what ``inspector events`` prints for it), with
   ``pytest=True`` a test module (:mod:`.pytest_file`), and the redaction
   report (:mod:`.report`);
4. scans every output for every secret it removed (:mod:`.leaks`): a hit
   aborts;
5. only then writes the files.

Problems are raised as :class:`ExportError` with a message meant for the
user; nothing is written when an export fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import operator
import os
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import orjson

from ..capture import (
    Recording,
    chunk_record,
    load_recording,
    parse_recording,
    parse_recording_file,
)
from ..collector import collector_paused
from ..core.adapters import PROVIDERS, UnknownProvider, adapter_for
from ..core.digest import blake2b  # hashlib's BLAKE2b, without loading OpenSSL
from ..core.trace import Trace, TransportEnd
from ..library import STREAM_SUFFIXES, iter_stream_files
from ..session import guess_provider, join_chunks, trace_recording
from ..terminal import escape_controls, safe_path
from .leaks import ReadCapture, scan_outputs
from .ledger import Context, Ledger
from .output import UnsafeOutput, check_output_dir, commit_file, stage_file
from .pseudonyms import Pseudonymizer
from .pytest_file import pytest_file_name, render_pytest
from .report import build_report, report_lines
from .request import anonymize_header, scrub_text
from .rewrite import RewriteError, rewrite_owned
from .skeleton import EventSummary, Step, first_difference, summarize

__all__ = [
    "TEXT_MODES",
    "ExportError",
    "ExportOptions",
    "ExportOutcome",
    "ExportResult",
    "PreparedExport",
    "anonymize",
    "export_capture",
    "export_paths",
    "export_recording",
    "export_trace",
    "prepare_export",
    "render_capture",
    "report_lines",
]

TEXT_MODES: Final = ("keep", "mask")


class ExportError(Exception):
    """An export that could not be done or did not verify; the message says why."""


@dataclass(frozen=True)
class ExportOptions:
    """How to export.

    ``text``: ``"keep"`` the model's text, or ``"mask"`` it (and string values
    of tool arguments) character for character. ``keep_request`` keeps the
    recorded request's prompt (secrets are removed regardless). ``pytest``
    also writes a test module. ``name`` is the base name of the outputs
    (default: the input's). ``provider`` overrides detection.
    ``test_prefix`` goes in front of the test module's name: pytest needs
    unique module names across a tree, and a library exported directory by
    directory has ``text-simple`` in every provider's folder.
    """

    text: str = "keep"
    keep_request: bool = False
    pytest: bool = False
    name: str | None = None
    provider: str | None = None
    test_prefix: str = ""


@dataclass(frozen=True)
class ExportResult:
    """A finished export: the files written (by role) and the report."""

    source: str
    files: dict[str, Path]
    report: dict[str, Any]

    def summary(self) -> list[str]:
        """The report as a few lines of text."""
        return report_lines(self.report)


@dataclass(frozen=True)
class ExportOutcome:
    """One input of :func:`export_paths`: its result, or why it failed."""

    source: Path
    result: ExportResult | None = None
    error: str | None = None


@dataclass
class Anonymized:
    """An anonymized recording and the ledger of what was done to it."""

    recording: Recording
    ledger: Ledger = field(default_factory=Ledger)


def _key_of(rec: Recording) -> bytes:
    """The pseudonym key: a digest of the whole original recording."""
    digest = blake2b(digest_size=32)
    digest.update(orjson.dumps(rec.header, option=orjson.OPT_SORT_KEYS))
    for time, data in rec.chunks:
        digest.update(repr(time).encode())
        digest.update(data)
    return digest.digest()


def _starts_json(chunks: Iterable[tuple[float, bytes]]) -> bool:
    """Whether the body's first byte past white space opens a JSON document (an error body)."""
    for _, data in chunks:
        stripped = data.lstrip()
        if stripped:
            return stripped[:1] in (b"{", b"[")
    return False


def _anonymize_body(
    rec: Recording,
    *,
    mask_text: bool,
    keep_request: bool,
    consume: bool = False,
    key: bytes | None = None,
) -> tuple[bytes, dict[str, Any] | None, TransportEnd | None, Ledger]:
    """The anonymized body (all chunks joined), header and transport end, and the ledger.

    With ``consume`` the recording's chunks are dropped once joined.
    ``key``: the pseudonym key, when it was taken before the chunks were
    joined into pieces (it reads the chunks as recorded).
    """
    key = _key_of(rec) if key is None else key
    ctx = Context(Pseudonymizer(key), mask_text=mask_text, keep_request=keep_request)
    whole_json = _starts_json(rec.chunks)
    holder = [rec.body]
    if consume:
        rec.chunks = []  # the body in ``holder`` is then its only copy
    try:
        # The rewriter takes the body out of the holder and drops it once read.
        new_body = rewrite_owned(holder, ctx, whole_json=whole_json)
    except RewriteError as exc:
        raise ExportError(
            f"{safe_path(rec.path)}: internal error while rewriting the stream: {exc}"
        ) from exc
    header = anonymize_header(rec.header, ctx) if rec.header is not None else None
    end = rec.end
    if end is not None and end.error:
        end = TransportEnd(end.reason, end.time, scrub_text(end.error, ctx))
    return new_body, header, end, ctx.ledger


def _cut(
    body: bytes, times: Iterable[float], sizes: Iterable[int]
) -> Iterator[tuple[float, bytes]]:
    """``body`` cut back into chunks of these times and sizes, one at a time."""
    at = 0
    for time, size in zip(times, sizes, strict=True):
        yield time, body[at : at + size]
        at += size


def anonymize(rec: Recording, *, mask_text: bool = False, keep_request: bool = False) -> Anonymized:
    """The anonymized copy of a recording (no I/O, no verification)."""
    body, header, end, ledger = _anonymize_body(rec, mask_text=mask_text, keep_request=keep_request)
    chunks = list(_cut(body, (t for t, _ in rec.chunks), (len(d) for _, d in rec.chunks)))
    out = Recording(rec.path, rec.kind, header, chunks, end, list(rec.problems))
    return Anonymized(out, ledger)


def render_capture(rec: Recording) -> bytes:
    """A recording in its own format: capture JSON Lines, or the raw body."""
    if rec.kind == "raw":
        return rec.body
    return _capture_lines(rec.header, rec.chunks, rec.end)


def _capture_lines(
    header: dict[str, Any] | None, chunks: Iterable[tuple[float, bytes]], end: TransportEnd | None
) -> bytes:
    """The JSON Lines of a capture with this header, chunks and end."""
    return b"".join(_capture_pieces(header, chunks, end))


#: Chunks per piece :func:`_capture_pieces` hands out (~70 KB of lines for a delta a chunk),
#: and the chunk bytes at which a piece ends sooner: large chunks come a few at a time, so
#: a piece (and the chunks held for it) stays small whatever the chunking.
_CAPTURE_BATCH: Final = 256
_CAPTURE_BATCH_BYTES: Final = 64 * 1024
# A text chunk's record, orjson's bytes for it around its time's and its text's.
_CHUNK_OPEN: Final = b'{"type":"chunk","t":'
_CHUNK_TEXT: Final = b',"text":'
_CHUNK_CLOSE: Final = b"}\n"


def _capture_pieces(
    header: dict[str, Any] | None, chunks: Iterable[tuple[float, bytes]], end: TransportEnd | None
) -> Iterator[bytes]:
    """:func:`_capture_lines` in pieces of whole lines (:func:`_batches` of chunks).

    Written to disk as they come, a capture is never held whole beside the
    body it is cut from. A piece (under glibc's mmap threshold, nearly
    always) comes from the heap and its memory serves the next.
    """
    dumps = orjson.dumps
    yield dumps(header) + b"\n"
    for batch in _batches(chunks):
        times, datas = zip(*batch, strict=True)
        try:
            texts = list(map(bytes.decode, datas))  # UTF-8, strict: as chunk_record
        except (UnicodeDecodeError, TypeError):  # a b64 chunk (or not bytes): one at a time
            yield b"".join(_chunk_lines(batch))
            continue
        # chunk_record's record (same keys, same order), with exactly the recorded
        # time, not re-rounded: orjson writes a value the same wherever it is, so
        # each line is the dict's dumps, without a dict or a call made a chunk.
        yield b"".join(
            itertools.chain.from_iterable(
                zip(
                    itertools.repeat(_CHUNK_OPEN),
                    map(dumps, times),
                    itertools.repeat(_CHUNK_TEXT),
                    map(dumps, texts),
                    itertools.repeat(_CHUNK_CLOSE),
                )
            )
        )
    if end is not None:
        yield dumps({"type": "end", "t": end.time, "reason": end.reason, "error": end.error}) + (
            b"\n"
        )


def _batches(chunks: Iterable[tuple[float, bytes]]) -> Iterator[list[tuple[float, bytes]]]:
    """``chunks`` in lists of :data:`_CAPTURE_BATCH`, or fewer once they reach
    :data:`_CAPTURE_BATCH_BYTES` bytes."""
    batch: list[tuple[float, bytes]] = []
    size = 0
    for chunk in chunks:
        batch.append(chunk)
        size += len(chunk[1])
        if len(batch) == _CAPTURE_BATCH or size >= _CAPTURE_BATCH_BYTES:
            yield batch
            batch = []
            size = 0
    if batch:
        yield batch


def _chunk_lines(chunks: Iterable[tuple[float, bytes]]) -> Iterator[bytes]:
    """The record line of each chunk: :func:`chunk_record`'s, with exactly the recorded time."""
    for time, data in chunks:
        try:
            record = {"type": "chunk", "t": time, "text": data.decode("utf-8")}
        except UnicodeDecodeError:
            record = chunk_record(time, data)
            record["t"] = time
        yield orjson.dumps(record) + b"\n"


#: Events per piece of the events file as it is staged (about 40 KB of lines).
_EVENT_LINES_BATCH: Final = 256


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


#: How much of a capture is read at a time when its last line is looked for.
_TAIL_READ: Final = 1 << 16


def _read_back_records(file: IO[bytes], size: int, parsed: Recording) -> bytes | None:
    """A capture's lines that are not chunks, as the leak scan joins them; None to let it parse.

    For the capture this export wrote, just read back by the capture reader
    (``parsed``, from ``file`` of ``size`` bytes): when that found no
    problem and at least one chunk, its lines are the header, the chunk
    records (their bytes are ``parsed``'s chunks) and the end record, if
    any — the first and last lines of the file, read here and checked to
    be those records. The leak scan's own parsing would find the same.
    """
    if parsed.kind != "capture" or parsed.problems or not parsed.chunks:
        return None
    file.seek(0)
    lines = [file.readline(size)]
    if parsed.end is not None:
        lines.append(_last_line(file, size))
    for line, kind in zip(lines, ("header", "end"), strict=False):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not (line.endswith(b"\n") and type(record) is dict and record.get("type") == kind):
            return None
    records = b"\n".join(line[:-1] for line in lines)
    return None if b"\r" in records else records


def _last_line(file: IO[bytes], size: int) -> bytes:
    """The last line of ``file`` (``size`` bytes) with its LF, read backwards a block at a time."""
    parts = []
    end = size - 1  # the last byte: the line's own LF, if it has one
    while end > 0:
        start = max(0, end - _TAIL_READ)
        file.seek(start)
        block = file.read(end - start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            parts.append(block[cut + 1 :])
            break
        parts.append(block)
        end = start
    file.seek(max(0, size - 1))
    parts.reverse()
    return b"".join(parts) + file.read(1)


class _Layout:
    """What anonymizing must keep of a stream besides its skeleton, held compactly.

    Chunk times and sizes, the trace's chunk count and bytes, every frame's
    span and chunks (start, end, first and last chunk: four columns), and the
    transport's end — in flat arrays, so the original's can be kept while its
    trace is freed, and two compared in C.
    """

    # A plain class, not a NamedTuple: at import that evaluates (compiles) every
    # field's annotation, a few milliseconds of the command's start-up in all.
    __slots__ = ("chunk_sizes", "chunk_times", "chunk_totals", "end", "frames", "skeleton")

    def __init__(
        self,
        chunk_times: array[float],
        chunk_sizes: array[int],
        chunk_totals: tuple[int, int],
        frames: tuple[array[int], array[int], array[int], array[int]],
        end: tuple[str | None, float | None],
        skeleton: list[Step],
    ) -> None:
        self.chunk_times = chunk_times
        self.chunk_sizes = chunk_sizes
        self.chunk_totals = chunk_totals
        self.frames = frames
        self.end = end
        self.skeleton = skeleton


def _chunk_columns(rec: Recording) -> tuple[array[float], array[int]]:
    """The times and sizes of a recording's chunks."""
    chunks = rec.chunks
    return (
        array("d", map(operator.itemgetter(0), chunks)),
        array("q", map(len, map(operator.itemgetter(1), chunks))),
    )


def _layout(
    columns: tuple[array[float], array[int]], trace: Trace, summary: EventSummary
) -> _Layout:
    """The layout of ``trace`` (``summary``: its events'), normalized from chunk ``columns``."""
    ended = trace.transport_end
    return _Layout(
        *columns,
        (len(trace.chunks), trace.chunks.stored_bytes),
        trace.frames.span_columns(),  # the stored columns, copied: nothing decoded
        (ended.reason, ended.time) if ended is not None else (None, None),
        summary.steps,
    )


def _difference(original: _Layout, exported: _Layout) -> str | None:
    """How the anonymized stream's layout differs from the original's; None if it does not."""
    if (original.chunk_times, original.chunk_sizes, original.chunk_totals) != (
        exported.chunk_times,
        exported.chunk_sizes,
        exported.chunk_totals,
    ):
        return "the chunks (count, sizes or times) differ"
    if original.frames != exported.frames:
        return "the SSE frame boundaries differ"
    if original.end != exported.end:
        return "the transport end differs"
    return first_difference(original.skeleton, exported.skeleton)


def _base_name(source: str) -> str:
    name = Path(source).name
    for suffix in STREAM_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(name).stem or "capture"


@dataclass(frozen=True)
class PreparedExport:
    """An export verified in memory: the files it would write, by name.

    ``names`` maps roles (``capture``, ``events``, ``pytest``, ``report``) to
    file names; ``files`` maps file names to their bytes.
    """

    names: dict[str, str]
    files: dict[str, bytes]
    report: dict[str, Any]
    original: Trace
    exported: Trace
    ledger: Ledger


class _Outputs(Mapping[str, bytes]):
    """An export's files by name, as they are rendered: in memory, or staged on disk.

    Without a ``directory`` they are kept as bytes (:func:`prepare_export`).
    With one, each is written as soon as it is rendered to a fresh hidden
    temporary file there (:func:`.output.stage_file`; the folder is made on
    the first) and read back only while the leak scan reads it, so the
    outputs are never all in memory at once; :meth:`commit` renames them
    into place once everything verified, :meth:`discard` removes them — and
    the folders the export made — when it did not.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self.data: dict[str, bytes] = {}
        self.staged: dict[str, Path] = {}
        self.made: list[Path] = []  # folders this export created, deepest first

    def add(self, name: str, data: bytes | Iterable[bytes]) -> None:
        """Record (or stage) one output."""
        if self.directory is None:
            self.data[name] = data if isinstance(data, bytes) else b"".join(data)
            return
        if not self.staged:
            self.made = _make_output_dir(self.directory)
        self.staged[name] = stage_file(self.directory, name, data)

    def __getitem__(self, name: str) -> bytes:
        if self.directory is None:
            return self.data[name]
        return self.staged[name].read_bytes()

    def open(self, name: str) -> IO[bytes]:
        """One output, opened for reading (from memory, or its staged file)."""
        if self.directory is None:
            return io.BytesIO(self.data[name])
        return self.staged[name].open("rb")

    def size(self, name: str) -> int:
        """One output's size in bytes."""
        if self.directory is None:
            return len(self.data[name])
        return self.staged[name].stat().st_size

    def __iter__(self) -> Iterator[str]:
        return iter(self.data if self.directory is None else self.staged)

    def __len__(self) -> int:
        return len(self.data if self.directory is None else self.staged)

    def commit(self) -> dict[str, Path]:
        """Rename every staged file into place, in the order they were made."""
        assert self.directory is not None
        written = {}
        for name, temp in list(self.staged.items()):
            written[name] = commit_file(temp, self.directory, name)
            del self.staged[name]
        return written

    def discard(self) -> None:
        """Remove the staged files, and the folders made for them if they are empty."""
        for temp in self.staged.values():
            with contextlib.suppress(OSError):
                temp.unlink()
        self.staged = {}
        for folder in self.made:
            try:
                folder.rmdir()
            except OSError:
                break  # not empty, or not ours to remove: neither are its parents


def _make_output_dir(out: Path) -> list[Path]:
    """Make ``out`` (refusing another user's link on the way); the folders made, deepest first."""
    check_output_dir(out)
    made = []
    folder = Path(os.path.abspath(out))
    while not os.path.lexists(folder) and folder != folder.parent:
        made.append(folder)
        folder = folder.parent
    out.mkdir(parents=True, exist_ok=True)
    check_output_dir(out)  # a link planted while the folders were made
    return made


def prepare_export(rec: Recording, options: ExportOptions = ExportOptions()) -> PreparedExport:
    """Anonymize and verify a recording, and render its outputs — without writing.

    Raises :class:`ExportError` for bad input, a skeleton or chunking
    difference, or a removed secret found again in an output.
    """
    outputs = _Outputs()
    done = _prepare(rec, options, outputs, keep_traces=True, as_received=True)
    assert done.original is not None and done.exported is not None
    return PreparedExport(
        done.names, outputs.data, done.report, done.original, done.exported, done.ledger
    )


class _Rendered:
    """What :func:`_prepare` made besides its files; the traces only when asked to keep them."""

    __slots__ = ("exported", "ledger", "names", "original", "report")

    def __init__(
        self,
        names: dict[str, str],
        report: dict[str, Any],
        ledger: Ledger,
        original: Trace | None,
        exported: Trace | None,
    ) -> None:
        self.names = names
        self.report = report
        self.ledger = ledger
        self.original = original
        self.exported = exported


def _prepare(
    rec: Recording,
    options: ExportOptions,
    files: _Outputs,
    *,
    keep_traces: bool,
    consume: bool = False,
    as_received: bool = False,
) -> _Rendered:
    """:func:`prepare_export`, keeping the two traces only with ``keep_traces``.

    Both captures are normalized the same way: joined into large pieces
    (the decoder's fast paths), or chunk by chunk with ``as_received`` (the
    traces :func:`prepare_export` hands out). Joined is as strict: the
    decoder makes the same frames, spans and events for any chunking, both
    are cut at the same places (their chunk times and sizes are compared
    first), and a stream that went over a decoder bound — whose report
    depends on the chunking — is normalized as received on both sides.

    Without it each trace is freed as soon as it has been read — the
    original once its layout is known, before the anonymized one is built;
    that one before the leak scan — so at most one is held at a time.
    With ``consume`` the caller gives ``rec`` away: its chunks are dropped
    once anonymized, so the original stream is not held beside the outputs.
    The outputs go to ``files`` as they are rendered, after the skeleton
    and chunking verified.
    """
    if options.text not in TEXT_MODES:
        raise ExportError(f"--text must be one of {', '.join(TEXT_MODES)}, not {options.text!r}")
    damage = [p for p in rec.problems if "no end record" not in p]
    if damage:
        raise ExportError(f"cannot export a damaged recording: {damage[0]}")
    provider = _provider(rec, options.provider)
    name = options.name or _base_name(rec.path)
    suffix = ".jsonl" if rec.kind == "capture" else ".sse"
    names = {"capture": name + suffix, "events": name + ".events.jsonl"}
    if options.pytest:
        names["pytest"] = pytest_file_name(options.test_prefix + name)
    names["report"] = name + ".report.json"

    columns = _chunk_columns(rec)
    key = _key_of(rec)  # read from the chunks as recorded
    joined_here = consume and not as_received
    if joined_here:
        # The recording is ours: its chunks become the pieces the trace keeps,
        # and later the body, rather than being held beside both.
        join_chunks(rec)
    first = trace_recording(rec, provider, as_received=as_received)
    if joined_here and first.decoder_error is not None:
        # Over a decoder bound (reported where the chunking found it out): as received.
        rec.chunks = list(_cut(rec.body, *columns))
        first = trace_recording(rec, provider)
    as_received = as_received or first.decoder_error is not None
    before = _layout(columns, first, summarize(first))
    original = first if keep_traces else None
    del first  # without keep_traces, freed before the second trace is built
    # With consume, the original's chunks go once joined: their times and sizes are in ``before``.
    body, header, end, ledger = _anonymize_body(
        rec,
        mask_text=options.text == "mask",
        keep_request=options.keep_request,
        consume=consume,
        key=key,
    )
    records: bytes | None = None
    if rec.kind == "raw":
        parsed = parse_recording(body, names["capture"])
        if [data for _, data in parsed.chunks] == [body]:
            # The reader made its own copy of a raw body (the trace keeps it): one is enough.
            body = parsed.chunks[0][1]
        # Staged before it is normalized, so the rendering is not held beside the
        # trace (a refusal below discards it with the rest).
        files.add(names["capture"], body)
    else:
        # Cut back into chunks one at a time and written a piece at a time, then
        # read back as a reader of the file would: never the whole file in memory.
        chunks = _cut(body, before.chunk_times, before.chunk_sizes)
        files.add(names["capture"], _capture_pieces(header, chunks, end))
        del chunks
        size = files.size(names["capture"])
        with files.open(names["capture"]) as file:
            parsed = parse_recording_file(file, names["capture"], size)
            records = None if as_received else _read_back_records(file, size, parsed)
    del body, header, end
    columns = _chunk_columns(parsed)
    read_back = {}
    if not as_received:
        join_chunks(parsed)  # each chunk let go of as joined: the trace keeps the pieces
        if records is not None:
            # The leak scan reads the capture as just read back: the same records and
            # chunks as parsing the file again, which cost as much as reading it here.
            # The pieces are the trace's own blocks (no copy) until it is freed.
            read_back[names["capture"]] = ReadCapture(records, [data for _, data in parsed.chunks])
    # Each chunk let go of as it is fed: the trace keeps their bytes anyway.
    exported: Trace | None = trace_recording(parsed, provider, consume=True)
    assert exported is not None
    del parsed
    # One pass over its events: the skeleton, the report's counts, the texts the leak scan reads.
    summary = summarize(exported, assemble=True)
    problem = _difference(before, _layout(columns, exported, summary))
    del columns
    if problem is not None:
        raise ExportError(
            f"{safe_path(rec.path)}: the anonymized capture does not normalize like the original "
            f"({escape_controls(problem)}); nothing was written"
        )

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
                name=options.test_prefix + name,
                capture_file=names["capture"],
                events_file=names["events"],
                provider=provider,
                state=exported.state,
                terminal=exported.terminal_event,
                options=option_words,
            ).encode(),
        )
    report = build_report(
        source=Path(rec.path).name,
        provider=provider,
        options={"text": options.text, "keep_request": options.keep_request},
        files=names,
        ledger=ledger,
        trace=exported,
        summary=summary,
        # The original's chunk times and sizes: verified equal to the anonymized capture's.
        chunk_times=before.chunk_times,
        chunk_bytes=sum(before.chunk_sizes),
        scanned_files=len(files) + 1,
    )
    files.add(names["report"], orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    assembled = summary.assembled
    del summary
    if not keep_traces:
        exported = None  # all read: the leak scan needs only the files and texts
    leaks = scan_outputs(files, ledger.secrets, assembled, read_back, digests=ledger.digests)
    del read_back
    if leaks:
        raise ExportError(
            f"{safe_path(rec.path)}: a secret would still be in the output "
            f"({leaks[0]}); nothing was written"
        )
    return _Rendered(names, report, ledger, original, exported)


def export_recording(
    rec: Recording, out_dir: str | Path, options: ExportOptions = ExportOptions()
) -> ExportResult:
    """Anonymize, verify and write one recording; see the module docstring."""
    return _export_recording(rec, out_dir, options, consume=False)


def _export_recording(
    rec: Recording, out_dir: str | Path, options: ExportOptions, *, consume: bool
) -> ExportResult:
    """:func:`export_recording`; with ``consume``, ``rec``'s chunks are dropped on the way."""
    out = Path(out_dir)
    name = options.name or _base_name(rec.path)
    target = out / (name + (".jsonl" if rec.kind == "capture" else ".sse"))
    if Path(rec.path).exists() and target.resolve() == Path(rec.path).resolve():
        raise ExportError(
            f"{safe_path(rec.path)}: the export would overwrite its own input; "
            "choose another output directory"
        )
    files = _Outputs(out)
    try:
        with _write_errors(out):
            with collector_paused():
                prepared = _prepare(rec, options, files, keep_traces=False, consume=consume)
            by_name = files.commit()
    except BaseException:
        files.discard()  # nothing is left behind unless everything verified
        raise
    return ExportResult(
        rec.path, {role: by_name[file] for role, file in prepared.names.items()}, prepared.report
    )


@contextlib.contextmanager
def _write_errors(out: Path) -> Iterator[None]:
    """Failures to make ``out`` or write into it, as :class:`ExportError` messages."""
    try:
        yield
    except UnsafeOutput as exc:
        raise ExportError(f"Could not write into {safe_path(out)}: {exc}") from exc
    except OSError as exc:
        # Name the file only when it is not the directory itself (a failed mkdir).
        other = exc.filename is not None and Path(exc.filename) != out
        where = f" ({safe_path(exc.filename)})" if other else ""
        raise ExportError(
            f"Could not write into {safe_path(out)}: {exc.strerror or exc}{where}"
        ) from exc


def export_capture(
    path: str | Path, out_dir: str | Path, options: ExportOptions = ExportOptions()
) -> ExportResult:
    """Export one capture or raw SSE file into ``out_dir`` (raises :class:`ExportError`)."""
    if Path(path).is_dir():
        raise ExportError(f"{safe_path(path)}: is a directory (export_paths exports directories)")
    with collector_paused():
        rec = load_recording(path)  # a missing file, a FIFO or a device: refused with the reason
        if rec.kind == "raw" and rec.problems:
            raise ExportError(rec.problems[0])
        # The recording is this call's own: the export may drop its bytes once read.
        return _export_recording(rec, out_dir, options, consume=True)


def export_trace(
    trace: Trace, out_dir: str | Path, options: ExportOptions = ExportOptions()
) -> ExportResult:
    """Export what a trace recorded (a live session, say) as if it were a file."""
    kind = "capture" if trace.header is not None else "raw"
    rec = Recording(
        trace.source or "live",
        kind,
        trace.header,
        [(c.time, c.data) for c in trace.chunks],
        trace.transport_end,
    )
    if options.provider is None and trace.provider is not None:
        options = dataclasses.replace(options, provider=trace.provider)
    return export_recording(rec, out_dir, options)


def _inputs(paths: Iterable[str | Path], out_dir: Path) -> list[tuple[Path, Path]]:
    """``(file, output sub-directory)`` for files and the stream files under directories.

    One directory is exported straight into ``out_dir`` (its layout kept);
    with several inputs each directory gets a folder of its own name.
    """
    given = [Path(p) for p in paths]
    out_root = out_dir.resolve()
    found: list[tuple[Path, Path]] = []
    for path in given:
        if not path.is_dir():
            found.append((path, Path()))
            continue
        base = Path(path.resolve().name) if len(given) > 1 else Path()
        for file in iter_stream_files([str(path)]):  # sorted; any depth; no link loops
            if out_root in file.resolve().parents:
                continue  # an earlier export's output inside the tree being exported
            found.append((file, base / file.parent.relative_to(path)))
    return found


def export_paths(
    paths: Iterable[str | Path], out_dir: str | Path, options: ExportOptions = ExportOptions()
) -> Iterator[ExportOutcome]:
    """Export files and every stream file below directories, one outcome each.

    A directory's layout is kept below ``out_dir``. ``options.name`` needs
    exactly one input file.
    """
    out = Path(out_dir)
    inputs = _inputs(paths, out)
    if options.name is not None and len(inputs) != 1:
        raise ExportError(f"--name needs exactly one input file, not {len(inputs)}")
    targets: dict[Path, Path] = {}
    for source, sub in inputs:
        target = out / sub / (options.name or _base_name(str(source)))
        if target in targets:
            raise ExportError(
                f"{safe_path(source)} and {safe_path(targets[target])} would both be exported "
                f"as {safe_path(target)}; "
                "export them separately or use --name"
            )
        targets[target] = source
    for source, sub in inputs:
        prefix = "".join(f"{part}_" for part in sub.parts)
        try:
            result = export_capture(
                source, out / sub, dataclasses.replace(options, test_prefix=prefix)
            )
        except ExportError as exc:
            yield ExportOutcome(source, error=str(exc))
        else:
            yield ExportOutcome(source, result=result)
