"""Run the benchmarks, print the table, and update docs/performance.md.

    python -m benchmarks.run            # full run (16 MB streams, 11 rounds), writes the doc
    python -m benchmarks.run --quick    # a smaller, faster run; prints only

Every speed is the median of several runs; every ratio is against a baseline
measured in the same rounds on the same bytes, the median of the rounds'
quotients (see ``benchmarks/loops.py`` for what each baseline is,
``benchmarks/timing.py`` for how runs are interleaved and paired).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from inspector.core.adapters import ADAPTERS, adapter_for

from . import loops
from .memory import MemoryResult, measure_memory
from .streams import GENERATORS, chunked, decoder_stream, frames_in, stream_of_size
from .timing import Result, compare, paired_ratio, ratio_spread

__all__ = [
    "DecoderRow",
    "PipelineRow",
    "Report",
    "available_providers",
    "bench_decoder",
    "bench_pipeline",
    "main",
    "render",
    "targets",
]

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"

MB = 1_000_000
#: Smaller streams and more rounds, not one long run each: a shared machine's speed
#: drifts within seconds, and paired quotients of short rounds see through that.
FULL_SIZE = 16 * MB
FULL_ROUNDS = 11
#: The pipeline's target: this many times the openai SDK's decode + JSON loop (issue 13).
PIPELINE_TARGET = 3.0
QUICK_SIZE = 4 * MB


@dataclass
class DecoderRow:
    """One stream shape for the decoder-only comparison."""

    line_end: str
    chunk: int
    results: dict[str, Result]

    @property
    def vs_httpx(self) -> float:
        """How many times faster than httpx-sse (higher is better)."""
        return paired_ratio(self.results["httpx-sse"], self.results["inspector"])

    @property
    def vs_plain(self) -> float:
        """Our time over the plain loop's (lower is better; 1.5 is the bound)."""
        return paired_ratio(self.results["inspector"], self.results["plain loop"])


@dataclass
class PipelineRow:
    """One provider's whole pipeline against the SDK loops."""

    provider: str
    results: dict[str, Result]

    @property
    def vs_openai(self) -> float:
        """How many times faster than the openai SDK's decode + JSON loop."""
        return paired_ratio(self.results["openai SDK"], self.results["inspector"])

    @property
    def vs_anthropic(self) -> float:
        """How many times faster than the anthropic SDK's decode + JSON loop."""
        return paired_ratio(self.results["anthropic SDK"], self.results["inspector"])


@dataclass
class Report:
    """Everything one run measured."""

    command: str
    repeats: int
    decoder: list[DecoderRow] = field(default_factory=list)
    pipeline: list[PipelineRow] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    memory: MemoryResult | None = None


def available_providers() -> tuple[list[str], list[str]]:
    """Providers whose adapter imports now, and those that do not (yet)."""
    ready, missing = [], []
    for provider in ADAPTERS:
        if provider not in GENERATORS:  # (no stream of it is generated here)
            continue
        try:
            adapter_for(provider)
        except Exception:  # an adapter still being written may fail in any way
            missing.append(provider)
        else:
            ready.append(provider)
    return ready, missing


def bench_decoder(
    size: int, repeats: int, chunk_sizes: tuple[int, ...] = (4096, 64)
) -> list[DecoderRow]:
    """Decoder only: ours, httpx-sse and the plain loop on the same chunks."""
    rows = []
    for crlf in (False, True):
        body = decoder_stream(size, crlf)
        events = frames_in(body)
        for chunk_size in chunk_sizes:
            chunks = chunked(body, chunk_size)
            results = compare(
                [
                    ("inspector", partial(loops.inspector_decoder, chunks)),
                    ("httpx-sse", partial(loops.httpx_sse_loop, chunks)),
                    ("plain loop", partial(loops.plain_loop, chunks)),
                ],
                len(body),
                events,
                repeats,
            )
            rows.append(DecoderRow("CRLF" if crlf else "LF", chunk_size, results))
    return rows


def bench_pipeline(
    size: int, repeats: int, providers: list[str], chunk_size: int = 4096
) -> list[PipelineRow]:
    """The whole pipeline per provider against both SDKs' decode + JSON loops."""
    rows = []
    for provider in providers:
        body = stream_of_size(provider, size)
        chunks = chunked(body, chunk_size)
        results = compare(
            [
                ("inspector", partial(loops.inspector_pipeline, chunks, provider)),
                ("openai SDK", partial(loops.openai_sdk_loop, chunks)),
                ("anthropic SDK", partial(loops.anthropic_sdk_loop, chunks)),
            ],
            len(body),
            frames_in(body),
            repeats,
        )
        rows.append(PipelineRow(provider, results))
    return rows


# -- the table -----------------------------------------------------------------


def targets(report: Report) -> list[tuple[str, str, bool]]:
    """``(target, measured, met)`` for every target the report covers."""
    out = []
    for row in report.decoder:
        if row.chunk != 4096:
            continue
        where = f"{row.line_end}, 4 KiB chunks"
        r = row.results
        out.append(
            (
                "decoder ≥ 2× httpx-sse (" + where + ")",
                _measured(row.vs_httpx, r["httpx-sse"], r["inspector"]),
                row.vs_httpx >= 2,
            )
        )
        out.append(
            (
                "decoder time ≤ 1.5× the plain loop's (" + where + ")",
                _measured(row.vs_plain, r["inspector"], r["plain loop"]),
                row.vs_plain <= 1.5,
            )
        )
    for prow in report.pipeline:
        out.append(
            (
                f"pipeline ≥ {PIPELINE_TARGET:g}× the openai SDK loop ({prow.provider})",
                _measured(prow.vs_openai, prow.results["openai SDK"], prow.results["inspector"]),
                prow.vs_openai >= PIPELINE_TARGET,
            )
        )
    if report.memory is not None:
        m = report.memory
        out.append(
            (
                f"loaded trace ≤ 3× the capture's raw size ({m.frames:,} frames)",
                f"{m.retained_ratio:.2f}×",
                m.retained_ratio <= 3,
            )
        )
    return out


def _measured(ratio: float, slower: Result, faster: Result) -> str:
    """A paired ratio with the range of the rounds' quotients it is the median of."""
    low, high = ratio_spread(slower, faster)
    return f"{ratio:.2f}× ({low:.2f}–{high:.2f})"


def _mb(n: float) -> str:
    return f"{n / MB:.1f}"


def _when() -> str:
    """When the run ended, to the minute (UTC): every table of one run says the same."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def render(report: Report) -> str:
    """The results as Markdown: what was run, the tables, the targets."""
    lines = [
        f"Command: `{report.command}` — {_when()}, "
        f"Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {report.repeats} interleaved rounds: speeds are medians, "
        "ratios the median of the rounds' paired quotients (their range in *Targets*).",
        "",
    ]
    if report.decoder:
        first = report.decoder[0].results["inspector"]
        lines += [
            f"#### Decoder only ({_mb(first.nbytes)} MB OpenAI-Chat-style stream, "
            f"{first.events:,} events)",
            "",
            "| line ends | chunks | inspector MB/s | httpx-sse MB/s | plain loop MB/s "
            "| × httpx-sse (≥ 2) | time ÷ plain loop (≤ 1.5) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in report.decoder:
            r = row.results
            chunk = "4 KiB" if row.chunk == 4096 else f"{row.chunk} B"
            lines.append(
                f"| {row.line_end} | {chunk} | {r['inspector'].mb_per_s:.0f} "
                f"| {r['httpx-sse'].mb_per_s:.0f} | {r['plain loop'].mb_per_s:.0f} "
                f"| {row.vs_httpx:.2f}× | {row.vs_plain:.2f}× |"
            )
        lines.append("")
    if report.pipeline:
        lines += [
            "#### Whole pipeline (decode → JSON → adapter → machine → trace), 4 KiB chunks",
            "",
            "| provider | stream MB | SSE events | inspector events/s | inspector MB/s "
            "| openai SDK MB/s | anthropic SDK MB/s "
            f"| × openai SDK (≥ {PIPELINE_TARGET:g}) | × anthropic SDK |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for prow in report.pipeline:
            r = prow.results
            ours = r["inspector"]
            lines.append(
                f"| {prow.provider} | {_mb(ours.nbytes)} | {ours.events:,} "
                f"| {ours.events_per_s:,.0f} | {ours.mb_per_s:.1f} "
                f"| {r['openai SDK'].mb_per_s:.1f} | {r['anthropic SDK'].mb_per_s:.1f} "
                f"| {prow.vs_openai:.2f}× | {prow.vs_anthropic:.2f}× |"
            )
        if report.skipped:
            lines.append("")
            lines.append(f"Not measured (adapter not importable): {', '.join(report.skipped)}.")
        lines.append("")
    if report.memory is not None:
        m = report.memory
        rss = (
            f"{_mb(m.rss_peak_growth)} MB ({m.rss_peak_growth / m.raw_bytes:.2f}×)"
            if m.rss_peak_growth is not None
            else "not measured"
        )
        lines += [
            "#### Memory to load a capture (`load_trace`)",
            "",
            "| frames | raw SSE bytes | capture file | trace retained | bytes / frame "
            "| retained ÷ raw (≤ 3) | tracemalloc peak | peak RSS growth |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {m.frames:,} | {_mb(m.raw_bytes)} MB | {_mb(m.file_bytes)} MB "
            f"| {_mb(m.retained)} MB | {m.bytes_per_frame:.0f} | {m.retained_ratio:.2f}× "
            f"| {_mb(m.tracemalloc_peak)} MB ({m.tracemalloc_peak / m.raw_bytes:.2f}×) | {rss} |",
            "",
        ]
    checks = targets(report)
    if checks:
        lines += [
            "#### Targets",
            "",
            "| target | measured (rounds' range) | met |",
            "|---|---:|:---:|",
        ]
        lines += [
            f"| {name} | {value} | {'yes' if ok else '**no**'} |" for name, value, ok in checks
        ]
        lines.append("")
    return "\n".join(lines)


def write_doc(markdown: str, doc: Path = DOC, start: str = START, end: str = END) -> None:
    """Put ``markdown`` between the ``start`` and ``end`` markers of ``doc``."""
    text = doc.read_text("utf-8") if doc.exists() else f"# Performance\n\n{start}\n{end}\n"
    if start not in text or end not in text:
        text = text.rstrip("\n") + f"\n\n{start}\n{end}\n"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{markdown}\n{end}{tail}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help="4 MB streams, 3 rounds, no doc update"
    )
    parser.add_argument("--size", type=float, help="stream size in MB (default 16, quick 4)")
    parser.add_argument(
        "--repeats", type=int, help=f"rounds per measurement (default {FULL_ROUNDS}, quick 3)"
    )
    parser.add_argument("--frames", type=int, default=100_000, help="frames in the memory capture")
    parser.add_argument(
        "--only", default="decoder,pipeline,memory", help="comma-separated: decoder,pipeline,memory"
    )
    parser.add_argument(
        "--providers", help="comma-separated providers for the pipeline (default: every adapter)"
    )
    parser.add_argument(
        "--write",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="update docs/performance.md (default: yes, except with --quick)",
    )
    args = parser.parse_args(argv)
    size = int(args.size * MB) if args.size else (QUICK_SIZE if args.quick else FULL_SIZE)
    repeats = args.repeats or (3 if args.quick else FULL_ROUNDS)
    parts = set(args.only.split(","))
    command = "python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:])
    report = Report(command=command.strip(), repeats=repeats)
    if "decoder" in parts:
        print(f"decoder: {size / MB:.0f} MB, {repeats} rounds …", file=sys.stderr)
        report.decoder = bench_decoder(size, repeats)
    if "pipeline" in parts:
        ready, report.skipped = available_providers()
        if args.providers:
            ready = [p for p in ready if p in args.providers.split(",")]
        print(f"pipeline: {', '.join(ready)} …", file=sys.stderr)
        report.pipeline = bench_pipeline(size, repeats, ready)
    if "memory" in parts:
        print(f"memory: {args.frames:,} frames …", file=sys.stderr)
        with tempfile.TemporaryDirectory() as directory:
            report.memory = measure_memory(Path(directory), args.frames)
    markdown = render(report)
    print(markdown)
    if args.write if args.write is not None else not args.quick:
        write_doc(markdown)
        print(f"updated {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0 if all(ok for _, _, ok in targets(report)) else 1


if __name__ == "__main__":
    sys.exit(main())
