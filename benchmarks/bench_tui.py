"""TUI benchmark: first paint, key latency, and the frame rate live mode absorbs.

Not a test: it prints numbers. Both parts drive the real app headless
(``InspectorApp(...).run_test(size=(200, 50))``) with a pilot.

**Captures.** Two Anthropic Messages captures with the same shape (a text
block, a tool call whose arguments arrive in many fragments, a ping every 50
frames) — one of 100 frames, the in-run baseline, and one of 100,000: load
time, time to first paint, and the latency of ``end``, ``home`` and single
steps on each, and the step latency ratio 100,000 / 100.

**Live ingest.** A :class:`SyntheticFeed` (the ``Feed`` protocol) feeds an
OpenAI Chat stream of ~220-byte text deltas through a real ``Normalizer`` at
a steady R frames/s, four frames per chunk, calling ``notify()`` after every
chunk as a live feed does, while the app follows the newest frame. Meanwhile
a key is pressed every 100 ms: ``p n [ f p n [ f`` (stepping away from the
newest frame and following it again), then ``?`` and escape (the help screen
opened and closed) — a round a second. Per rate: the rate the feed achieved,
the stepping keys' and the help keys' latency (median, p95), repaints per
second and their CPU cost, the process's CPU, full garbage collections, and
whether the view kept up: every frame fed is in the trace, the feed achieved
≥ 95% of R (the event loop was not starved), and the newest frame was on
screen within 100 ms of the feed's end. The answer is the highest rate up to
which every rate kept up with the stepping keys answered within 100 ms (p95).
Each live run is a fresh interpreter, as each live session is.

A key's latency (``_press``) runs from posting the key event to the driver
until the screen has handled it (its effect is visible: the cursor moved, a
screen opened or closed) and the compositor has re-rendered — Textual's own
dispatch and compositor work included, without ``pilot.press``'s idle polling.

    .venv/bin/python benchmarks/bench_tui.py            # full run (about 4 minutes)
    .venv/bin/python benchmarks/bench_tui.py --quick    # 10,000 frames, 2 rates, 1 run
    .venv/bin/python benchmarks/bench_tui.py --only live --rates 5000,10000 --runs 5
    .venv/bin/python benchmarks/bench_tui.py --only live --full-gc-after 100  # GC experiment

Targets (docs/tui.md, issue 7): first paint < 2 s, step < 50 ms median, step
latency at 100k ≤ 1.5x that at 100, live view keeps up with ≥ 5,000 frames/s.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
from textual import events
from textual.pilot import Pilot

from inspector.core.normalizer import Normalizer, stream_id_for
from inspector.core.trace import Trace, TransportEnd
from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.main import MainScreen

SIZE = (200, 50)

#: Live sweep: target rates (frames/s), seconds of stream per run, runs per rate.
LIVE_RATES = (100, 1_000, 2_500, 5_000, 10_000, 20_000, 40_000)
LIVE_SECONDS = 5.0
LIVE_RUNS = 3
#: Frames per chunk (a socket read of ~0.9 KB at ~220 B a frame).
CHUNK_FRAMES = 4
#: The keys pressed while the stream arrives, one every ``KEY_EVERY`` s, a second a
#: round: the stepping keys twice (``p`` stops following, ``f`` follows again), then
#: the help screen opened and closed. Each has a visible effect even between repaints.
STEP_KEYS = ("p", "n", "left_square_bracket", "f")
SCREEN_KEYS = ("question_mark", "escape")
KEY_CYCLE = STEP_KEYS + STEP_KEYS + SCREEN_KEYS
KEY_EVERY = 0.1
#: How often a key's effect is checked while it is in flight (see ``_press``).
KEY_POLL = 0.001
#: "Keeps up": achieved rate ≥ this share of the target; newest frame shown within …
KEEP_UP_SHARE = 0.95
SHOWN_WITHIN = 0.1
#: … and keys answered within this (p95).
KEY_BUDGET = 0.1

_CHARACTERS = {"left_square_bracket": "[", "question_mark": "?", "escape": "\x1b"}


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


async def _press(
    pilot: Pilot[int], key: str, handled: Callable[[], bool], poll: float = 0.0
) -> float:
    """Seconds from posting ``key`` until the screen handled it and re-rendered.

    ``handled`` says when the key's effect is visible (the cursor moved, a
    screen opened). Posting the event and then waiting for the screen's
    message queues to drain is not enough: the key reaches the driver on the
    next loop turn and the screen through two more queues, so the drain can
    finish before the key is even dispatched. So: post the event as
    ``pilot.press`` does, yield to the loop until ``handled()``, let every
    widget process what the action queued, then run the screen's compositor
    refresh — what ``pilot.pause`` finishes with, without its idle polling
    (20 ms sleeps) that would swamp what we measure. ``poll`` > 0 checks
    ``handled()`` every ``poll`` seconds instead of every loop turn (the live
    benchmark's choice, so that waiting costs no CPU; it adds up to about a
    millisecond).
    """
    app = pilot.app
    assert app._driver is not None
    start = time.perf_counter()
    deadline = start + 30.0
    event = events.Key(key, _CHARACTERS.get(key, key if len(key) == 1 else None))
    event.set_sender(app)
    app._driver.send_message(event)
    while not handled():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"the key {key!r} was not handled within 30 s")
        await asyncio.sleep(poll)
    await pilot._wait_for_screen()
    app.screen._on_timer_update()
    return time.perf_counter() - start


def _moves(screen: MainScreen) -> Callable[[], bool]:
    """``handled`` for a key that moves the cursor: it is no longer where it was."""
    before = (screen.cursor.position, screen.cursor.event)
    return lambda: (screen.cursor.position, screen.cursor.event) != before


async def measure(trace: Trace, steps: int) -> dict[str, float]:
    """First paint, end/home latency, and ``steps`` single steps (median, p95)."""
    app = InspectorApp(trace)
    started = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first_paint = time.perf_counter() - started
        screen = app.screen
        assert isinstance(screen, MainScreen)
        ends, homes = [], []
        for _ in range(10):
            ends.append(await _press(pilot, "end", _moves(screen)))
            homes.append(await _press(pilot, "home", _moves(screen)))
        # Steps bounce around the middle so every press moves the cursor.
        screen.cursor.goto(len(trace.frames) // 2)
        screen.refresh_view()
        await pilot.pause()
        latencies = []
        for i in range(steps):
            key = "n" if (i // 40) % 2 == 0 else "p"
            latencies.append(await _press(pilot, key, _moves(screen)))
    latencies.sort()
    return {
        "first_paint": first_paint,
        "end": statistics.median(ends),
        "home": statistics.median(homes),
        "step": statistics.median(latencies),
        "step_p95": _p95(latencies),
    }


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


# -- live ingest -----------------------------------------------------------------

_CHAT_BASE = {
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion.chunk",
    "created": 1741569952,
    "model": "gpt-4o-2024-08-06",
}
_WORDS = (" the", " stream", " arrives", " in", " small", " pieces", ",", " and", " each", " one")


def chat_frames(count: int) -> list[bytes]:
    """``count`` OpenAI Chat SSE frames (~220 B each): text deltas, a stop, ``[DONE]``.

    The shape of ``benchmarks/streams.py``'s ``openai_chat`` (and of the
    recordings in ``fixtures/real``): a role delta, ``count - 4`` text deltas,
    ``finish_reason: stop``, a usage chunk, ``[DONE]``.
    """

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return b"data: " + orjson.dumps({**_CHAT_BASE, "choices": [choice]}) + b"\n\n"

    n_text = max(0, count - 4)
    frames = [chunk({"role": "assistant", "content": "", "refusal": None})]
    frames += [chunk({"content": _WORDS[i % len(_WORDS)]}) for i in range(n_text)]
    frames.append(chunk({}, "stop"))
    usage = {"prompt_tokens": 78, "completion_tokens": n_text, "total_tokens": n_text + 78}
    usage_frame = {**_CHAT_BASE, "choices": [], "usage": usage}
    frames.append(b"data: " + orjson.dumps(usage_frame) + b"\n\n")
    frames.append(b"data: [DONE]\n\n")
    return frames


class SyntheticFeed:
    """A live stream at a steady rate: the ``Feed`` protocol over pre-built chunks.

    ``run`` waits for :attr:`go` (set once the app has painted, as a real
    stream's first byte comes after the connection), then feeds chunk ``i`` at
    ``start + i * len(chunk) / rate`` through a ``Normalizer`` and calls
    ``notify()`` after each, as ``inspector.live`` does after each socket
    read. A chunk that is already due is fed after one ``sleep(0)``: a socket
    read yields to the loop once even when bytes are waiting (anyio's
    checkpoint), so a feed that falls behind catches up in a burst but never
    holds the loop for longer than one chunk.
    """

    def __init__(self, chunks: list[bytes], frames: int, rate: float) -> None:
        self.chunks = chunks
        self.frames = frames
        self.rate = rate
        self.per_chunk = chunks[0].count(b"\n\n")
        self.normalizer = Normalizer("openai-chat", stream_id_for(b"synthetic", chunks[0]))
        self.trace = self.normalizer.trace
        self.description = f"synthetic · openai-chat · {rate:,.0f} frames/s"
        self.exchange: dict[str, Any] = {"request": None, "response": None, "timings": {}}
        self.go = asyncio.Event()
        self.started: float | None = None  # perf_counter at the first chunk's due time
        self.last_fed: float | None = None  # … after the last chunk was fed
        self.ended: float | None = None  # … after the end was fed and notified
        self._cancelled = False

    async def run(self, notify: Callable[[], None]) -> None:
        """Feed every chunk on schedule, then end the stream ``eof``."""
        await self.go.wait()
        clock = time.perf_counter
        start = self.started = clock()
        fed = 0
        for chunk in self.chunks:
            if self._cancelled:
                break
            delay = start + fed / self.rate - clock()
            await asyncio.sleep(delay if delay > 0 else 0)
            self.normalizer.feed(chunk, clock() - start)
            fed += chunk.count(b"\n\n")
            notify()
        self.last_fed = clock()
        self.normalizer.finish(TransportEnd("eof", self.last_fed - start))
        notify()
        self.ended = clock()

    def cancel(self) -> None:
        """Stop before the next chunk."""
        self._cancelled = True

    @property
    def achieved(self) -> float:
        """Frames per second actually fed (the last chunk's slot included)."""
        assert self.started is not None and self.last_fed is not None
        last_slot = self.per_chunk / self.rate
        return self.frames / (self.last_fed - self.started + last_slot)


@dataclasses.dataclass
class LiveRun:
    """One run of the live view at one rate."""

    rate: float
    achieved: float  # frames/s the feed actually fed
    frames: int
    frames_in_trace: int
    by_key: dict[str, list[float]]  # key → latencies (s)
    repaints: int  # live repaints (the throttle's ``trace_grew`` calls)
    repaint_cpu: list[float]  # CPU seconds of each repaint: index sync + every pane
    render_cpu: float  # CPU seconds in the screen's update timer (compositor)
    seconds: float  # the stream's duration
    cpu: float  # process CPU seconds during the stream
    shown_after: float  # from the feed's end until the newest frame was on screen
    full_gcs: list[float]  # seconds of each full (generation 2) collection in the stream

    @property
    def step_keys(self) -> list[float]:
        """Latencies of the stepping keys (``STEP_KEYS``)."""
        return [latency for key in STEP_KEYS for latency in self.by_key.get(key, ())]

    @property
    def screen_keys(self) -> list[float]:
        """Latencies of opening and closing the help screen (``SCREEN_KEYS``)."""
        return [latency for key in SCREEN_KEYS for latency in self.by_key.get(key, ())]

    @property
    def kept_up(self) -> bool:
        """Every frame in the trace, ≥ 95% of the rate, newest frame shown in time."""
        return (
            self.frames_in_trace == self.frames
            and self.achieved >= KEEP_UP_SHARE * self.rate
            and self.shown_after <= SHOWN_WITHIN
        )


def _handled(app: InspectorApp, main: MainScreen, key: str) -> Callable[[], bool]:
    """When ``key``'s effect is visible (see ``KEY_CYCLE``)."""
    if key == "f":
        return lambda: main.cursor.follow
    if key == "question_mark":
        return lambda: isinstance(app.screen, HelpScreen)
    if key == "escape":
        return lambda: app.screen is main
    return _moves(main)


def _current(app: InspectorApp, screen: MainScreen) -> bool:
    """Whether ``screen`` is the one shown (a function, so mypy keeps its type)."""
    return app.screen is screen


def _cpu_timed(function: Callable[[], Any]) -> tuple[Callable[[], None], list[float]]:
    """``function`` wrapped to append the CPU time of each call to a list."""
    spent: list[float] = []

    def timed() -> None:
        began = time.thread_time()
        function()
        spent.append(time.thread_time() - began)

    return timed, spent


async def live_run(
    rate: float,
    seconds: float,
    chunks: list[bytes] | None = None,
    *,
    key_every: float = KEY_EVERY,
    repaint_rate: float = 30.0,
) -> LiveRun:
    """Run the app on a :class:`SyntheticFeed` at ``rate`` frames/s for ``seconds``.

    ``key_every`` 0 presses no key; ``repaint_rate`` is ``InspectorApp``'s.
    """
    frames = max(8, round(rate * seconds))
    if chunks is None:
        chunks = live_chunks(frames)
    feed = SyntheticFeed(chunks, frames, rate)
    app = InspectorApp(feed, repaint_rate=repaint_rate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        main = app.screen
        assert isinstance(main, MainScreen) and app.throttle is not None
        throttle = app.throttle
        # Benchmark-only instrumentation: the CPU time of each live repaint (the
        # throttle's callback) and of the screen's compositor updates (its timer).
        throttle._repaint, repaint_cpu = _cpu_timed(throttle._repaint)
        timer = main._update_timer
        assert timer._callback is not None
        timer._callback, render_cpu = _cpu_timed(timer._callback)
        repaints_before = throttle.repaints
        full_gcs: list[float] = []
        collecting: list[float] = []

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if info["generation"] != 2:
                return
            if phase == "start":
                collecting[:] = [time.perf_counter()]
            elif collecting:
                full_gcs.append(time.perf_counter() - collecting[0])

        by_key: dict[str, list[float]] = {key: [] for key in KEY_CYCLE}
        gc.callbacks.append(on_gc)
        try:
            cpu_before = time.process_time()
            feed.go.set()
            while feed.started is None:
                await asyncio.sleep(0)
            planned_end = feed.started + frames / rate
            if key_every > 0:
                round_time = key_every * len(KEY_CYCLE)
                next_key = feed.started + key_every
                # Whole rounds only, ending at least 0.3 s before the stream ends,
                # so the view follows the newest frame again (``f``) when it ends.
                while next_key + round_time + 0.3 <= planned_end and feed.ended is None:
                    for key in KEY_CYCLE:
                        await asyncio.sleep(max(0.0, next_key - time.perf_counter()))
                        handled = _handled(app, main, key)
                        by_key[key].append(await _press(pilot, key, handled, KEY_POLL))
                        next_key += key_every
            while feed.ended is None:
                await asyncio.sleep(0.001)
            cpu = time.process_time() - cpu_before
        finally:
            gc.callbacks.remove(on_gc)
        render = sum(render_cpu)
        ended = feed.ended
        # The newest frame on screen: the last frame indexed, the cursor on the
        # last position, the main screen current — then a compositor refresh.
        trace = feed.trace
        while not (
            _current(app, main)
            and main.index.n_frames == len(trace.frames)
            and main.index.finished
            and main.cursor.follow
            and main.cursor.at_end
        ):
            if time.perf_counter() - ended > 30:
                raise TimeoutError("the view never showed the end of the stream")
            await asyncio.sleep(0)
        await pilot._wait_for_screen()
        main._on_timer_update()
        shown_after = time.perf_counter() - ended
        assert feed.last_fed is not None
        return LiveRun(
            rate=rate,
            achieved=feed.achieved,
            frames=frames,
            frames_in_trace=len(trace.frames),
            by_key=by_key,
            repaints=throttle.repaints - repaints_before,
            repaint_cpu=repaint_cpu,
            render_cpu=render,
            seconds=feed.last_fed - feed.started,
            cpu=cpu,
            shown_after=shown_after,
            full_gcs=full_gcs,
        )


def live_chunks(frames: int, per_chunk: int = CHUNK_FRAMES) -> list[bytes]:
    """``frames`` OpenAI Chat frames joined ``per_chunk`` at a time."""
    built = chat_frames(frames)
    return [b"".join(built[i : i + per_chunk]) for i in range(0, len(built), per_chunk)]


def _ms(values: Sequence[float], how: Callable[[Sequence[float]], float]) -> str:
    return f"{how(values) * 1000:.0f}" if values else "–"


@dataclasses.dataclass
class LiveRow:
    """Every run at one rate, summarized."""

    rate: float
    runs: list[LiveRun]

    @property
    def step_keys(self) -> list[float]:
        """Stepping-key latencies of every run."""
        return [latency for run in self.runs for latency in run.step_keys]

    @property
    def screen_keys(self) -> list[float]:
        """Help-screen key latencies of every run."""
        return [latency for run in self.runs for latency in run.screen_keys]

    @property
    def achieved(self) -> float:
        """The median run's achieved rate."""
        return statistics.median(run.achieved for run in self.runs)

    @property
    def kept_up(self) -> bool:
        """Most runs kept up (all frames, ≥ 95% of the rate, shown in time)."""
        return sum(run.kept_up for run in self.runs) * 2 > len(self.runs)

    @property
    def keys_ok(self) -> bool:
        """Stepping keys answered within ``KEY_BUDGET`` at the 95th percentile."""
        return bool(self.step_keys) and _p95(self.step_keys) <= KEY_BUDGET

    def cells(self) -> list[str]:
        """The row as printed."""
        runs = self.runs
        achieved = [run.achieved for run in runs]
        spread = f"{min(achieved):,.0f}–{max(achieved):,.0f}" if len(runs) > 1 else "–"

        def per_second(value: Callable[[LiveRun], float]) -> float:
            return statistics.median(value(run) / run.seconds for run in runs)

        repaints = per_second(lambda run: run.repaints)
        repaint_ms = statistics.median(statistics.median(run.repaint_cpu) for run in runs)
        render_ms = statistics.median(run.render_cpu / max(1, run.repaints) for run in runs)
        return [
            f"{self.rate:,.0f}",
            f"{self.achieved:,.0f} ({self.achieved / self.rate:.0%})",
            spread,
            _ms(self.step_keys, statistics.median),
            _ms(self.step_keys, _p95),
            _ms(self.screen_keys, statistics.median),
            _ms(self.screen_keys, _p95),
            f"{repaints:.1f}",
            f"{repaint_ms * 1000:.1f} + {render_ms * 1000:.1f}",
            f"{per_second(lambda run: run.cpu):.0%}",
            f"{per_second(lambda run: len(run.full_gcs)):.1f} × "
            + _ms([t for run in runs for t in run.full_gcs], statistics.median),
            f"{statistics.median(run.shown_after for run in runs) * 1000:.0f}",
            f"{sum(run.kept_up for run in runs)}/{len(runs)}",
            "yes" if self.kept_up and self.keys_ok else "**no**",
        ]


LIVE_HEAD = [
    "frames/s",
    "achieved",
    "min–max",
    "step keys ms",
    "step p95",
    "help ms",
    "help p95",
    "repaints/s",
    "CPU ms / repaint",
    "CPU",
    "full GCs/s × ms",
    "end → shown ms",
    "kept up",
    "keeps up, step p95 ≤ 100 ms",
]


def live_sweep(
    rates: Sequence[float],
    seconds: float,
    runs: int,
    repaint_rate: float = 30.0,
    full_gc_after: int = 0,
) -> list[LiveRow]:
    """``runs`` rounds over every rate (interleaved, so noise spreads over all rates).

    Each run is a fresh interpreter (:func:`live_run_in_process`), as each live
    session is: in one long process every finished app and the 100,000-frame
    trace would stay on the heap, and the garbage collector's full passes —
    which dominate the key latency tail — would grow with them.
    ``full_gc_after`` > 0 sets the collector's third threshold in those
    interpreters (see :func:`live_run_in_process`).
    """
    results: dict[float, list[LiveRun]] = {rate: [] for rate in rates}
    for _ in range(runs):
        for rate in rates:
            run = live_run_in_process(rate, seconds, repaint_rate, full_gc_after)
            results[rate].append(run)
    return [LiveRow(rate, results[rate]) for rate in rates]


def live_run_in_process(
    rate: float, seconds: float, repaint_rate: float = 30.0, full_gc_after: int = 0
) -> LiveRun:
    """:func:`live_run` in a new Python process (this file with ``--live-one``).

    ``full_gc_after`` > 0: ``gc.set_threshold(700, 10, full_gc_after)`` first —
    a full collection after that many generation-1 collections instead of 10
    (an experiment: what the app itself could set while it runs).
    """
    command = [sys.executable, str(Path(__file__).resolve()), "--live-one"]
    command += [str(rate), str(seconds), str(repaint_rate), str(full_gc_after)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the live run at {rate:g} frames/s failed:\n{done.stderr}")
    return LiveRun(**json.loads(done.stdout.strip().splitlines()[-1]))


def _live_one(rate: float, seconds: float, repaint_rate: float, full_gc_after: float) -> None:
    chunks = live_chunks(max(8, round(rate * seconds)))
    if full_gc_after > 0:
        gc.set_threshold(700, 10, int(full_gc_after))
    run = asyncio.run(live_run(rate, seconds, chunks, repaint_rate=repaint_rate))
    print(json.dumps(dataclasses.asdict(run)))


def highest_steady(rows: Sequence[LiveRow]) -> float | None:
    """The highest rate up to which every rate kept up with keys within budget."""
    best = None
    for row in sorted(rows, key=lambda row: row.rate):
        if not (row.kept_up and row.keys_ok):
            break
        best = row.rate
    return best


def render_live(
    rows: Sequence[LiveRow],
    seconds: float,
    runs: int,
    repaint_rate: float = 30.0,
    full_gc_after: int = 0,
) -> str:
    """The live table (Markdown) and its verdict."""
    experiment = (
        f" · EXPERIMENT: gc.set_threshold(700, 10, {full_gc_after})" if full_gc_after else ""
    )
    lines = [
        f"Live ingest · {SIZE[0]}x{SIZE[1]} headless · OpenAI Chat frames of ~220 B, "
        f"{CHUNK_FRAMES} per chunk · {seconds:g} s per run, {runs} run(s) per rate · "
        f"repaint_rate {repaint_rate:g}/s · a key every {KEY_EVERY * 1000:.0f} ms: "
        "p n [ f (step keys), ? escape (help) · latencies are medians and p95 over all runs"
        + experiment,
        "",
        "| " + " | ".join(LIVE_HEAD) + " |",
        "|" + "---:|" * (len(LIVE_HEAD) - 1) + ":---:|",
    ]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    lines += [
        "",
        "CPU ms / repaint: the live repaint (index sync + every pane) + the screen's "
        "compositor updates, per repaint · CPU: process CPU time ÷ stream duration "
        "(one core = 100%) · full GCs: generation-2 collections during the stream",
    ]
    best = highest_steady(rows)
    lines.append("")
    verdict = "met" if best is not None and best >= 5000 else "**not met**"
    shown = f"{best:,.0f} frames/s" if best is not None else "none of the rates"
    lines.append(
        f"highest steady rate with step keys answered within {KEY_BUDGET * 1000:.0f} ms "
        f"(p95): {shown} (target ≥ 5,000 frames/s: {verdict})"
    )
    return "\n".join(lines)


def render_steps(results: Sequence[tuple[int, float, dict[str, float]]], steps: int) -> str:
    """The first-paint / step table and the 100k ÷ 100 ratio."""
    head = "  frames      load  1st paint  load+paint       end      home      step  step p95"
    lines = [
        f"TUI benchmark · {SIZE[0]}x{SIZE[1]} headless · {steps} single steps · medians (ms)",
        "",
        head,
        "-" * len(head),
    ]
    for frames, load, n in results:
        cells = [load, n["first_paint"], load + n["first_paint"], n["end"], n["home"]]
        cells += [n["step"], n["step_p95"]]
        lines.append(f"{frames:>8}" + "".join(f"{c * 1000:>10.1f}" for c in cells))
    (small, _, base), (big, _, large) = results[0], results[-1]
    lines.append("")
    lines.append(
        f"step latency ratio {big:,} / {small:,} frames: {large['step'] / base['step']:.2f}x"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Generate, measure, print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rates", help="live rates, comma-separated frames/s")
    parser.add_argument("--seconds", type=float, default=LIVE_SECONDS)
    parser.add_argument("--runs", type=int, default=LIVE_RUNS)
    parser.add_argument("--repaint-rate", type=float, default=30.0, help="InspectorApp's")
    parser.add_argument("--only", choices=("steps", "live"))
    parser.add_argument(
        "--quick", action="store_true", help="10,000 frames, 200 steps, 2 rates, 1 run of 2 s"
    )
    parser.add_argument(
        "--full-gc-after",
        type=int,
        default=0,
        metavar="N",
        help="experiment: live runs with gc.set_threshold(700, 10, N) (default: Python's 10)",
    )
    parser.add_argument("--live-one", nargs=4, type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.live_one:
        _live_one(*args.live_one)
        return
    rates: Sequence[float] = LIVE_RATES
    if args.quick:
        args.frames, args.steps, args.seconds, args.runs = 10_000, 200, 2.0, 1
        rates = (1_000, 5_000)
    if args.rates:
        rates = [float(rate) for rate in args.rates.split(",")]
    load_before = os.getloadavg()[0]
    if args.only != "live":
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
        print(render_steps(results, args.steps), flush=True)
        print()
    if args.only != "steps":
        rows = live_sweep(rates, args.seconds, args.runs, args.repaint_rate, args.full_gc_after)
        print(render_live(rows, args.seconds, args.runs, args.repaint_rate, args.full_gc_after))
    print()
    print(
        f"{time.strftime('%Y-%m-%d')} · Python {platform.python_version()} · "
        f"{os.cpu_count()} CPUs · load average (1 min) {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after"
    )


if __name__ == "__main__":
    main()
