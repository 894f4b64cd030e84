"""The framing benchmark runs and compares like with like (no timing is asserted)."""

from __future__ import annotations

import pytest

from benchmarks import bench_framings


def test_each_protocols_body_normalizes_to_a_completed_stream() -> None:
    for provider, framing, frames in (
        ("bedrock-converse", "aws-eventstream", bench_framings.bedrock_body(50)),
        ("ollama", "ndjson", bench_framings.ollama_body(50)),
        ("cohere", "sse", bench_framings.cohere_body(50)),
    ):
        assert bench_framings.our_pipeline(provider, framing, frames)() > 50


def test_the_decoders_count_what_the_baselines_count() -> None:
    pytest.importorskip("botocore")
    pytest.importorskip("ollama")
    frames = bench_framings.bedrock_body(30)
    baseline = bench_framings.botocore_loop(frames, True)
    assert baseline is not None
    assert baseline() == bench_framings.our_decoder("aws-eventstream", frames, True)() == 34
    lines = bench_framings.ollama_body(30)
    client = bench_framings.ollama_loop(lines)
    assert client is not None
    assert client() == bench_framings.our_decoder("ndjson", lines, True)() == 31


def test_the_table_has_a_row_per_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    bench_framings.main(["--events", "40", "--repeats", "1"])
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + 2 * (3 + 2 + 1)  # the heading, then two chunkings of each row
