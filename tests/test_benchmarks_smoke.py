"""The benchmarks keep working: every function runs on tiny inputs and returns results.

Nothing here asserts speed. The second half checks the compact trace storage
the memory benchmark measures (frames rebuilt from their bytes, events built
on access) against what the decoder and the machine produced.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from benchmarks import loops
from benchmarks.memory import measure_memory, write_capture
from benchmarks.run import (
    Report,
    available_providers,
    bench_decoder,
    bench_pipeline,
    main,
    render,
    targets,
    write_doc,
)
from benchmarks.streams import GENERATORS, chunked, decoder_stream, frames_in, stream_of_size
from inspector.capture import load_recording
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import Normalizer, normalize
from inspector.core.sse import FrameDecoder
from inspector.core.trace import IntColumn

from .golden import capture_files

TINY = 20_000  # bytes


def test_every_provider_stream_normalizes_to_a_clean_completed_stream() -> None:
    ready, _ = available_providers()
    assert "openai-chat" in ready
    for provider in ready:
        body = stream_of_size(provider, TINY)
        trace = normalize(body, provider)
        assert trace.state == "completed", provider
        assert trace.violations == [], provider
        assert check_invariants(trace.events) == [], provider
        assert len(trace.frames) == frames_in(body), provider
        kinds = [e["block"]["kind"] for e in trace.events if e["type"] == "block.start"]
        assert kinds == ["text", "tool_call"], provider


@pytest.mark.parametrize("crlf", [False, True], ids=["LF", "CRLF"])
@pytest.mark.parametrize("size", [64, 4096])
def test_every_decoding_loop_counts_the_same_events(crlf: bool, size: int) -> None:
    pytest.importorskip("httpx_sse")
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    body = decoder_stream(TINY, crlf)
    chunks = chunked(body, size)
    expected = frames_in(body)
    assert expected > 50
    assert loops.inspector_decoder(chunks) == expected
    assert loops.plain_loop(chunks) == expected
    assert loops.httpx_sse_loop(chunks) == expected
    assert loops.openai_sdk_loop(chunks) == expected
    assert loops.anthropic_sdk_loop(chunks) == expected


def test_the_decoder_and_pipeline_benchmarks_produce_a_row_per_case() -> None:
    pytest.importorskip("httpx_sse")
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    decoder = bench_decoder(TINY, repeats=1, chunk_sizes=(4096,))
    assert [(row.line_end, row.chunk) for row in decoder] == [("LF", 4096), ("CRLF", 4096)]
    for row in decoder:
        assert set(row.results) == {"inspector", "httpx-sse", "plain loop"}
        assert all(
            r.median > 0 and r.events == row.results["inspector"].events
            for r in row.results.values()
        )
        assert row.vs_httpx > 0 and row.vs_plain > 0
    pipeline = bench_pipeline(TINY, repeats=1, providers=["openai-chat"])
    (prow,) = pipeline
    assert prow.results["inspector"].events_per_s > 0
    assert prow.vs_openai > 0 and prow.vs_anthropic > 0
    report = Report(command="test", repeats=1, decoder=decoder, pipeline=pipeline)
    text = render(report)
    assert "### Decoder only" in text and "### Whole pipeline" in text and "### Targets" in text
    assert len(targets(report)) == 5  # 2 decoder shapes x 2 targets + 1 provider


def test_the_memory_benchmark_loads_a_capture_of_the_asked_size(tmp_path: Path) -> None:
    result = measure_memory(tmp_path, frames=300, rss=False)
    assert result.frames == 300
    assert result.raw_bytes > 300 * 100
    assert result.file_bytes > result.raw_bytes
    assert 0 < result.retained < result.tracemalloc_peak
    assert result.bytes_per_frame > 0 and result.rss_peak_growth is None


def test_the_results_go_between_the_markers_and_the_rest_of_the_doc_stays(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(
        "# Perf\n\nintro\n\n<!-- results:start -->\nold\n<!-- results:end -->\n\noutro\n"
    )
    write_doc("new table", doc)
    assert doc.read_text() == (
        "# Perf\n\nintro\n\n<!-- results:start -->\nnew table\n<!-- results:end -->\n\noutro\n"
    )


def test_the_command_runs_end_to_end_without_touching_the_doc(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("httpx_sse")
    status = main(
        ["--quick", "--size", "0.02", "--repeats", "1", "--frames", "200", "--no-write",
         "--providers", "openai-chat"]
    )  # fmt: skip
    assert status in (0, 1)  # 1 would only mean a target missed on this tiny input
    out = capsys.readouterr().out
    assert "| LF | 4 KiB |" in out and "| openai-chat |" in out and "### Memory" in out


# -- the compact trace storage ----------------------------------------------------


def _cuts(body: bytes, rnd: random.Random) -> list[bytes]:
    bounds = sorted({0, len(body), *rnd.sample(range(len(body) + 1), min(len(body), 12))})
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def _bodies() -> list[bytes]:
    odd = (
        b"\xef\xbb\xbfdata: bom\n\n: ping\n\nevent: e\ndata: a\n: inside\ndata: b\nid: 7\n\n"
        b"retry: 15\ndata: \xff not utf-8\r\n\r\ndata: lone cr\r\rdata: unterminated"
    )
    files = [load_recording(path).body for path in capture_files()][:40]
    return [odd, *files, *(GENERATORS[p](30) for p in GENERATORS)]


def test_frames_rebuilt_from_the_stored_bytes_equal_the_decoded_frames() -> None:
    rnd = random.Random(11)
    for body in _bodies():
        for variant in (body, body.replace(b"\n", b"\r\n"), body.replace(b"\n", b"\r")):
            for chunks in (_cuts(variant, rnd), chunked(variant, 1), [variant]):
                decoder = FrameDecoder()
                expected = [f for i, c in enumerate(chunks) for f in decoder.feed(c, float(i))]
                normalizer = Normalizer("openai-chat", "st_test")
                for i, chunk in enumerate(chunks):
                    normalizer.feed(chunk, float(i))
                frames = normalizer.trace.frames
                assert list(frames) == expected
                assert frames == expected
                if expected:
                    assert frames[-1] == expected[-1]
                    assert frames[1:3] == expected[1:3]
                    last = expected[-1]
                    assert frames.span_of(-1) == (last.start, last.end)
                    assert frames.time_of(last.index) == last.time
                    assert frames.chunks_of(last.index) == range(
                        last.first_chunk, last.last_chunk + 1
                    )


def test_chunks_come_back_byte_for_byte_across_the_storage_blocks() -> None:
    rnd = random.Random(5)
    body = bytes(rnd.randrange(256) for _ in range(300_000))
    chunks = _cuts(body, rnd) + chunked(body[:5000], 7)
    normalizer = Normalizer("openai-chat", "st_test")
    for i, chunk in enumerate(chunks):
        normalizer.feed(chunk, i / 10)
    stored = normalizer.trace.chunks
    assert [c.data for c in stored] == chunks
    assert [c.index for c in stored] == list(range(len(chunks)))
    assert stored[-1].time == (len(chunks) - 1) / 10
    whole = b"".join(chunks)
    assert normalizer.trace.bytes_received == len(whole)
    for _ in range(50):
        a = rnd.randrange(len(whole))
        b = rnd.randrange(a, len(whole) + 1)
        assert stored.span(a, b) == whole[a:b]


def test_events_and_index_columns_behave_like_the_lists_they_replace() -> None:
    body = stream_of_size("openai-chat", 5_000)
    trace = normalize([(0.0, chunk) for chunk in chunked(body, 100)], "openai-chat")
    events = list(trace.events)
    assert trace.events == events and events == list(trace.events)
    assert trace.events[-1] == events[-1] and trace.events[2:5] == events[2:5]
    assert [e["seq"] for e in trace.events] == list(range(1, len(events) + 1))
    deltas = [e for e in events if e["type"] == "block.delta"]
    assert deltas[0]["block"] is events[1]["block"]  # the shared {id, index, kind}
    assert trace.terminal_event == events[-1]
    starts = list(trace.frame_event_start)
    assert trace.frame_event_start == starts and isinstance(starts[0], int)
    assert trace.block_events[0] == [
        i for i, e in enumerate(events) if e.get("block", {}).get("index") == 0
    ]
    assert IntColumn([1, 2]) == [1, 2] and IntColumn([1, 2]) != [2, 1] and IntColumn() == []
    with pytest.raises(IndexError):
        trace.events[len(events)]


def test_a_capture_written_for_the_memory_benchmark_loads_whole(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    body = write_capture(path, 50)
    recording = load_recording(path)
    assert recording.problems == [] and recording.body == body and len(recording.chunks) == 50


# -- the decoder's fast paths on the edge of CRLF ------------------------------------


@pytest.mark.parametrize(
    ("body", "cuts"),
    [
        # A lone CR inside a comment, balanced by a line without its CR further on:
        # a count of CRs alone would call this segment CRLF throughout.
        (b"data:\n:\n:\r:\r\n\r\ndata:\ndata:\ndata:\ndata:\ndata:\n", [8, 21]),
        (b"\ndata:y\r\ndata:y\r\n", []),
        (b"data: a\rb\r\n\r\ndata: c\n\r\n", []),
        (b"event: e\rx\r\ndata: 1\r\n\r\nevent: f\r\ndata: 2\n\r\n", [3]),
        (b"data: 1\r\n\r\ndata: 2\r\n\r", [20]),
    ],
)
def test_lone_crs_among_crlf_lines_decode_as_whatwg_says_whatever_the_chunking(
    body: bytes, cuts: list[int]
) -> None:
    def decode(pieces: list[bytes]) -> list[tuple[object, ...]]:
        decoder = FrameDecoder()
        frames = [f for piece in pieces for f in decoder.feed(piece)]
        return [(f.event, f.data, f.comment, f.start, f.end) for f in frames]

    bounds = [0, *cuts, len(body)]
    whole = decode([body])
    assert decode([body[a:b] for a, b in itertools.pairwise(bounds)]) == whole
    assert decode([body[i : i + 1] for i in range(len(body))]) == whole
