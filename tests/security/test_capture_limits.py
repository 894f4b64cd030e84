"""Boundary: what any command writes, ``check`` reads — at every limit of the reader.

The reader bounds the header line, each record line, the number of records
and the capture's size. Each writer (the proxy's, ``record``'s, ``import``'s)
is driven to each bound — the bounds lowered so a test reaches them — and
what it wrote is read back: no problem reported, every byte that was kept
in order, and where a capture had to be cut, its end record says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import capture
from inspector.capture import read_recording
from inspector.capture_writer import CaptureWriter

Chunks = list[tuple[float, bytes]]
Writer = Callable[[Path, dict[str, Any], Chunks], Path]


def _proxy_writer(path: Path, header: dict[str, Any], chunks: Chunks) -> Path:
    writer = CaptureWriter(path, header)
    for time, data in chunks:
        writer.chunk(time, data)
    writer.end("eof", chunks[-1][0] + 1 / 3 if chunks else 1 / 3)
    return path


def _record_writer(path: Path, header: dict[str, Any], chunks: Chunks) -> Path:
    from inspector.live.recorder import CaptureSink

    sink = CaptureSink(path)
    sink.open(header)
    for time, data in chunks:
        sink.chunk(time, data)
    sink.close(header, "eof", chunks[-1][0] + 1 / 3 if chunks else 1 / 3, None)
    assert sink.path is not None
    return sink.path


def _import_writer(path: Path, header: dict[str, Any], chunks: Chunks) -> Path:
    from inspector.importer import import_files

    body = b"".join(data for _, data in chunks)
    request = header.get("request") or {}
    cassette = {
        "version": 1,
        "interactions": [{
            "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions",
                        "headers": {}, "body": orjson.dumps(request.get("body")).decode()},
            "response": {"status": {"code": 200, "message": "OK"},
                         "headers": {"content-type": ["text/event-stream"]},
                         "body": {"string": body.decode("utf-8", "replace")}},
        }],
    }  # fmt: skip
    source = path.with_suffix(".json")
    source.write_bytes(orjson.dumps(cassette))
    (outcome,) = import_files([source], path.parent / "imported")
    assert outcome.error is None and not outcome.problems, outcome
    return outcome.written[0][1]


WRITERS: dict[str, Writer] = {
    "proxy": _proxy_writer,
    "record": _record_writer,
    "import": _import_writer,
}

FRAME = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"w" * 200 + b'"}}]}\n\n'
HEADER = {"provider": "openai-chat", "model": "m", "response": {"status": 200, "headers": {}}}


def _read_back(path: Path) -> capture.Recording:
    rec = read_recording(path)
    assert rec.problems == [], rec.problems
    assert rec.end is not None
    return rec


@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_a_request_body_larger_than_the_header_line_is_stored_so_it_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    monkeypatch.setattr(capture, "MAX_HEADER_LINE", 256 * 1024)
    prompt = "é lorem ipsum \u2028 " * 40_000  # ~720 KB of JSON: over the lowered limit
    request = {"method": "POST", "url": "https://x/v1/chat/completions", "headers": {}}
    header = {**HEADER, "request": {**request, "body": {"model": "m", "prompt": prompt}}}
    path = WRITERS[writer](tmp_path / "big-request.jsonl", header, [(0.1, FRAME)])
    rec = _read_back(path)
    assert rec.body == FRAME
    request = rec.header["request"]
    assert request["body_truncated"]["bytes"] > 256 * 1024
    assert orjson.dumps({"model": "m", "prompt": prompt}).decode().startswith(request["body"])


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(min_size=1, max_size=64), st.integers(min_value=200_000, max_value=600_000))
def test_a_chunk_longer_than_a_record_line_is_kept_whole_in_several_records(
    tmp_path_factory: pytest.TempPathFactory, pattern: bytes, size: int
) -> None:
    # Control characters and bytes that are not UTF-8 take the most room in a line.
    data = (pattern + b"\x00\x1b\xff" * 3)[:size] * (size // max(1, len(pattern) + 9) + 1)
    data = data[:size]
    original = capture.MAX_RECORD_LINE
    capture.MAX_RECORD_LINE = 100 * 1024
    try:
        path = _proxy_writer(tmp_path_factory.mktemp("chunk") / "c.jsonl", HEADER, [(0.5, data)])
        rec = _read_back(path)
    finally:
        capture.MAX_RECORD_LINE = original
    assert rec.body == data
    assert {time for time, _ in rec.chunks} == {0.5}


@pytest.mark.parametrize("writer", ["proxy", "record"])
def test_more_chunks_than_the_reader_takes_are_cut_and_the_end_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    monkeypatch.setattr(capture, "MAX_RECORDS", 50)
    chunks = [(i / 100, FRAME) for i in range(200)]
    rec = _read_back(WRITERS[writer](tmp_path / "many.jsonl", HEADER, chunks))
    assert 0 < len(rec.chunks) < 50 and all(data == FRAME for _, data in rec.chunks)
    assert rec.end is not None and rec.end.reason == "eof"
    assert "cut after" in (rec.end.error or "") and "not recorded" in (rec.end.error or "")


@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_a_capture_larger_than_the_reader_takes_is_cut_and_the_end_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    monkeypatch.setattr(capture, "MAX_INPUT_BYTES", 512 * 1024)
    chunks = [(i / 100, FRAME * 10) for i in range(1000)]  # ~2.3 MB
    path = WRITERS[writer](tmp_path / "large.jsonl", HEADER, chunks)
    assert os.path.getsize(path) <= 512 * 1024
    rec = _read_back(path)
    assert rec.body and rec.body != FRAME * 10 * 1000
    assert (FRAME * 10 * 1000).startswith(rec.body)
    assert "cut after" in (rec.end.error or "")


@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_every_writer_rounds_times_alike(tmp_path: Path, writer: str) -> None:
    path = WRITERS[writer](tmp_path / "t.jsonl", HEADER, [(1 / 7, FRAME)])
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    for record in lines[1:]:
        if record["type"] == "end" and writer == "import":
            assert record["t"] == 0.0  # an import has no timing to keep
        elif record["t"] is not None:
            assert record["t"] == round(record["t"], 6)
    if writer != "import":
        assert lines[1]["t"] == round(1 / 7, 6) and lines[-1]["t"] == round(1 / 7 + 1 / 3, 6)


def test_a_large_request_through_the_proxy_gives_a_capture_check_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from inspector.cli import main

    from .servers_helpers import Witness, proxy_to

    monkeypatch.setattr(capture, "MAX_HEADER_LINE", 256 * 1024)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "x" * 600_000}]}
    with Witness() as upstream, proxy_to(upstream.url, tmp_path / "rec") as proxy:
        with httpx.Client(timeout=30) as client:
            assert client.post(proxy.url + "/v1/chat/completions", json=body).status_code == 200
        (flow,) = proxy.log.flows
        for _ in range(200):
            if not flow.live:
                break
            import time

            time.sleep(0.01)
    (path,) = sorted((tmp_path / "rec").glob("*.jsonl"))
    assert main(["check", str(path)]) == 0
