"""The TUI benchmark keeps working: each measurement runs on a tiny input and returns numbers.

Nothing here asserts speed (the machine is shared; see docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import bench_tui
from inspector.session import load_trace


def test_chat_frames_are_openai_chat_frames_of_about_220_bytes() -> None:
    frames = bench_tui.chat_frames(50)
    assert len(frames) == 50
    assert all(frame.startswith(b"data: ") and frame.endswith(b"\n\n") for frame in frames)
    assert 180 <= len(frames[10]) <= 260
    chunks = bench_tui.live_chunks(50)
    assert b"".join(chunks) == b"".join(frames)
    assert len(chunks) == -(-50 // bench_tui.CHUNK_FRAMES)


async def test_first_paint_and_step_latency_on_a_tiny_capture(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    bench_tui.generate(path, 100)
    trace = load_trace(path)
    assert len(trace.frames) == 100
    numbers = await bench_tui.measure(trace, steps=6)
    assert set(numbers) == {"first_paint", "end", "home", "step", "step_p95"}
    assert all(value > 0 for value in numbers.values())
    table = bench_tui.render_steps([(100, 0.01, numbers), (100, 0.01, numbers)], 6)
    assert "step latency ratio" in table


async def test_live_run_feeds_every_frame_and_times_the_keys() -> None:
    run = await bench_tui.live_run(400, 1.5)
    assert run.frames == 600
    assert run.frames_in_trace == run.frames
    assert run.achieved > 0 and run.seconds > 0 and run.cpu > 0
    # One round of keys: every stepping key twice, the help screen once.
    assert [len(run.by_key[key]) for key in bench_tui.STEP_KEYS] == [2, 2, 2, 2]
    assert [len(run.by_key[key]) for key in bench_tui.SCREEN_KEYS] == [1, 1]
    assert all(latency > 0 for latency in run.step_keys + run.screen_keys)
    assert run.repaints > 0 and len(run.repaint_cpu) >= run.repaints
    assert run.shown_after >= 0
    row = bench_tui.LiveRow(400, [run])
    text = bench_tui.render_live([row], 1.5, 1, 30.0)
    assert "| 400 |" in text and "highest steady rate" in text


def test_the_sweep_runs_each_rate_in_a_fresh_interpreter() -> None:
    (row,) = bench_tui.live_sweep([300], 1.5, 1, full_gc_after=100)
    (run,) = row.runs
    assert run.rate == 300 and run.frames_in_trace == run.frames == 450
    assert len(run.step_keys) == 8 and len(run.screen_keys) == 2
    assert bench_tui.highest_steady([row]) in (None, 300)
