"""Whole-process benchmark: the commands as a user runs them, against the openai SDK loop.

    python -m benchmarks.process            # 30 MB files, 5 rounds; rewrites its part of the doc
    python -m benchmarks.process --quick    # 4 MB files, 3 rounds; prints only

``benchmarks.run`` measures the pipeline inside one process. A user runs
commands: start-up, reading the file, output and exit all count. Here every
candidate is a fresh process on the same file, timed from start to exit:

- ``inspector check FILE``, ``inspector events FILE > /dev/null``,
  ``inspector export FILE -o DIR`` (the installed console script);
- the TUI opened on the file until its first paint
  (``python -m benchmarks.first_paint FILE``: ``inspector open`` headless,
  exiting at the first paint — see that module);
- the baseline, ``python benchmarks/sdk_loop.py FILE``: the openai SDK's SSE
  decoder and ``json.loads`` of every event, the loop a script using the SDK
  runs over the same bytes.

Each runs on a raw ``.sse`` file and on a capture (``.jsonl``, one chunk per
frame, as live mode records a stream that arrives event by event) of the same
OpenAI-Chat stream. Rounds are interleaved (one run of every candidate on
every file, then the next round) and the tables show medians: wall time
(what the targets use) and CPU time (user + system, from ``wait4``, which
leaves out time other processes held the CPU on a shared machine), and each
process's peak resident set (GNU ``time``'s ``%M``, see :func:`time_process`).
Start-up is every subcommand on a small file (a 3 KB stream), or ``--help``
for those that need a network or a terminal.
"""

from __future__ import annotations

import argparse
import compileall
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from inspector.capture import CAPTURE_FORMAT, CAPTURE_VERSION
from inspector.capture_writer import chunk_record

from .bench_record_memory import FLAT, Code, MemoryRow
from .bench_record_memory import measure as measure_memory
from .run import DOC, ROOT, write_doc
from .streams import frames_in, stream_of_size

__all__ = [
    "Run",
    "Sample",
    "main",
    "measure",
    "render",
    "targets",
    "time_process",
    "write_inputs",
]

MB = 1_000_000
FULL_SIZE = 30 * MB
QUICK_SIZE = 4 * MB
START, END = "<!-- process:start -->", "<!-- process:end -->"
BASELINE = "openai SDK loop"
#: Commands that run on a small file in the start-up table; the others get --help.
RUN_ON_FILE = ("check", "events", "frames", "export")
#: Captures in the folder ``inspector check DIR`` is timed on, and the providers they cycle through.
FOLDER_FILES = 48
PROVIDERS = ("openai-chat", "openai-responses", "anthropic", "gemini")
#: ``check DIR`` with every core against ``--jobs 1``: at least this share of the ideal speed-up.
FOLDER_EFFICIENCY = 0.7
GNU_TIME = Path("/usr/bin/time")


@dataclass
class Sample:
    """One finished process."""

    wall: float  # seconds, start to exit
    cpu: float  # user + system seconds
    max_rss: int  # bytes
    status: int


@dataclass
class Run:
    """Every run of one candidate on one input."""

    name: str
    input: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def wall(self) -> float:
        """Median wall seconds."""
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        """Median CPU seconds (user + system)."""
        return statistics.median(s.cpu for s in self.samples)

    @property
    def max_rss(self) -> int:
        """The largest peak resident set of any run, in bytes."""
        return max(s.max_rss for s in self.samples)

    @property
    def ok(self) -> bool:
        """Every run exited with status 0."""
        return all(s.status == 0 for s in self.samples)


@dataclass
class Report:
    """Everything one run of the benchmark measured."""

    command: str
    rounds: int
    stream_bytes: int
    frames: int
    runs: dict[tuple[str, str], Run] = field(default_factory=dict)
    startup: dict[str, Run] = field(default_factory=dict)
    folder: dict[str, Run] = field(default_factory=dict)
    folder_files: int = 0
    folder_bytes: int = 0
    #: Whether every ``check DIR`` run printed exactly what ``--jobs 1`` printed.
    folder_identical: bool = True
    #: Peak RSS of headless ``record`` and the proxy for a short and a long stream.
    memory: list[MemoryRow] = field(default_factory=list)

    def run(self, name: str, input_kind: str) -> Run:
        """The runs of ``name`` on the ``raw`` or ``capture`` input."""
        return self.runs[(name, input_kind)]


def time_process(
    argv: Sequence[str], cwd: Path | None = None, timeout: float = 600, stdout: Path | None = None
) -> Sample:
    """Run ``argv`` with stdout to /dev/null (or ``stdout``); its wall time, CPU time and peak RSS.

    The peak resident set comes from GNU ``time -f %M`` when it is installed:
    a child's ``ru_maxrss`` as ``wait4`` reports it also counts the parent's
    pages at the fork (Linux carries the high-water mark across fork + exec),
    which would put this benchmark's own size into every row; ``time`` is small.
    """
    rss_file = None
    if GNU_TIME.exists():
        handle, name = tempfile.mkstemp(prefix="rss-")
        os.close(handle)
        rss_file = Path(name)
        argv = [str(GNU_TIME), "-f", "%M", "-o", name, *argv]
    with open(stdout or os.devnull, "wb") as out, tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=errors, cwd=cwd)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.001)
        wall = time.perf_counter() - started
        process.returncode = code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        message = errors.read().decode("utf-8", "replace").strip().splitlines()
    max_rss = usage.ru_maxrss * 1024
    if rss_file is not None:
        text = rss_file.read_text().split()
        rss_file.unlink()
        max_rss = int(text[-1]) * 1024 if text and text[-1].isdigit() else 0
    if code != 0:
        print(f"  exit {code}: {' '.join(argv[-3:])}: {message[-1:]}", file=sys.stderr)
    return Sample(wall, usage.ru_utime + usage.ru_stime, max_rss, code)


def inspector_command() -> list[str]:
    """The installed ``inspector`` console script next to this interpreter, else ``-m``."""
    script = Path(sys.executable).with_name("inspector")
    return [str(script)] if script.exists() else [sys.executable, "-m", "inspector"]


def write_capture(path: Path, provider: str, body: bytes) -> None:
    """``body`` as a capture recorded one chunk per event, 1 ms apart."""
    events = [event + b"\n\n" for event in body.replace(b"\r\n", b"\n").split(b"\n\n")[:-1]]
    header = {
        "type": "header",
        "format": CAPTURE_FORMAT,
        "version": CAPTURE_VERSION,
        "provider": provider,
        "endpoint": "benchmark",
    }
    with path.open("wb") as file:
        file.write(orjson.dumps(header) + b"\n")
        for i, event in enumerate(events):
            file.write(orjson.dumps(chunk_record(i * 0.001, event)) + b"\n")
        end = {"type": "end", "t": round(len(events) * 0.001, 6), "reason": "eof", "error": None}
        file.write(orjson.dumps(end) + b"\n")


def write_inputs(directory: Path, size: int) -> tuple[Path, Path, int, int]:
    """The raw ``.sse`` file and a capture of the same stream; (raw, capture, bytes, frames)."""
    body = stream_of_size("openai-chat", size)
    raw = directory / "openai-chat.sse"
    raw.write_bytes(body)
    capture = directory / "openai-chat.jsonl"
    write_capture(capture, "openai-chat", body)
    return raw, capture, len(body), frames_in(body)


def write_folder(directory: Path, size: int, files: int = FOLDER_FILES) -> int:
    """``files`` captures of the four providers, ``size`` bytes in all; the bytes written."""
    directory.mkdir()
    total = 0
    for i in range(files):
        provider = PROVIDERS[i % len(PROVIDERS)]
        body = stream_of_size(provider, size // files)
        write_capture(directory / f"{i:03d}-{provider}.jsonl", provider, body)
        total += len(body)
    return total


def candidates(path: Path, out: Path) -> dict[str, list[str]]:
    """Name -> argv of every process timed on ``path`` (``out``: a fresh export directory)."""
    inspector = inspector_command()
    python = sys.executable
    return {
        BASELINE: [python, str(ROOT / "benchmarks" / "sdk_loop.py"), str(path)],
        "inspector check": [*inspector, "check", str(path)],
        "inspector events": [*inspector, "events", str(path)],
        "inspector export": [*inspector, "export", str(path), "-o", str(out)],
        "TUI first paint": [python, "-m", "benchmarks.first_paint", str(path)],
    }


def startup_commands(tiny: Path, out: Path) -> dict[str, list[str]]:
    """Every subcommand on a small file, or with ``--help``; and a bare interpreter."""
    from inspector.cli import COMMANDS

    inspector = inspector_command()
    commands = {"python -c pass (the floor)": [sys.executable, "-c", "pass"]}
    for name in COMMANDS:
        if name == "export":
            commands["inspector export"] = [*inspector, "export", str(tiny), "-o", str(out)]
        elif name in RUN_ON_FILE:
            commands[f"inspector {name}"] = [*inspector, name, str(tiny)]
        else:
            commands[f"inspector {name} --help"] = [*inspector, name, "--help"]
    return commands


def measure(
    directory: Path,
    size: int,
    rounds: int,
    only: set[str] | None = None,
    timeout: float = 600,
    startup: bool = True,
    folder: bool = True,
    memory: bool = True,
) -> Report:
    """Write the inputs into ``directory`` and time every candidate, interleaved.

    ``only`` names the commands to time besides the baseline (``check``,
    ``events``, ``export``, ``paint``; default all); ``startup`` adds the
    start-up table, ``folder`` the ``check DIR`` rows (``--jobs 1`` against
    every core, on a folder of captures as large as the stream in all),
    ``memory`` the peak memory of headless ``record`` and of the proxy on a
    stream a third and three times as long (measured once: memory is not noisy).
    """
    raw, capture, nbytes, frames = write_inputs(directory, size)
    tiny = directory / "tiny.sse"
    tiny.write_bytes(stream_of_size("openai-chat", 1))
    report = Report(command="", rounds=rounds, stream_bytes=nbytes, frames=frames)
    inputs = {"raw": raw, "capture": capture}
    commands = only is None or bool(only & {"check", "events", "export", "paint"})
    env_root = directory / "out"
    if folder:
        report.folder_files = FOLDER_FILES
        report.folder_bytes = write_folder(directory / "folder", size)
    for round_no in range(rounds):
        print(f"round {round_no + 1}/{rounds} …", file=sys.stderr)
        for kind, path in inputs.items() if commands else ():
            out = env_root / f"{kind}-{round_no}"
            for name, argv in candidates(path, out).items():
                if only is not None and name != BASELINE and name.split()[-1] not in only:
                    continue
                run = report.runs.setdefault((name, kind), Run(name, kind))
                run.samples.append(time_process(argv, cwd=ROOT, timeout=timeout))
            shutil.rmtree(out, ignore_errors=True)
        if folder:
            _time_folder(report, directory, timeout)
        if not startup:
            continue
        out = env_root / f"startup-{round_no}"
        for name, argv in startup_commands(tiny, out).items():
            run = report.startup.setdefault(name, Run(name, "tiny"))
            run.samples.append(time_process(argv, cwd=ROOT, timeout=timeout))
        shutil.rmtree(out, ignore_errors=True)
    if memory:
        print("record and proxy memory …", file=sys.stderr)
        report.memory = measure_memory([size // 3, size * 3], [Code("after", ROOT)])
    return report


def folder_commands(folder: Path) -> dict[str, list[str]]:
    """``inspector check DIR`` on one core and with its default (every core)."""
    check = [*inspector_command(), "check", str(folder)]
    return {"check DIR --jobs 1": [*check, "--jobs", "1"], "check DIR": check}


def _time_folder(report: Report, directory: Path, timeout: float) -> None:
    """One round of the folder rows; compares each run's output with ``--jobs 1``'s."""
    outputs: dict[str, bytes] = {}
    for name, argv in folder_commands(directory / "folder").items():
        printed = directory / "folder.out"
        run = report.folder.setdefault(name, Run(name, "folder"))
        run.samples.append(time_process(argv, cwd=ROOT, timeout=timeout, stdout=printed))
        outputs[name] = printed.read_bytes()
    first, *others = outputs.values()
    report.folder_identical &= bool(first) and all(other == first for other in others)


# -- the tables ----------------------------------------------------------------

#: name -> how many times faster than the baseline it must be (None: no ratio target; the
#: TUI row has none at all - its targets are bench_tui's, measured inside the process)
SPEED_TARGETS: dict[str, float | None] = {
    "inspector check": 2.0,
    "inspector events": 2.0,
    "inspector export": None,
    "TUI first paint": None,
}
EXPORT_MB_PER_S = 10.0
EXPORT_MEMORY = 4.0
STARTUP_SECONDS = 0.150


def targets(report: Report) -> list[tuple[str, str, bool]]:
    """``(target, measured, met)`` for every target the report covers."""
    out: list[tuple[str, str, bool]] = []
    for kind in ("raw", "capture"):
        if (BASELINE, kind) not in report.runs:
            continue
        base = report.run(BASELINE, kind)
        where = "raw .sse" if kind == "raw" else "capture"
        for name, ratio in SPEED_TARGETS.items():
            if (name, kind) not in report.runs:
                continue
            run = report.run(name, kind)
            if ratio is not None:
                got = base.wall / run.wall
                out.append(
                    (
                        f"`{name}` ≥ {ratio:g}× the SDK loop, whole process ({where})",
                        f"{got:.2f}×",
                        run.ok and got >= ratio,
                    )
                )
            elif name == "inspector export":
                speed = report.stream_bytes / run.wall / MB
                memory = run.max_rss / report.stream_bytes
                out.append(
                    (
                        f"`inspector export` ≥ {EXPORT_MB_PER_S:g} MB/s ({where})",
                        f"{speed:.1f} MB/s",
                        run.ok and speed >= EXPORT_MB_PER_S,
                    )
                )
                out.append(
                    (
                        f"`inspector export` peak RSS ≤ {EXPORT_MEMORY:g}× the stream ({where})",
                        f"{memory:.2f}×",
                        run.ok and memory <= EXPORT_MEMORY,
                    )
                )
    if len(report.folder) == 2:
        one, every = report.folder.values()
        cores = len(os.sched_getaffinity(0))
        speedup = one.wall / every.wall
        same = "identical" if report.folder_identical else "**differs**"
        out.append(
            (
                f"`inspector check DIR` on {cores} cores ≥ {FOLDER_EFFICIENCY * cores:g}× "
                "`--jobs 1`, the same output",
                f"{speedup:.2f}×, output {same}",
                one.ok
                and every.ok
                and report.folder_identical
                and speedup >= FOLDER_EFFICIENCY * cores,
            )
        )
    if len(report.memory) == 2:
        short, long = report.memory
        for name in short.peaks:
            ratio = long.peaks[name] / short.peaks[name]
            who = name.split()[0]
            label = "headless `record`" if who == "record" else "`proxy --headless`"
            out.append(
                (
                    f"{label}: peak RSS for a {long.size / MB:.0f} MB stream ≤ {FLAT:g}× "
                    f"that for {short.size / MB:.0f} MB",
                    f"{ratio:.2f}× ({long.peaks[name] / 1024:.1f} / "
                    f"{short.peaks[name] / 1024:.1f} MB)",
                    ratio <= FLAT,
                )
            )
    slowest = [run for name, run in report.startup.items() if name.startswith("inspector")]
    if slowest:
        worst = max(slowest, key=lambda run: run.wall)
        out.append(
            (
                f"start-up of every CLI command < {STARTUP_SECONDS * 1000:.0f} ms",
                f"{worst.wall * 1000:.0f} ms (`{worst.name}`)",
                all(r.ok for r in slowest) and worst.wall < STARTUP_SECONDS,
            )
        )
    return out


def _when() -> str:
    """When the run ended, to the minute (UTC): every table of one run says the same."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def render(report: Report) -> str:
    """The results as Markdown."""
    lines = [
        f"Command: `{report.command}` — {_when()}, "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f} at the end; medians of {report.rounds} "
        "interleaved rounds.",
        "",
    ]
    if report.runs:
        lines += [
            f"#### Commands on a {report.stream_bytes / MB:.1f} MB OpenAI-Chat stream "
            f"({report.frames:,} events)",
            "",
            "| command | input | wall s | CPU s | MB/s | peak RSS MB "
            "| × SDK loop (wall) | × SDK loop (CPU) |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for kind in ("raw", "capture"):
            base = report.runs.get((BASELINE, kind))
            for (name, run_kind), run in report.runs.items():
                if run_kind != kind:
                    continue
                ratio = cpu_ratio = "—"
                if base is not None and name != BASELINE:
                    ratio = f"{base.wall / run.wall:.2f}×"
                    cpu_ratio = f"{base.cpu / run.cpu:.2f}×"
                failed = "" if run.ok else " (**failed**)"
                lines.append(
                    f"| {name}{failed} | {'raw .sse' if kind == 'raw' else 'capture .jsonl'} "
                    f"| {run.wall:.2f} | {run.cpu:.2f} | {report.stream_bytes / run.wall / MB:.1f} "
                    f"| {run.max_rss / MB:.0f} | {ratio} | {cpu_ratio} |"
                )
        lines.append("")
    if report.folder:
        lines += [
            f"#### `inspector check DIR`: {report.folder_files} captures of the four providers, "
            f"{report.folder_bytes / MB:.1f} MB in all",
            "",
            "| command | wall s | CPU s | MB/s | × `--jobs 1` (wall) |",
            "|---|---:|---:|---:|---:|",
        ]
        one = report.folder["check DIR --jobs 1"]
        same = "identical to" if report.folder_identical else "**differs from**"
        lines += [
            f"| `inspector {name}`{'' if run.ok else ' (**failed**)'} | {run.wall:.2f} "
            f"| {run.cpu:.2f} | {report.folder_bytes / run.wall / MB:.1f} "
            f"| {one.wall / run.wall:.2f}× |"
            for name, run in report.folder.items()
        ]
        lines += [
            "",
            f"Output of every run {same} `--jobs 1`'s, byte for byte. "
            "CPU time counts the forked workers (reaped, so `wait4` adds them in).",
            "",
        ]
    if report.memory:
        names = list(report.memory[0].peaks)
        lines += [
            "#### Memory of headless `record` and the proxy against the stream's length",
            "",
            "| stream | " + " | ".join(f"{n.split()[0]} peak RSS MB" for n in names) + " |",
            "|---:|" + "---:|" * len(names),
        ]
        lines += [
            f"| {row.size / MB:.0f} MB | "
            + " | ".join(f"{row.peaks[n] / 1024:.1f}" for n in names)
            + " |"
            for row in report.memory
        ]
        lines.append("")
    if report.startup:
        lines += [
            "#### Start-up (a 3 KB stream, or `--help`)",
            "",
            "| command | wall ms | CPU ms | peak RSS MB |",
            "|---|---:|---:|---:|",
        ]
        lines += [
            f"| `{name}`{'' if run.ok else ' (**failed**)'} | {run.wall * 1000:.0f} "
            f"| {run.cpu * 1000:.0f} | {run.max_rss / MB:.0f} |"
            for name, run in report.startup.items()
        ]
        lines.append("")
    checks = targets(report)
    if checks:
        lines += ["#### Targets (whole processes)", "", "| target | measured | met |"]
        lines += ["|---|---:|:---:|"]
        lines += [f"| {name} | {got} | {'yes' if ok else '**no**'} |" for name, got, ok in checks]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.process", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="4 MB, 3 rounds, no doc update")
    parser.add_argument("--size", type=float, help="stream size in MB (default 30, quick 4)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5, quick 3)")
    parser.add_argument(
        "--only",
        help="comma-separated parts: check,events,export,paint (each beside the baseline), "
        "folder, startup, memory",
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a run is killed")
    parser.add_argument(
        "--write",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="update docs/performance.md (default: yes, except with --quick)",
    )
    args = parser.parse_args(argv)
    size = int(args.size * MB) if args.size else (QUICK_SIZE if args.quick else FULL_SIZE)
    rounds = args.rounds or (3 if args.quick else 5)
    only = set(args.only.split(",")) if args.only else None
    # An installed package runs from compiled bytecode; an editable checkout
    # under PYTHONDONTWRITEBYTECODE would recompile every module at each start.
    compileall.compile_dir(ROOT / "inspector", quiet=1)
    with tempfile.TemporaryDirectory(prefix="inspector-process-") as directory:
        report = measure(
            Path(directory),
            size,
            rounds,
            only,
            args.timeout,
            startup=only is None or "startup" in only,
            folder=only is None or "folder" in only,
            memory=only is None or "memory" in only,
        )
    command = "python -m benchmarks.process " + " ".join(argv if argv is not None else sys.argv[1:])
    report.command = command.strip()
    markdown = render(report)
    print(markdown)
    if args.write if args.write is not None else not args.quick:
        write_doc(markdown, DOC, START, END)
        print(f"updated {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0 if all(ok for _, _, ok in targets(report)) else 1


if __name__ == "__main__":
    sys.exit(main())
