"""What ``inspector proxy`` adds: time to first byte, time per chunk, and latency per chunk.

    python -m benchmarks.bench_proxy            # 5,000-chunk stream, 15 rounds
    python -m benchmarks.bench_proxy --quick    # 1,000 chunks, 5 rounds

Two fresh processes, as a user runs them: ``inspector serve`` playing a
generated OpenAI Chat capture, and ``inspector proxy --headless --upstream``
in front of it, recording every exchange to a temporary directory. This
process is the app: an httpx client reading the raw body. Each round makes
one request straight to ``serve`` and one through the proxy (their order
alternates by round, so drift in the machine's load hits both), and every
figure is a median over the rounds:

* **flat out** — the stream served with no delays (``?speed=0``): time to
  the first body byte, and to the last, per request. The proxy's cost per
  chunk is (proxied − direct) / chunks, and the ratio proxied / direct says
  how much slower the whole stream arrives.
* **paced** — a stream whose chunks were recorded 2 ms apart, played at
  their recorded time: for each recorded chunk, when its last byte reached
  the app (seconds since the request was sent). The proxy's added latency
  per chunk is that time through the proxy minus the time direct, chunk by
  chunk; the median and 95th percentile over chunks of the round medians
  are shown. This is what "no buffering" means: a chunk reaches the app
  about one copy later than it would have directly, not when some buffer
  fills.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from inspector.capture import CaptureWriter

__all__ = ["Measurement", "arrivals", "main", "write_stream"]

PACE = 0.002  # seconds between the paced stream's chunks


def _frame(i: int, finish: str | None = None) -> bytes:
    delta = {"content": f"w{i} "} if i else {"role": "assistant", "content": ""}
    body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
    return b"data: " + orjson.dumps(body) + b"\n\n"


def write_stream(path: Path, chunks: int, pace: float) -> list[int]:
    """An OpenAI Chat capture of ``chunks`` one-frame chunks ``pace`` s apart; its chunk ends."""
    writer = CaptureWriter(path, {"provider": "openai-chat", "response": {"status": 200}})
    ends: list[int] = []
    offset = 0
    for i in range(chunks):
        data = _frame(i) if i < chunks - 1 else _frame(i, "stop") + b"data: [DONE]\n\n"
        writer.chunk(i * pace, data)
        offset += len(data)
        ends.append(offset)
    writer.end("eof", chunks * pace)
    return ends


@contextmanager
def _process(command: list[str], log: Path, ready: str) -> Iterator[tuple[str, int]]:
    """Start ``command`` (stdout to ``log``); yield the URL its first line gives, and its pid."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL)
    try:
        for _ in range(2000):
            text = log.read_text() if log.exists() else ""
            if text.startswith(ready) and "\n" in text:
                yield next(w for w in text.split() if w.startswith("http://")), process.pid
                return
            if process.poll() is not None:
                raise RuntimeError(f"{command[3]} exited: {text}")
            time.sleep(0.01)
        raise RuntimeError(f"{command[3]} did not start")
    finally:
        process.terminate()
        process.wait(10)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def arrivals(
    client: httpx.Client, url: str, model: str, ends: list[int]
) -> tuple[float, list[float]]:
    """Time to the first body byte, and when each chunk end arrived (s since the request)."""
    times: list[float] = []
    received = 0
    first = 0.0
    index = 0
    start = time.perf_counter()
    with client.stream("POST", url, json={"model": model, "stream": True}) as response:
        for data in response.iter_raw():
            now = time.perf_counter() - start
            if not received:
                first = now
            received += len(data)
            while index < len(ends) and ends[index] <= received:
                times.append(now)
                index += 1
    if index != len(ends):
        raise RuntimeError(f"{url}: {received} bytes, expected {ends[-1]}")
    return first, times


@dataclass
class Measurement:
    """Medians over the rounds."""

    chunks: int
    rounds: int
    direct_first: float
    proxied_first: float
    direct_total: float
    proxied_total: float
    #: CPU seconds per chunk: serve's when serving directly, the proxy's own when proxying.
    serve_cpu: float
    proxy_cpu: float
    paced_chunks: int
    added_median: float
    added_p95: float

    def lines(self) -> list[str]:
        """The report."""
        per_chunk = (self.proxied_total - self.direct_total) / self.chunks
        return [
            f"flat out, {self.chunks:,} chunks, {self.rounds} rounds (medians):",
            f"  first byte   direct {self.direct_first * 1e3:7.2f} ms   proxied "
            f"{self.proxied_first * 1e3:7.2f} ms   added {(self.proxied_first - self.direct_first) * 1e3:6.2f} ms",  # noqa: E501
            f"  last byte    direct {self.direct_total * 1e3:7.1f} ms   proxied "
            f"{self.proxied_total * 1e3:7.1f} ms   ratio {self.proxied_total / self.direct_total:5.2f}x"  # noqa: E501
            f"   added per chunk {per_chunk * 1e6:6.1f} µs",
            f"  CPU per chunk: the proxy {self.proxy_cpu * 1e6:.1f} µs (relay and recording), "
            f"serve {self.serve_cpu * 1e6:.1f} µs "
            f"(ratio {self.proxy_cpu / max(self.serve_cpu, 1e-9):.2f}x)",
            f"paced, {self.paced_chunks:,} chunks {PACE * 1e3:g} ms apart: latency added per chunk "
            f"median {self.added_median * 1e3:.2f} ms, p95 {self.added_p95 * 1e3:.2f} ms",
        ]


def measure(chunks: int, paced_chunks: int, rounds: int) -> Measurement:
    """Run both scenarios (see the module docstring)."""
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-proxy-") as tmp:
        root = Path(tmp)
        (root / "streams").mkdir()
        flat_ends = write_stream(root / "streams" / "flat.jsonl", chunks, 0.0)
        paced_ends = write_stream(root / "streams" / "paced.jsonl", paced_chunks, PACE)
        serve = [python, "-m", "inspector", "serve", str(root / "streams"), "--port", "0"]
        with _process(serve, root / "serve.out", "serving") as (upstream, serve_pid):
            proxy = [python, "-m", "inspector", "proxy", "--headless", "--port", "0",
                     "--upstream", upstream, "-o", str(root / "recorded")]  # fmt: skip
            with (
                _process(proxy, root / "proxy.out", "proxying") as (proxied, proxy_pid),
                httpx.Client(timeout=60) as client,
            ):
                bases = {"direct": upstream, "proxied": proxied}
                first: dict[str, list[float]] = {"direct": [], "proxied": []}
                total: dict[str, list[float]] = {"direct": [], "proxied": []}
                paced: dict[str, list[list[float]]] = {"direct": [], "proxied": []}
                cpu = {"direct": 0.0, "proxied": 0.0}  # serve's, and the proxy's own
                pids = {"direct": serve_pid, "proxied": proxy_pid}
                path = "/v1/chat/completions"
                for base in bases.values():  # warm up: connections, imports, caches
                    arrivals(client, f"{base}{path}?speed=0", "flat", flat_ends)
                for round_ in range(rounds):
                    order = list(bases) if round_ % 2 == 0 else list(reversed(bases))
                    for name in order:
                        url = f"{bases[name]}{path}?speed=0"
                        before = cpu_seconds(pids[name])
                        start, times = arrivals(client, url, "flat", flat_ends)
                        cpu[name] += cpu_seconds(pids[name]) - before
                        first[name].append(start)
                        total[name].append(times[-1])
                    for name in order:
                        url = f"{bases[name]}{path}"  # the recorded timing
                        paced[name].append(arrivals(client, url, "paced", paced_ends)[1])
    added = [
        statistics.median(p[i] for p in paced["proxied"])
        - statistics.median(d[i] for d in paced["direct"])
        for i in range(paced_chunks)
    ]
    return Measurement(
        chunks=chunks,
        rounds=rounds,
        direct_first=statistics.median(first["direct"]),
        proxied_first=statistics.median(first["proxied"]),
        direct_total=statistics.median(total["direct"]),
        proxied_total=statistics.median(total["proxied"]),
        serve_cpu=cpu["direct"] / (rounds * chunks),
        proxy_cpu=cpu["proxied"] / (rounds * chunks),
        paced_chunks=paced_chunks,
        added_median=statistics.median(added),
        added_p95=statistics.quantiles(added, n=20)[-1] if len(added) > 1 else added[0],
    )


def main(argv: list[str] | None = None) -> int:
    """Print the measurement."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_proxy")
    parser.add_argument("--quick", action="store_true", help="1,000 chunks, 5 rounds")
    parser.add_argument("--chunks", type=int, help="chunks of the flat-out stream")
    parser.add_argument("--paced-chunks", type=int, help="chunks of the paced stream")
    parser.add_argument("--rounds", type=int, help="rounds")
    args = parser.parse_args(argv)
    chunks = args.chunks or (1000 if args.quick else 5000)
    paced_chunks = args.paced_chunks or (100 if args.quick else 500)
    rounds = args.rounds or (5 if args.quick else 15)
    for line in measure(chunks, paced_chunks, rounds).lines():
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
