"""The export benchmark keeps working: it runs on a tiny stream and reports every number.

Nothing here asserts speed (machines are noisy); ``python -m benchmarks.bench_export``
measures it against ``inspector check`` in the same run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_export import build_capture, main, measure, render


def test_a_generated_capture_has_the_size_asked_for(tmp_path: Path) -> None:
    path, raw, frames = build_capture(tmp_path, "anthropic", 0.05)
    assert path.is_file()
    assert 40_000 < raw < 60_000
    assert frames > 100


def test_measuring_a_tiny_export_reports_time_memory_and_the_baseline(tmp_path: Path) -> None:
    row = measure("openai-chat", 0.02, tmp_path)
    assert row.export.code == 0 and row.baseline.code == 0
    assert row.export.seconds > 0 and row.baseline.seconds > 0
    assert row.export.cpu_seconds > 0 and row.baseline.cpu_seconds > 0
    assert row.export.peak_rss > row.stream_bytes  # an interpreter is bigger than 20 KB
    assert row.mb_per_s > 0 and row.rss_ratio > 0
    assert list(tmp_path.iterdir()) == []  # the stream and its export are cleaned up
    table = render([row, measure("openai-chat", 0.04, tmp_path)])
    assert "| openai-chat | 0.0 |" in table
    assert "Linearity (openai-chat): 2× the bytes" in table


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sizes", "0.02", "--providers", "gemini", "--other-size", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "| openai-chat |" in out and "| gemini |" in out


def test_compare_exports_the_same_stream_with_another_checkout_in_the_same_run(
    tmp_path: Path,
) -> None:
    # This checkout compared with itself: the point is that the second run happens.
    checkout = Path(__file__).resolve().parents[1]
    work = tmp_path / "work"
    work.mkdir()
    row = measure("openai-chat", 0.02, work, checkout)
    assert row.compare is not None and row.compare.code == 0
    assert row.compare.seconds > 0 and row.compare.peak_rss > 0
    assert list(work.iterdir()) == []
    assert "compared peak RSS ÷ stream" in render([row])
