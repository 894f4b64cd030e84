"""The export's entry points: a recording, a file, a live trace, or files and folders.

Each runs :func:`.pipeline.prepare` (read → rewrite → verify) and then the
last step, writing: the staged outputs are renamed into place only when
everything verified (:class:`~.staging.Outputs`); :func:`prepare_export`
keeps them in memory instead, with both traces, for a caller that shows
them (the TUI's export dialog).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..capture import CAPTURE_FORMAT, CAPTURE_VERSION, load_recording
from ..capture_writer import record_time
from ..collector import collector_paused
from ..core.trace import Trace, TransportEnd
from ..inputs import Recording
from ..library import iter_stream_files
from ..terminal import safe_path
from .ledger import Ledger
from .options import DEFAULT_OPTIONS, ExportError, ExportOptions, ExportOutcome, ExportResult
from .pipeline import base_name, prepare
from .staging import Outputs, write_errors

__all__ = [
    "PreparedExport",
    "export_capture",
    "export_paths",
    "export_recording",
    "export_trace",
    "prepare_export",
]


@dataclasses.dataclass(frozen=True)
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


def prepare_export(rec: Recording, options: ExportOptions = DEFAULT_OPTIONS) -> PreparedExport:
    """Anonymize and verify a recording, and render its outputs — without writing.

    Raises :class:`ExportError` for bad input, a skeleton or chunking
    difference, or a removed secret found again in an output.
    """
    outputs = Outputs()
    names, report, ledger, original, exported = prepare(
        rec, options, outputs, keep_traces=True, as_received=True
    )
    assert original is not None and exported is not None
    return PreparedExport(names, outputs.data, report, original, exported, ledger)


def export_recording(
    rec: Recording, out_dir: str | Path, options: ExportOptions = DEFAULT_OPTIONS
) -> ExportResult:
    """Anonymize, verify and write one recording; see the module docstring."""
    return _export_recording(rec, out_dir, options, consume=False)


def _export_recording(
    rec: Recording, out_dir: str | Path, options: ExportOptions, *, consume: bool
) -> ExportResult:
    """:func:`export_recording`; with ``consume``, ``rec``'s chunks are dropped on the way."""
    out = Path(out_dir)
    name = options.name or base_name(rec.path)
    target = out / (name + (".jsonl" if rec.kind == "capture" else ".sse"))
    if Path(rec.path).exists() and target.resolve() == Path(rec.path).resolve():
        raise ExportError(
            f"{safe_path(rec.path)}: the export would overwrite its own input; "
            "choose another output directory"
        )
    files = Outputs(out)
    try:
        with write_errors(out):
            with collector_paused():
                names, report, *_ = prepare(rec, options, files, keep_traces=False, consume=consume)
            by_name = files.commit()
    except BaseException:
        files.discard()  # nothing is left behind unless everything verified
        raise
    return ExportResult(rec.path, {role: by_name[file] for role, file in names.items()}, report)


def export_capture(
    path: str | Path, out_dir: str | Path, options: ExportOptions = DEFAULT_OPTIONS
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


def _as_recorded(end: TransportEnd | None) -> TransportEnd | None:
    """A live trace's transport end as its capture's end record holds it (time rounded)."""
    if end is None:
        return None
    return TransportEnd(end.reason, record_time(end.time), end.error)


def export_trace(
    trace: Trace, out_dir: str | Path, options: ExportOptions = DEFAULT_OPTIONS
) -> ExportResult:
    """Export what a trace recorded (a live session, say) as if it were a file."""
    kind = "capture" if trace.header is not None else "raw"
    # A live trace's header is what its recorder puts after the record's own keys
    # (type, format, version); written without them the export is not a capture.
    header = trace.header
    if header is not None:
        header = {"type": "header", "format": CAPTURE_FORMAT, "version": CAPTURE_VERSION, **header}
    rec = Recording(
        trace.source or "live",
        kind,
        header,
        [(c.time, c.data) for c in trace.chunks],
        _as_recorded(trace.transport_end),
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
    paths: Iterable[str | Path], out_dir: str | Path, options: ExportOptions = DEFAULT_OPTIONS
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
        target = out / sub / (options.name or base_name(str(source)))
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
