"""``benchmarks.bench_secrets`` runs end to end on tiny texts (this checkout against itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import bench_secrets

ROOT = Path(__file__).resolve().parent.parent


def test_every_kind_of_benchmark_text_is_made_at_the_size_asked() -> None:
    texts = dict(bench_secrets.corpus(20_000))
    assert set(texts) == set(bench_secrets.TEXTS)
    assert all(0 < len(text) <= 40_000 for text in texts.values())


def test_the_benchmark_times_old_and_new_and_finds_them_equal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_secrets.main(["--old", str(ROOT), "--mb", "0.01", "--repeats", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["text", "function"]
    assert len(lines) == 1 + 2 * len(bench_secrets.TEXTS)
