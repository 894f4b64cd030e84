"""The capture format: round trip, damage reports, raw SSE files."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

from inspector.capture import load_recording, parse_recording
from inspector.capture_writer import CaptureWriter
from inspector.core.trace import TransportEnd
from inspector.session import load_trace

HEADER = {"provider": "openai-chat", "endpoint": "/v1/chat/completions", "model": "gpt-x"}
STREAM = (
    b'data: {"id":"c1","model":"gpt-x","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
    b'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def write_capture(path: Path, chunks: list[bytes], end: str | None = "eof") -> None:
    writer = CaptureWriter(path, dict(HEADER))
    for i, chunk in enumerate(chunks):
        writer.chunk(i * 0.1, chunk)
    if end is not None:
        writer.end(end, 1.0)


def test_a_written_capture_reads_back_byte_for_byte_with_timing(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    chunks = [STREAM[:7], STREAM[7:100], STREAM[100:]]
    write_capture(path, chunks)
    rec = load_recording(path)
    assert rec.kind == "capture"
    assert rec.problems == []
    assert [data for _, data in rec.chunks] == chunks
    assert [t for t, _ in rec.chunks] == [0.0, 0.1, 0.2]
    assert rec.end == TransportEnd("eof", 1.0, None)
    assert rec.header is not None and rec.header["model"] == "gpt-x"


def test_bytes_that_are_not_utf8_are_stored_as_base64(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    raw = "data: é".encode()[:-1]  # half of a two-byte character
    write_capture(path, [raw, b"\xa9\n\n"])
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert lines[1]["b64"] == base64.b64encode(raw).decode()
    assert "text" in lines[2] or "b64" in lines[2]
    assert load_recording(path).body == raw + b"\xa9\n\n"


def test_the_capture_is_valid_after_every_chunk_even_without_an_end(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    write_capture(path, [STREAM[:50]], end=None)
    rec = load_recording(path)
    assert rec.body == STREAM[:50]
    assert rec.problems == [
        f"{path}: no end record — the recording stopped before the transport ended"
    ]


def test_a_corrupt_line_is_reported_with_file_and_line_and_earlier_chunks_survive(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.jsonl"
    write_capture(path, [STREAM[:90], STREAM[90:]])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:2], b'{"type": "chunk", "t": 0.1, "te\n', *lines[3:]]))
    rec = load_recording(path)
    assert rec.body == STREAM[:90]
    assert len(rec.problems) == 1
    assert rec.problems[0].startswith(f"{path}:3: not valid JSON")
    trace = load_trace(path)
    assert trace.state == "interrupted"
    assert trace.events[-1]["error"]["category"] == "transport"
    assert "Hi" in "".join(e["delta"]["text"] for e in trace.events if e["type"] == "block.delta")


def test_an_unsupported_version_is_named() -> None:
    raw = b'{"type":"header","format":"llm-stream-capture","version":9}\n'
    rec = parse_recording(raw, "x.jsonl")
    assert rec.problems == [
        "x.jsonl:1: capture version 9 is not supported (this inspector reads version 1)"
    ]


def test_a_raw_sse_file_is_one_chunk_ended_by_eof() -> None:
    rec = parse_recording(STREAM, "s.sse")
    assert rec.kind == "raw"
    assert rec.chunks == [(0.0, STREAM)]
    assert rec.end == TransportEnd("eof")


def test_a_recorded_http_error_ends_failed_with_the_providers_code(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    header = dict(HEADER, response={"status": 429, "headers": {"retry-after": "7"}})
    writer = CaptureWriter(path, header)
    body = b'{"error":{"message":"Rate limit reached","type":"requests",'
    writer.chunk(0.0, body + b'"code":"rate_limit_exceeded"}}')
    writer.end("eof", 0.1)
    trace = load_trace(path)
    error = trace.events[-1]["error"]
    assert (error["category"], error["provider_code"], error["retryable"]) == (
        "rate_limited", "rate_limit_exceeded", True,
    )  # fmt: skip
    assert error["message"] == "HTTP 429: Rate limit reached"
    assert trace.frames == []
    assert len(trace.chunks) == 1
