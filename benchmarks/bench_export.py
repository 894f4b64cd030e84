"""``inspector export`` at scale: time and peak memory of the whole command.

    python -m benchmarks.bench_export      # 1, 5, 20 MB OpenAI-Chat, 5 MB of each other provider
    python -m benchmarks.bench_export --sizes 1,5 --providers ""

Each stream is a capture recorded one chunk per frame (as live mode records
it: the most chunks, so the most per-chunk work), built by
:mod:`benchmarks.streams`. Both commands run as whole processes, the way a
user runs them, each in a fresh interpreter that reports its own peak
resident set (``VmHWM``) when it exits:

- **export**: ``inspector export FILE -o DIR --pytest``;
- **baseline**: ``inspector check FILE`` on the same file in the same run —
  it reads and normalizes the stream once, the least any export must do;
- with ``--compare DIR``: the same export run by the code in ``DIR`` (another
  checkout, say the one before a change: ``--compare ../old-checkout``), in the
  same run, so the before/after columns share the machine's load.

Reported per stream: MB/s of the raw SSE bytes, export time ÷ baseline
time, the export's CPU time (user + system) and its ratio to the baseline's
(steadier than wall time on a shared machine), peak RSS, and peak RSS ÷
stream size. Time per MB at each size shows
whether the export is linear: the ``s/MB`` column should stay flat.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .memory import write_capture
from .peak import PEAK_KIB_SOURCE
from .streams import GENERATORS, frames_in

__all__ = ["ExportRow", "build_capture", "main", "measure", "render", "run_command"]

MB = 1_000_000

# Runs the CLI in this interpreter, then prints its CPU seconds and peak RSS (KiB) on
# stderr's last lines.
_WRAPPER = (
    """
import sys
from inspector.cli import main
"""
    + PEAK_KIB_SOURCE
    + """
def cpu_seconds():
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

try:
    code = main(sys.argv[1:])
finally:
    sys.stdout.flush()
    print("CPU_S", cpu_seconds(), file=sys.stderr)
    print("PEAK_KIB", peak_kib(), file=sys.stderr)
sys.exit(code)
"""
)


@dataclass(frozen=True)
class Run:
    """One command: wall time (s), peak RSS (bytes), exit code, CPU time (s).

    CPU time (user + system) is what to compare on a shared machine: other
    processes stretch the wall time, much less the CPU the command itself used.
    """

    seconds: float
    peak_rss: int
    code: int
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class ExportRow:
    """One stream: its size, the export's run and the baseline's."""

    provider: str
    stream_bytes: int
    frames: int
    export: Run
    baseline: Run
    compare: Run | None = None

    @property
    def mb_per_s(self) -> float:
        return self.stream_bytes / MB / self.export.seconds

    @property
    def seconds_per_mb(self) -> float:
        return self.export.seconds / (self.stream_bytes / MB)

    @property
    def vs_baseline(self) -> float:
        return self.export.seconds / self.baseline.seconds

    @property
    def cpu_vs_baseline(self) -> float:
        return (
            self.export.cpu_seconds / self.baseline.cpu_seconds
            if self.baseline.cpu_seconds
            else 0.0
        )

    @property
    def rss_ratio(self) -> float:
        return self.export.peak_rss / self.stream_bytes


def build_capture(directory: Path, provider: str, size: float) -> tuple[Path, int, int]:
    """A ``provider`` capture of about ``size`` MB of SSE: its path, raw bytes and frames."""
    make = GENERATORS[provider]
    per_frame = (len(make(1100)) - len(make(100))) / 1000
    path = directory / f"{provider}-{size:g}MB.jsonl"
    body = write_capture(path, max(20, int(size * MB / per_frame)), provider)
    return path, len(body), frames_in(body)


def run_command(args: list[str], cwd: Path, code: Path | None = None) -> Run:
    """Run ``inspector ARGS`` in a fresh interpreter; its time and peak RSS.

    ``code``: a checkout whose ``inspector`` package runs instead of this one.
    """
    paths = [p for p in sys.path if p]
    if code is not None:
        paths.insert(0, str(code))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args],
        capture_output=True, text=True, cwd=cwd, env=env, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    peak = 0
    cpu = 0.0
    for line in reversed(done.stderr.splitlines()[-2:]):
        if line.startswith("PEAK_KIB "):
            peak = int(line.split()[1]) * 1024
        elif line.startswith("CPU_S "):
            cpu = float(line.split()[1])
    if done.returncode != 0:
        raise RuntimeError(f"inspector {' '.join(args)} failed: {done.stderr[-500:]}")
    return Run(seconds, peak, done.returncode, cpu)


def measure(provider: str, size: float, directory: Path, compare: Path | None = None) -> ExportRow:
    """Export one generated capture and check it, each as a whole process.

    With ``compare``, the code in that checkout exports the same file too.
    """
    path, raw, frames = build_capture(directory, provider, size)
    out = directory / f"out-{path.stem}"
    baseline = run_command(["check", str(path)], directory)
    export = run_command(["export", str(path), "-o", str(out), "--pytest"], directory)
    _remove(out)
    other = None
    if compare is not None:
        other = run_command(["export", str(path), "-o", str(out), "--pytest"], directory, compare)
        _remove(out)
    path.unlink()
    return ExportRow(provider, raw, frames, export, baseline, other)


def _remove(out: Path) -> None:
    for file in out.iterdir():
        file.unlink()
    out.rmdir()


def render(rows: list[ExportRow]) -> str:
    """The results as a Markdown table, and the linearity of the largest provider series."""
    lines = [
        "| provider | stream MB | frames | export s | MB/s | s/MB | check s | export ÷ check "
        "| CPU s | CPU ÷ check CPU | peak RSS MB | peak RSS ÷ stream |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.provider} | {r.stream_bytes / MB:.1f} | {r.frames:,} | {r.export.seconds:.2f} "
            f"| {r.mb_per_s:.2f} | {r.seconds_per_mb:.3f} | {r.baseline.seconds:.2f} "
            f"| {r.vs_baseline:.1f}× | {r.export.cpu_seconds:.2f} | {r.cpu_vs_baseline:.1f}× "
            f"| {r.export.peak_rss / MB:.0f} | {r.rss_ratio:.1f}× |"
        )
    compared = [r for r in rows if r.compare is not None]
    if compared:
        lines += [
            "",
            "| provider | stream MB | export s | compared s | CPU s | compared CPU s "
            "| peak RSS ÷ stream | compared peak RSS ÷ stream |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in compared:
            assert r.compare is not None
            lines.append(
                f"| {r.provider} | {r.stream_bytes / MB:.1f} | {r.export.seconds:.2f} "
                f"| {r.compare.seconds:.2f} | {r.export.cpu_seconds:.2f} "
                f"| {r.compare.cpu_seconds:.2f} | {r.rss_ratio:.1f}× "
                f"| {r.compare.peak_rss / r.stream_bytes:.1f}× |"
            )
    series: dict[str, list[ExportRow]] = {}
    for r in rows:
        series.setdefault(r.provider, []).append(r)
    for provider, runs in series.items():
        if len(runs) > 1:
            small, big = (
                min(runs, key=lambda r: r.stream_bytes),
                max(runs, key=lambda r: r.stream_bytes),
            )
            lines.append(
                f"\nLinearity ({provider}): {big.stream_bytes / small.stream_bytes:.0f}× the bytes "
                f"took {big.export.seconds / small.export.seconds:.1f}× the time "
                f"(s/MB {small.seconds_per_mb:.3f} -> {big.seconds_per_mb:.3f})."
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the export benchmark and print its table (``--json`` for the raw numbers)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_export")
    parser.add_argument(
        "--sizes", default="1,5,20", help="MB of OpenAI-Chat stream (default 1,5,20)"
    )
    parser.add_argument(
        "--providers", default="anthropic,openai-responses,gemini",
        help="other providers, measured at --other-size MB (default: all)",
    )  # fmt: skip
    parser.add_argument("--other-size", type=float, default=5.0)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument(
        "--compare", type=Path, metavar="DIR",
        help="also export each stream with the inspector package in DIR (a checkout)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    plan = [("openai-chat", float(s)) for s in args.sizes.split(",") if s]
    plan += [(p, args.other_size) for p in args.providers.split(",") if p and p != "openai-chat"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        for provider, size in plan:
            rows.append(measure(provider, size, Path(tmp), args.compare))
            print(f"measured {provider} {size:g} MB", file=sys.stderr, flush=True)
    print(render(rows))
    if args.json:
        print(json.dumps([dataclasses.asdict(r) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
