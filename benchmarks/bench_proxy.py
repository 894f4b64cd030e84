"""What ``inspector proxy`` adds: time to first byte, time per chunk, and latency per chunk.

    python -m benchmarks.bench_proxy            # 5,000-chunk stream, 15 rounds
    python -m benchmarks.bench_proxy --quick    # 1,000 chunks, 5 rounds

Fresh processes, as a user runs them: ``inspector serve`` playing a
generated OpenAI Chat capture, and ``inspector proxy --headless --upstream``
in front of it, recording every exchange to a temporary directory. This
process is the app: an httpx client reading the raw body. Each round makes
one request straight to ``serve`` and one through each relay (the order
rotates by round, so drift in the machine's load hits all of them), and
every figure is a median over the rounds:

* **flat out** — the stream served with no delays (``?speed=0``): time to
  its last byte. The cost per chunk is (relayed − direct) / chunks, and the
  ratio relayed / direct says how much slower the whole stream arrives when
  the upstream sends as fast as it can (a provider never does).
* **paced** — a stream whose chunks were recorded 2 ms apart, played at
  their recorded time: when each chunk's last byte reached the app (seconds
  since the request was sent). Two figures: the latency added to the first
  byte (the request's way through the proxy and back), and the latency
  added to each later chunk *beyond* that (each chunk's arrival relative to
  the first one's, proxied minus direct; median and 95th percentile over
  the chunks). The second is what "no buffering" means: about zero, and not
  growing along the stream.

A third candidate, **copy**, is a bare TCP relay (asyncio, ``read`` then
``write``, no HTTP) between the same client and server: the floor any
proxy process in the path costs on this machine (an extra hop, an extra
process to schedule). CPU per chunk is the middle process's own (for
direct: serve's), read from ``/proc``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from inspector.capture_writer import CaptureWriter

from .servers import started

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


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def _copy_relay(upstream: str) -> None:
    """A TCP relay that only copies bytes both ways: the floor a proxy is compared with."""
    host, port = upstream.removeprefix("http://").rsplit(":", 1)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    print(f"relaying http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


#: The candidates, in the report's order: serve itself, a bare copy, the proxy.
CANDIDATES = ("direct", "copy", "proxy")


@dataclass
class Measurement:
    """Medians over the rounds, per candidate."""

    chunks: int
    rounds: int
    paced_chunks: int
    #: Time to the first body byte of the paced stream (it arrives alone).
    first: dict[str, float]
    #: Time to the last byte of the flat-out stream.
    total: dict[str, float]
    #: CPU seconds per chunk of the process in the middle (for "direct": serve's own).
    cpu: dict[str, float]
    #: Latency added per paced chunk against "direct": (median, 95th percentile).
    added: dict[str, tuple[float, float]]

    def lines(self) -> list[str]:
        """The report."""
        out = [
            f"flat out: {self.chunks:,} chunks, {self.rounds} rounds, medians",
            f"  {'':8} {'last byte':>11} {'ratio':>7} {'added/chunk':>12} {'CPU/chunk':>10}",
        ]
        for name in CANDIDATES:
            ratio = self.total[name] / self.total["direct"]
            per_chunk = (self.total[name] - self.total["direct"]) / self.chunks
            out.append(
                f"  {name:8} {self.total[name] * 1e3:8.1f} ms {ratio:6.2f}x "
                f"{per_chunk * 1e6:9.1f} µs {self.cpu[name] * 1e6:7.1f} µs"
            )
        out.append(
            f"paced: {self.paced_chunks:,} chunks {PACE * 1e3:g} ms apart, medians; latency "
            "added against direct: to the first byte, and to each later chunk beyond that "
            "(median, p95)"
        )
        for name in CANDIDATES:
            line = f"  {name:8} first byte {self.first[name] * 1e3:6.2f} ms"
            if name in self.added:
                median, p95 = self.added[name]
                first_added = (self.first[name] - self.first["direct"]) * 1e3
                ratio = self.first[name] / self.first["direct"]
                line += (f" ({ratio:4.2f}x)  added {first_added:6.2f} ms   then per chunk "
                         f"{median * 1e3:5.2f} ms, p95 {p95 * 1e3:5.2f} ms")  # fmt: skip
            out.append(line)
        return out


def _added(paced: dict[str, list[list[float]]], name: str, chunks: int) -> tuple[float, float]:
    """Latency added to each chunk beyond what was added to the first: (median, p95).

    Each chunk's arrival is taken relative to the first chunk's, for the
    candidate and for direct: what the request path adds (once, before the
    first byte) cancels out, and what remains is what forwarding adds per
    chunk — a proxy that buffered, or fell behind, would show it growing.
    """
    added = [
        statistics.median(run[i] - run[0] for run in paced[name])
        - statistics.median(run[i] - run[0] for run in paced["direct"])
        for i in range(1, chunks)
    ]
    if not added:
        return 0.0, 0.0
    p95 = statistics.quantiles(added, n=20)[-1] if len(added) > 1 else added[0]
    return statistics.median(added), p95


def measure(chunks: int, paced_chunks: int, rounds: int) -> Measurement:
    """Run both scenarios (see the module docstring)."""
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-proxy-") as tmp:
        root = Path(tmp)
        (root / "streams").mkdir()
        flat_ends = write_stream(root / "streams" / "flat.jsonl", chunks, 0.0)
        paced_ends = write_stream(root / "streams" / "paced.jsonl", paced_chunks, PACE)
        serve = [python, "-m", "inspector", "serve", str(root / "streams"), "--port", "0"]
        with started(serve, root / "serve.out", ready="serving") as (server, upstream):
            proxy = [python, "-m", "inspector", "proxy", "--headless", "--port", "0",
                     "--upstream", upstream, "-o", str(root / "recorded")]  # fmt: skip
            copy = [python, "-m", "benchmarks.bench_proxy", "--copy-relay", upstream]
            with (
                started(proxy, root / "proxy.out", ready="proxying") as (proxy_process, proxied),
                started(copy, root / "copy.out", ready="relaying") as (relay, copied),
                httpx.Client(timeout=60) as client,
            ):
                bases = {"direct": upstream, "copy": copied, "proxy": proxied}
                pids = {"direct": server.pid, "copy": relay.pid, "proxy": proxy_process.pid}
                total: dict[str, list[float]] = {name: [] for name in CANDIDATES}
                paced: dict[str, list[list[float]]] = {name: [] for name in CANDIDATES}
                cpu = dict.fromkeys(CANDIDATES, 0.0)
                path = "/v1/chat/completions"
                for base in bases.values():  # warm up: connections, imports, caches
                    arrivals(client, f"{base}{path}?speed=0", "flat", flat_ends)
                for round_ in range(rounds):
                    # Rotate the order: each candidate goes first as often as the others.
                    order = CANDIDATES[round_ % 3 :] + CANDIDATES[: round_ % 3]
                    for name in order:
                        url = f"{bases[name]}{path}?speed=0"
                        before = cpu_seconds(pids[name])
                        times = arrivals(client, url, "flat", flat_ends)[1]
                        cpu[name] += cpu_seconds(pids[name]) - before
                        total[name].append(times[-1])
                    for name in order:
                        url = f"{bases[name]}{path}"  # the recorded timing
                        paced[name].append(arrivals(client, url, "paced", paced_ends)[1])
    return Measurement(
        chunks=chunks,
        rounds=rounds,
        paced_chunks=paced_chunks,
        first={name: statistics.median(run[0] for run in paced[name]) for name in CANDIDATES},
        total={name: statistics.median(total[name]) for name in CANDIDATES},
        cpu={name: cpu[name] / (rounds * chunks) for name in CANDIDATES},
        added={name: _added(paced, name, paced_chunks) for name in CANDIDATES[1:]},
    )


def main(argv: list[str] | None = None) -> int:
    """Print the measurement."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_proxy")
    parser.add_argument("--quick", action="store_true", help="1,000 chunks, 5 rounds")
    parser.add_argument("--chunks", type=int, help="chunks of the flat-out stream")
    parser.add_argument("--paced-chunks", type=int, help="chunks of the paced stream")
    parser.add_argument("--rounds", type=int, help="rounds")
    parser.add_argument("--copy-relay", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.copy_relay:
        asyncio.run(_copy_relay(args.copy_relay))
        return 0
    chunks = args.chunks or (1000 if args.quick else 5000)
    paced_chunks = args.paced_chunks or (100 if args.quick else 500)
    rounds = args.rounds or (5 if args.quick else 15)
    for line in measure(chunks, paced_chunks, rounds).lines():
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
