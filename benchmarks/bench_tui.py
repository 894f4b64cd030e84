"""TUI benchmark: time to first paint and key latency on a 100,000-frame capture.

Not a test: it prints numbers. It generates two Anthropic Messages captures
with the same shape (a text block, a tool call whose arguments arrive in
many fragments, a ping every 50 frames) — one of 100 frames, the in-run
baseline, and one of 100,000 — and drives the real app headless with a
pilot. Each key's latency is the time from the key event until the screen
has been re-rendered (see ``_press``), so it includes Textual's own message
dispatch and compositor work, not only ours.

Then it replays a capture at 5,000 frames/s through a ``ReplayFeed`` and
reports how many repaints the app made (coalesced to at most 30/s).

    .venv/bin/python benchmarks/bench_tui.py [--frames 100000] [--steps 1000]

Targets (docs/tui.md): first paint < 2 s, step < 50 ms median, step latency
at 100k ≤ 1.5x that at 100.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import orjson
from textual import events
from textual.pilot import Pilot

from inspector.capture import load_recording
from inspector.core.trace import Trace
from inspector.feed import ReplayFeed
from inspector.session import load_trace
from inspector.tui import InspectorApp

SIZE = (200, 50)


def _event(name: str, payload: dict[str, object]) -> str:
    return f"event: {name}\ndata: {orjson.dumps(payload).decode()}\n\n"


def _delta(index: int, kind: str, key: str, value: str) -> str:
    delta = {"type": kind, key: value}
    return _event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def generate(path: Path, frames: int, step: float = 0.001) -> None:
    """Write an Anthropic capture of exactly ``frames`` frames, one chunk each."""
    body = [
        _event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "model": "claude-bench",
                    "id": "msg_bench",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
        ),
        _event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        ),
    ]
    closing = 7  # text stop, tool start, first/last fragment, tool stop, delta, stop
    text_frames = max(1, (frames - len(body) - closing) * 3 // 5)
    tool_frames = max(0, frames - len(body) - closing - text_frames)
    for i in range(text_frames):
        if i % 50 == 49:
            body.append(_event("ping", {"type": "ping"}))
        else:
            body.append(_delta(0, "text_delta", "text", f"word{i} "))
    body.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    body.append(
        _event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_bench",
                    "name": "f",
                    "input": {},
                },
            },
        )
    )
    body.append(_delta(1, "input_json_delta", "partial_json", '{"values": ['))
    for i in range(tool_frames):
        body.append(_delta(1, "input_json_delta", "partial_json", f"{i}, "))
    body.append(_delta(1, "input_json_delta", "partial_json", "0]}"))
    body.append(_event("content_block_stop", {"type": "content_block_stop", "index": 1}))
    body.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": frames},
            },
        )
    )
    body.append(_event("message_stop", {"type": "message_stop"}))
    header = {
        "type": "header",
        "format": "llm-stream-capture",
        "version": 1,
        "provider": "anthropic",
        "model": "claude-bench",
    }
    with path.open("wb") as out:
        out.write(orjson.dumps(header) + b"\n")
        for i, text in enumerate(body):
            out.write(
                orjson.dumps({"type": "chunk", "t": round(i * step, 6), "text": text}) + b"\n"
            )
        end = {"type": "end", "t": round(len(body) * step, 6), "reason": "eof", "error": None}
        out.write(orjson.dumps(end) + b"\n")


async def _press(pilot: Pilot[int], key: str) -> float:
    """Seconds from a key press until the screen is re-rendered.

    ``pilot.press`` itself polls for idleness in 20 ms sleeps (twice per
    key), which would swamp what we measure; this sends the same key event
    to the driver, waits until every widget processed its messages, then
    runs the screen's compositor refresh — exactly what ``pilot.pause``
    finishes with.
    """
    app = pilot.app
    assert app._driver is not None
    start = time.perf_counter()
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    await pilot._wait_for_screen()
    app.screen._on_timer_update()
    return time.perf_counter() - start


async def measure(trace: Trace, steps: int) -> dict[str, float]:
    """First paint, end/home latency, and ``steps`` single steps (median, p95)."""
    app = InspectorApp(trace)
    started = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first_paint = time.perf_counter() - started
        ends, homes = [], []
        for _ in range(10):
            ends.append(await _press(pilot, "end"))
            homes.append(await _press(pilot, "home"))
        # Steps bounce around the middle so every press moves the cursor.
        screen = app.screen
        screen.cursor.goto(len(trace.frames) // 2)  # type: ignore[attr-defined]
        screen.refresh_view()  # type: ignore[attr-defined]
        await pilot.pause()
        latencies = []
        for i in range(steps):
            key = "n" if (i // 40) % 2 == 0 else "p"
            latencies.append(await _press(pilot, key))
    latencies.sort()
    return {
        "first_paint": first_paint,
        "end": statistics.median(ends),
        "home": statistics.median(homes),
        "step": statistics.median(latencies),
        "step_p95": latencies[int(len(latencies) * 0.95) - 1],
    }


async def live_repaints(path: Path, frames_per_second: float) -> tuple[int, int, float]:
    """(notifications, repaints, seconds) replaying ``path`` at that many frames/s."""
    recording = load_recording(path)
    # Recorded at one frame per chunk: play it so chunks arrive at the asked rate.
    recorded_rate = len(recording.chunks) / max(recording.chunks[-1][0], 1e-9)
    feed = ReplayFeed(recording, speed=frames_per_second / recorded_rate)
    app = InspectorApp(feed)
    started = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        elapsed = time.perf_counter() - started
        throttle = app.throttle
        assert throttle is not None
        return throttle.notifications, throttle.repaints, elapsed


def main() -> None:
    """Generate, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = []
        for frames in (100, args.frames):
            path = Path(tmp) / f"bench-{frames}.jsonl"
            generate(path, frames)
            started = time.perf_counter()
            trace = load_trace(path)
            load = time.perf_counter() - started
            numbers = asyncio.run(measure(trace, args.steps))
            results.append((len(trace.frames), load, numbers))
        live_path = Path(tmp) / "bench-live.jsonl"
        generate(live_path, 10_000)
        notified, repainted, seconds = asyncio.run(live_repaints(live_path, 5000.0))
    print(
        f"TUI benchmark · {SIZE[0]}x{SIZE[1]} headless · {args.steps} single steps · medians (ms)"
    )
    print()
    head = "  frames      load  1st paint  load+paint       end      home      step  step p95"
    print(head)
    print("-" * len(head))
    for frames, load, n in results:
        cells = [load, n["first_paint"], load + n["first_paint"], n["end"], n["home"]]
        cells += [n["step"], n["step_p95"]]
        print(f"{frames:>8}" + "".join(f"{c * 1000:>10.1f}" for c in cells))
    base, big = results[0][2], results[1][2]
    print()
    ratio = big["step"] / base["step"]
    print(f"step latency ratio {results[1][0]:,} / {results[0][0]:,} frames: {ratio:.2f}x")
    print(
        f"live replay of 10,000 frames at 5,000 frames/s: {notified:,} notifications, "
        f"{repainted} repaints in {seconds:.1f} s ({repainted / seconds:.1f} repaints/s)"
    )


if __name__ == "__main__":
    main()
