"""The redaction report: what an export removed, replaced, masked and kept.

Only counts, rule names, header names and what the skeleton already shows
(block kinds, tool names, finish reasons, usage numbers) — never a removed
value. It is written beside the export as ``NAME.report.json`` and shown by
the CLI and the TUI's export dialog (:func:`report_lines`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..core.trace import Trace
from ..terminal import escape_controls, safe_path
from .ledger import Ledger
from .skeleton import EventSummary

__all__ = ["REPORT_FORMAT", "build_report", "report_lines"]

REPORT_FORMAT: Final = "llm-stream-export-report"


def _kept(
    trace: Trace,
    summary: EventSummary,
    chunk_times: Sequence[float],
    chunk_bytes: int,
    ledger: Ledger,
) -> dict[str, Any]:
    terminal = trace.terminal_event
    ending: dict[str, Any] = {"state": trace.state}
    usage = None
    if terminal is not None and terminal["type"] == "stream.done":
        ending["finish_reason"] = terminal.get("finish_reason")
        raw_usage = terminal.get("usage")
        if isinstance(raw_usage, Mapping):
            usage = {k: v for k, v in raw_usage.items() if k != "raw"}
    elif terminal is not None:
        ending["error_category"] = (terminal.get("error") or {}).get("category")
    return {
        "events": len(trace.events),
        "event_types": summary.event_types,
        "blocks": summary.blocks,
        "ending": ending,
        "usage": usage,
        "chunks": len(chunk_times),
        "bytes": chunk_bytes,
        "last_chunk_at_s": max(chunk_times) if chunk_times else None,
        "headers": sorted(ledger.kept_headers),
    }


def build_report(
    *,
    source: str,
    provider: str,
    options: Mapping[str, Any],
    files: Mapping[str, str],
    ledger: Ledger,
    trace: Trace,
    summary: EventSummary,
    chunk_times: Sequence[float],
    chunk_bytes: int,
    scanned_files: int,
) -> dict[str, Any]:
    """The report of a verified export (the leak scan found nothing).

    ``summary`` is the exported trace's (:func:`.skeleton.summarize`);
    ``chunk_times`` and ``chunk_bytes``: the recording's chunk times and how
    many bytes they hold (the original's, verified equal to the export's).
    """
    return {
        "format": REPORT_FORMAT,
        "version": 1,
        "source": source,
        "provider": provider,
        "options": dict(options),
        "files": dict(files),
        "removed": dict(sorted(ledger.removed.items())),
        "pseudonymized": {k: len(v) for k, v in sorted(ledger.pseudonymized.items())},
        "placeholders": dict(sorted(ledger.placeholders.items())),
        "masked": dict(sorted(ledger.masked.items())),
        "kept": _kept(trace, summary, chunk_times, chunk_bytes, ledger),
        "verification": {
            "skeleton": "identical",
            "chunking": "identical",
            "leak_scan": {
                "secrets": len(ledger.secrets) + sum(map(len, ledger.digests)),
                "files": scanned_files,
                "forms": ["as is", "JSON-escaped", "URL-encoded", "base64", "case-folded"],
                "decoded": [
                    "escapes undone x3",
                    "percent-decoded",
                    "chunks joined",
                    "blocks assembled",
                ],
                "patterns": "every secret shape, in every decoded form",
                "found": 0,
            },
        },
    }


def _counts(table: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in table.items()) or "nothing"


def report_lines(report: Mapping[str, Any]) -> list[str]:
    """The report in a few lines for a terminal (no secret values: there are none).

    Names from outside (the source file, tool names) are escaped for printing.
    """
    files = report["files"]
    kept = report["kept"]
    ending = kept["ending"]
    how = ending.get("finish_reason") or ending.get("error_category")
    blocks = " ".join(
        f"{b['kind']}#{b['index']}" + (f"({escape_controls(b['tool'])})" if "tool" in b else "")
        for b in kept["blocks"]
    )
    usage = kept.get("usage") or {}
    tokens = (
        f", usage in={usage.get('input_tokens')} out={usage.get('output_tokens')}" if usage else ""
    )
    timing = ""
    if kept["last_chunk_at_s"] is not None:
        timing = f" over {kept['last_chunk_at_s']:.3f} s"
    scan = report["verification"]["leak_scan"]
    lines = [
        f"{safe_path(report['source'])} -> {', '.join(safe_path(v) for v in files.values() if v)}",
        f"  removed: {_counts(report['removed'])}",
        f"  pseudonymized: {_counts(report['pseudonymized'])}; "
        f"placeholders: {_counts(report['placeholders'])}",
    ]
    if report["options"].get("text") == "mask" or report["masked"]:
        lines.append(f"  masked strings: {_counts(report['masked'])}")
    lines.append(
        f"  kept: {kept['events']} events, blocks {blocks or 'none'}, {ending['state']} ({how})"
        f"{tokens}, {kept['chunks']} chunks / {kept['bytes']} bytes{timing}"
    )
    lines.append(
        f"  verified: skeleton identical, chunking identical, {scan['found']} of "
        f"{scan['secrets']} removed secrets found in {scan['files']} files"
    )
    return lines
