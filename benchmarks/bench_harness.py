"""The harness's speed: matrix throughput, and the guard's cost per chunk.

    python -m benchmarks.bench_harness              # default sizes
    python -m benchmarks.bench_harness --quick      # a smaller run (the smoke test's)

- **matrix throughput**: runs per second of ``run_matrix`` over the bundled
  OpenAI Chat captures and every mutation that ends without a stall (a stall
  costs the progress timeout by design: its speed is the timeout's), for the
  ``openai-chat`` SDK driver and for a driver that only reads the bytes (the
  harness's own overhead: oracle, mutation, transport, thread).
- **guard overhead**: the same provider streams (``benchmarks.streams``: text
  deltas, a fragmented tool call, the final signal), one chunk per frame, read
  through an ``httpx.Client`` by ``iter_raw`` with and without
  ``GuardTransport`` in the same run, interleaved; reported as microseconds per
  chunk and the ratio. Best of ``--repeat`` runs each.
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

import httpx

from inspector.capture import load_recording
from inspector.guard import GuardTransport
from inspector.harness.drivers import DRIVERS, Driver, Outcome, Target, available
from inspector.harness.mutations import MUTATIONS, applicable
from inspector.harness.runner import Settings, run_matrix
from inspector.harness.scenario import Scenario, base_of
from inspector.harness.transport import ScenarioTransport

from .streams import GENERATORS, frames_in

ROOT = Path(__file__).resolve().parent.parent
NO_STALL = [name for name in MUTATIONS if not name.startswith("stall") and name != "hold-open"]


def _reader(target: Target) -> Outcome:
    with target.http_client.stream("POST", target.base_url + "/v1/chat/completions") as r:
        for _ in r.iter_raw():
            pass
    return Outcome(True)


READER = Driver("bytes-reader", ("openai-chat",), None, _reader, lambda: (httpx.HTTPError,))


def matrix_throughput(driver: Driver, jobs: int, limit: int | None) -> tuple[int, float]:
    """(runs, seconds) for the no-stall matrix over the bundled Chat captures."""
    paths = sorted(p for p in (ROOT / "captures" / "openai-chat").glob("*.jsonl")
                   if not p.name.endswith(".events.jsonl"))[:limit]  # fmt: skip
    cells = []
    for path in paths:
        base = base_of(load_recording(path), path)
        assert base is not None
        cells += [(driver, s) for s in applicable(base, NO_STALL)]
    settings = Settings(timeout=2.0, margin=2.0)
    list(run_matrix(cells[:1], settings))  # imports and first-use costs, not timed
    start = time.perf_counter()
    results = list(run_matrix(cells, settings, jobs))
    return len(results), time.perf_counter() - start


def _read(scenario: Scenario, guard: bool) -> float:
    transport: httpx.BaseTransport = ScenarioTransport(scenario, threading.Event())
    if guard:
        transport = GuardTransport(transport, provider=scenario.provider)
    start = time.perf_counter()
    with (
        httpx.Client(transport=transport) as client,
        client.stream("POST", "http://bench/v1/chat/completions") as response,
    ):
        for _ in response.iter_raw():
            pass
    return time.perf_counter() - start


def guard_overhead(provider: str, n_text: int, repeat: int) -> dict[str, float]:
    """Microseconds per chunk with and without the guard, best of ``repeat`` each."""
    body = GENERATORS[provider](n_text)
    frames = frames_in(body)
    # one chunk per frame, as a live stream arrives
    pieces: list[bytes] = []
    start = 0
    for end in _frame_ends(body):
        pieces.append(body[start:end])
        start = end
    if start < len(body):
        pieces.append(body[start:])
    scenario = Scenario("bench", "as-recorded", provider, "m", tuple(pieces))
    plain, guarded = [], []
    for _ in range(repeat):  # interleaved: both see the same load
        plain.append(_read(scenario, False))
        guarded.append(_read(scenario, True))
    chunks = len(pieces)
    return {
        "chunks": chunks,
        "frames": frames,
        "bytes": len(body),
        "plain_us": min(plain) / chunks * 1e6,
        "guard_us": min(guarded) / chunks * 1e6,
        "ratio": min(guarded) / min(plain),
    }


def _sdk_read(scenario: Scenario, guard: bool) -> float:
    from inspector.harness.drivers import openai_chat

    transport: httpx.BaseTransport = ScenarioTransport(scenario, threading.Event())
    if guard:
        transport = GuardTransport(transport, provider=scenario.provider)
    with httpx.Client(transport=transport) as client:
        start = time.perf_counter()
        outcome = openai_chat(Target("http://bench", "openai-chat", "m", 10.0, client))
        elapsed = time.perf_counter() - start
    assert outcome.ok
    return elapsed


def sdk_overhead(n_text: int, repeat: int) -> dict[str, float]:
    """The openai SDK's usual Chat loop, per chunk, with and without the guard."""
    body = GENERATORS["openai-chat"](n_text)
    ends = _frame_ends(body)
    pieces = tuple(body[a:b] for a, b in zip([0, *ends], ends, strict=False))
    scenario = Scenario("bench", "as-recorded", "openai-chat", "m", pieces)
    plain, guarded = [], []
    for _ in range(repeat):
        plain.append(_sdk_read(scenario, False))
        guarded.append(_sdk_read(scenario, True))
    chunks = len(pieces)
    return {
        "chunks": chunks,
        "plain_us": min(plain) / chunks * 1e6,
        "guard_us": min(guarded) / chunks * 1e6,
        "ratio": min(guarded) / min(plain),
    }


def _frame_ends(body: bytes) -> list[int]:
    from inspector.serve.faults import frame_ends

    return frame_ends(body)


def main(argv: list[str] | None = None) -> int:
    """Print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    limit = 3 if args.quick else None
    drivers = [READER] + ([DRIVERS["openai-chat"]] if available(DRIVERS["openai-chat"]) is None
                          else [])  # fmt: skip
    print("matrix throughput (no-stall mutations, bundled openai-chat captures)")
    for driver in drivers:
        runs, seconds = matrix_throughput(driver, args.jobs, limit)
        print(f"  {driver.name:14} {runs:5} runs in {seconds:6.2f} s: {runs / seconds:7.1f} runs/s"
              f" (jobs {args.jobs})")  # fmt: skip
    print("guard overhead per chunk (one chunk per frame, iter_raw, best of "
          f"{1 if args.quick else args.repeat})")  # fmt: skip
    n_text = 200 if args.quick else 5000
    for provider in GENERATORS:
        r = guard_overhead(provider, n_text, 1 if args.quick else args.repeat)
        print(f"  {provider:17} {int(r['chunks']):6} chunks {int(r['bytes']):8} B: no guard "
              f"{r['plain_us']:6.1f} us/chunk, guard {r['guard_us']:6.1f} us/chunk, "
              f"+{r['guard_us'] - r['plain_us']:5.1f} us ({r['ratio']:.2f}x)")  # fmt: skip
    if available(DRIVERS["openai-chat"]) is None:
        r = sdk_overhead(n_text, 1 if args.quick else args.repeat)
        print(f"  openai SDK loop   {int(r['chunks']):6} chunks: no guard {r['plain_us']:6.1f} "
              f"us/chunk, guard {r['guard_us']:6.1f} us/chunk, "
              f"+{r['guard_us'] - r['plain_us']:5.1f} us ({r['ratio']:.2f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
