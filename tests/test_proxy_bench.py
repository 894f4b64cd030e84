"""The proxy benchmark keeps working: a tiny run prints every figure (nothing asserts speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_proxy import main, write_stream
from inspector.capture import load_recording
from inspector.session import load_trace


def test_the_generated_stream_is_a_completed_capture_whose_chunk_ends_are_listed(
    tmp_path: Path,
) -> None:
    ends = write_stream(tmp_path / "s.jsonl", 20, 0.002)
    recording = load_recording(tmp_path / "s.jsonl")
    assert len(recording.chunks) == 20 and ends[-1] == len(recording.body)
    assert [t for t, _ in recording.chunks][:3] == [0.0, 0.002, 0.004]
    assert load_trace(tmp_path / "s.jsonl").state == "completed"


def test_a_tiny_run_measures_every_candidate_in_both_scenarios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--chunks", "50", "--paced-chunks", "5", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "flat out: 50 chunks, 1 rounds" in out and "paced: 5 chunks 2 ms apart" in out
    for figure in ("last byte", "added/chunk", "CPU/chunk", "first byte", "per chunk"):
        assert figure in out
    lines = out.splitlines()
    for name in ("direct", "copy", "proxy"):
        assert sum(line.split()[:1] == [name] for line in lines) == 2  # one row per scenario
