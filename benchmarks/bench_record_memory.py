"""Peak memory of headless ``record`` and of the proxy, against the stream's length.

    python -m benchmarks.bench_record_memory                # 10, 50, 200 MB
    python -m benchmarks.bench_record_memory --quick        # 5, 20 MB
    python -m benchmarks.bench_record_memory --sizes 10,100 --base ../old-checkout --code DIR

Fresh processes, as a user runs them: ``inspector serve`` plays a generated
OpenAI Chat capture of N MB (``benchmarks.streams``, recorded in 16 KiB
chunks, served with no delays), and

* **record** — ``inspector record --base-url`` streams it to a capture file;
* **proxy** — ``inspector proxy --headless --upstream`` sits in front of
  serve, and this process, the app, streams the N MB through it (reading
  and dropping the body); the proxy then stops.

Each is measured once per size as a child process of its own: its peak
resident set (GNU time's ``%M`` for record; the proxy's ``VmHWM`` just before
it stops). With ``--base DIR``, **before** runs the code of another checkout (such as
one from before record and the proxy kept bounded traces) and **after**
this one. Memory that does not grow with the stream gives a
ratio peak(largest) / peak(smallest) of about 1.0; the target is within
1.15 (the interpreter, httpx and the imports are ~50 MB either way, and the
allocator's arenas move by a few MB between runs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from inspector.capture_writer import CaptureWriter

from .servers import started
from .streams import chunked, stream_of_size

__all__ = ["MemoryRow", "main", "measure", "write_capture"]

MB = 1_000_000
CHUNK = 16 * 1024
#: Peak ratio between the largest and the smallest stream that counts as flat.
FLAT = 1.15
MODEL = "bench"
GNU_TIME = "/usr/bin/time"
ROOT = Path(__file__).resolve().parent.parent


def write_capture(path: Path, size: int) -> int:
    """An OpenAI Chat capture of about ``size`` bytes, in 16 KiB chunks; its body's length."""
    body = stream_of_size("openai-chat", size)
    header = {
        "provider": "openai-chat",
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}},
    }
    writer = CaptureWriter(path, header)
    for piece in chunked(body, CHUNK):
        writer.chunk(0.0, piece)
    writer.end("eof", 0.0)
    return len(body)


@dataclass
class Code:
    """A checkout to run ``python -m inspector`` from."""

    name: str
    root: Path

    def command(self, *args: str) -> list[str]:
        """The command line for ``inspector ARGS`` from this checkout."""
        return [sys.executable, "-m", "inspector", *args]

    def environment(self) -> dict[str, str]:
        """The environment: this checkout first on the path, no provider keys."""
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["PYTHONPATH"] = str(self.root)
        return env


def _hwm_kib(pid: int) -> int:
    """The peak resident set (VmHWM, KiB) of a running process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmHWM for process {pid}")


def record_peak(code: Code, upstream: str, out: Path) -> tuple[int, str]:
    """Peak KiB of ``inspector record`` streaming the capture (GNU time's %M); its summary.

    Not ``wait4``'s ru_maxrss when GNU time is there: on Linux a child's
    figure starts from its parent's resident set at the fork, and this process
    holds a generated stream.
    """
    command = code.command("record", "--provider", "openai-chat", "--model", MODEL,
                           "--prompt", "hi", "--base-url", upstream, "--max-bytes", "0",
                           "-o", str(out))  # fmt: skip
    peak = out.with_suffix(".peak")
    timed = Path(GNU_TIME).is_file()
    if timed:
        command = [GNU_TIME, "-f", "%M", "-o", str(peak), *command]
    stdout, stderr = out.with_suffix(".out"), out.with_suffix(".err")
    with stdout.open("wb") as to_out, stderr.open("wb") as to_err:
        process = subprocess.Popen(
            command, stdout=to_out, stderr=to_err, env=code.environment(), cwd=code.root
        )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"record exited {process.returncode}: {stderr.read_text()}")
    kib = int(peak.read_text().split()[-1]) if timed else usage.ru_maxrss
    return kib, stdout.read_text().strip()


def proxy_peak(code: Code, upstream: str, directory: Path, size: int, log: Path) -> int:
    """Peak KiB of ``inspector proxy --headless`` relaying (and recording) the stream."""
    directory.mkdir()
    command = code.command("proxy", "--headless", "--port", "0", "--upstream", upstream,
                           "-o", str(directory))  # fmt: skip
    with started(command, log, env=code.environment(), cwd=code.root) as (process, url):
        received = 0
        with httpx.Client(timeout=120) as client, client.stream(
            "POST", f"{url}/v1/chat/completions", json={"model": MODEL, "stream": True}
        ) as response:  # fmt: skip
            for data in response.iter_raw():
                received += len(data)
        if received != size:
            raise RuntimeError(f"proxy relayed {received} bytes of {size}")
        time.sleep(0.5)  # the exchange's end: its capture closed, its trace dropped
        return _hwm_kib(process.pid)


@dataclass
class MemoryRow:
    """Peak RSS (KiB) of each process at one stream size."""

    size: int
    peaks: dict[str, int] = field(default_factory=dict)  # "record before" -> KiB


def measure(sizes: list[int], codes: list[Code], proxy: bool = True) -> list[MemoryRow]:
    """Every process, for every size and checkout (see the module docstring)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-record-memory-") as tmp:
        root = Path(tmp)
        for size in sizes:
            folder = root / f"streams-{size}"
            folder.mkdir()
            body = write_capture(folder / f"{MODEL}.jsonl", size)
            row = MemoryRow(body)
            serve = Code("serve", ROOT).command("serve", str(folder), "--port", "0", "--speed", "0")
            with started(serve, root / "serve.log", env=Code("serve", ROOT).environment()) as (
                _,
                upstream,
            ):
                for code in codes:
                    out = root / f"{code.name}-{size}.jsonl"
                    row.peaks[f"record {code.name}"], summary = record_peak(code, upstream, out)
                    print(f"  {size // MB} MB record {code.name}: {summary}", file=sys.stderr)
                    out.unlink()
                    if proxy:
                        where = root / f"proxy-{code.name}-{size}"
                        log = root / f"proxy-{code.name}-{size}.log"
                        row.peaks[f"proxy {code.name}"] = proxy_peak(
                            code, upstream, where, body, log
                        )
                        for capture in where.iterdir():
                            capture.unlink()
            rows.append(row)
    return rows


def table(rows: list[MemoryRow]) -> list[str]:
    """The markdown table: peak RSS per process and size, and the flatness ratio."""
    names = list(rows[0].peaks)
    lines = [
        "| stream | " + " | ".join(f"{name} (MB)" for name in names) + " |",
        "|---:|" + "---:|" * len(names),
    ]
    for row in rows:
        cells = " | ".join(f"{row.peaks[name] / 1024:.1f}" for name in names)
        lines.append(f"| {row.size / MB:.0f} MB | {cells} |")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        label = f"peak({last.size / MB:.0f})/peak({first.size / MB:.0f})"
        ratios = " | ".join(f"{last.peaks[n] / first.peaks[n]:.2f}x" for n in names)
        lines.append(f"| {label} | {ratios} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_record_memory")
    parser.add_argument("--quick", action="store_true", help="5 and 20 MB streams")
    parser.add_argument("--sizes", help="stream sizes in MB, comma-separated (default 10,50,200)")
    parser.add_argument("--base", type=Path, default=Path("none"),
                        help="another checkout to measure as 'before' (default: none, "
                        "only this one)")  # fmt: skip
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="the checkout measured as 'after' (default: this one)")  # fmt: skip
    parser.add_argument("--no-proxy", action="store_true", help="measure record only")
    args = parser.parse_args(argv)
    text = args.sizes or ("5,20" if args.quick else "10,50,200")
    sizes = [int(float(s) * MB) for s in text.split(",")]
    codes = [Code("after", args.code.resolve())]
    if str(args.base) != "none":
        if not (args.base / "inspector").is_dir():
            parser.error(f"--base {args.base}: no inspector package there")
        codes.insert(0, Code("before", args.base))
    rows = measure(sizes, codes, proxy=not args.no_proxy)
    for line in table(rows):
        print(line, flush=True)
    after = [name for name in rows[0].peaks if name.endswith("after")]
    if len(rows) > 1:
        worst = max(rows[-1].peaks[n] / rows[0].peaks[n] for n in after)
        verdict = "flat" if worst <= FLAT else "GROWS"
        print(f"\nafter: peak ratio {worst:.2f}x (flat means <= {FLAT}x): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
