"""The harness benchmark keeps working (nothing here asserts speed)."""

from __future__ import annotations

from benchmarks import bench_harness


def test_the_harness_benchmark_runs_quick(capsys):
    assert bench_harness.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "runs/s" in out and "us/chunk" in out
