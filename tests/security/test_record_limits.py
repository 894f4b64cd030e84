"""Boundary: what ``record``/``live`` are told to write to, and how much a server may send.

The output path may be something other than a regular file (a FIFO, a
device, a directory, a symlink planted there); the server may send without
end; the command line may hold URLs, headers and sizes that make no sense.
Each is a clear usage error (exit 2) or a clean stop (exit 1), never a hang,
a traceback or a write through a link.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.live.recorder import CaptureSink
from inspector.serve import ReplayServer, load_catalog

from ..conftest import ROOT

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
PIECE = b'data: {"choices":[{"index":0,"delta":{"content":"hello world "}}]}\n\n'


def inspector(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=60,
    )  # fmt: skip


def record(url: str, output: Path | str, *extra: str) -> subprocess.CompletedProcess[str]:
    return inspector("record", "--provider", "openai-chat", "--model", "long", "--prompt", "hi",
                     "--base-url", url, "-o", str(output), *extra)  # fmt: skip


def _long_capture(path: Path, chunks: int) -> int:
    writer = CaptureWriter(path, {"provider": "openai-chat", "model": "long",
                                  "response": {"status": 200, "headers": {}}})  # fmt: skip
    total = 0
    for i in range(chunks):
        writer.chunk(i / 1e6, PIECE * 64)
        total += len(PIECE) * 64
    done = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    writer.chunk(chunks / 1e6, done)
    writer.end("eof", chunks / 1e6)
    return total + len(done)


@pytest.fixture(scope="module")
def long_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplayServer]:
    root = tmp_path_factory.mktemp("long")
    _long_capture(root / "long.jsonl", 200)  # about 1 MB
    server = ReplayServer(load_catalog([root]), speed=0)
    with server:
        yield server


# -- the output path -------------------------------------------------------------


def _assert_usage_error(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fifo_as_output_is_refused_without_blocking(
    long_server: ReplayServer, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    _assert_usage_error(record(long_server.url, fifo), "not a regular file")


def test_a_device_as_output_is_refused(long_server: ReplayServer) -> None:
    _assert_usage_error(record(long_server.url, "/dev/null"), "not a regular file")


def test_a_directory_as_output_is_refused(long_server: ReplayServer, tmp_path: Path) -> None:
    _assert_usage_error(record(long_server.url, tmp_path), "is a directory, not a regular file")


def test_a_symlink_at_the_output_path_is_not_followed(
    long_server: ReplayServer, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    precious = elsewhere / "precious.txt"
    precious.write_text("do not touch")
    link = tmp_path / "c.jsonl"
    link.symlink_to(precious)
    _assert_usage_error(record(long_server.url, link), "symbolic link")
    assert precious.read_text() == "do not touch"


def test_a_symlink_planted_after_the_check_is_not_written_through(
    tmp_path: Path,
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("do not touch")
    path = tmp_path / "c.jsonl"
    sink = CaptureSink(path)
    path.symlink_to(precious)  # planted between the check and the first write
    sink.open({"provider": "openai-chat"})
    sink.chunk(0.1, b"data: x\n\n")
    sink.close({"provider": "openai-chat"}, "eof", 0.2, None)
    assert precious.read_text() == "do not touch"
    assert path.is_symlink() and sink.path == tmp_path / "c-2.jsonl"  # the next free name
    rec = load_recording(sink.path)
    assert rec.body == b"data: x\n\n" and rec.end is not None and not rec.problems
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_an_existing_capture_is_neither_replaced_nor_written_through(
    long_server: ReplayServer, tmp_path: Path
) -> None:
    output = tmp_path / "c.jsonl"
    output.write_bytes(b"old content " * 100_000)
    # A hard link planted to the old file (elsewhere, by someone else) must not
    # receive the recording: the capture is a new file renamed into place.
    planted = tmp_path / "planted-link"
    os.link(output, planted)
    result = record(long_server.url, output)
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == b"old content " * 100_000  # never overwritten
    assert load_recording(tmp_path / "c-2.jsonl").problems == []
    assert "c-2.jsonl" in result.stdout
    assert planted.read_bytes() == b"old content " * 100_000


# -- how much a server may send ----------------------------------------------------


def test_max_bytes_stops_keeps_everything_received_and_says_so(
    long_server: ReplayServer, tmp_path: Path
) -> None:
    output = tmp_path / "c.jsonl"
    result = record(long_server.url + "?chunk=4096", output, "--max-bytes", "64K")
    assert result.returncode == 1
    assert "--max-bytes cap" in result.stderr and "Traceback" not in result.stderr
    rec = load_recording(output)
    assert rec.problems == []
    assert rec.end is not None and rec.end.reason == "cancelled"
    assert "--max-bytes" in (rec.end.error or "")
    assert 64 * 1024 <= len(rec.body) < 64 * 1024 + 4096  # the chunk that crossed it is kept
    assert f"bytes={len(rec.body)} " in result.stdout


def test_max_bytes_zero_means_no_cap(long_server: ReplayServer, tmp_path: Path) -> None:
    output = tmp_path / "c.jsonl"
    result = record(long_server.url, output, "--max-bytes", "0")
    assert result.returncode == 0, result.stderr
    assert load_recording(output).body.endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize("size", ["-1", "1_0", "\u0661\u0662", "12Q", "1.5M", ""])
def test_bad_sizes_are_usage_errors(long_server: ReplayServer, tmp_path: Path, size: str) -> None:
    result = record(long_server.url, tmp_path / "c.jsonl", "--max-bytes", size)
    _assert_usage_error(result, "--max-bytes: expected a size such as")


def test_the_recorder_holds_nothing_of_the_stream_in_memory(tmp_path: Path) -> None:
    # Writing and closing a 16 MB capture must not need memory in proportion to it
    # (the final header rewrite used to read the whole file back).
    path = tmp_path / "c.jsonl"
    sink = CaptureSink(path)
    header = {"provider": "openai-chat", "response": {"status": 200}}
    block = PIECE * 1000  # 70 KB
    tracemalloc.start()
    try:
        sink.open(header)
        for i in range(230):
            sink.chunk(i / 1000, block)
        header["timings"] = {"last_byte": 0.23}
        sink.close(header, "eof", 0.3, None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.stat().st_size > 16_000_000
    assert peak < 4 * 1024 * 1024, peak
    first = path.read_bytes().split(b"\n", 1)[0]
    assert orjson.loads(first)["timings"] == {"last_byte": 0.23}


# -- the command line --------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("127.0.0.1:8765", "is not an http:// or https:// URL"),
        ("localhost", "is not an http:// or https:// URL"),
        ("ftp://127.0.0.1/", "is not an http:// or https:// URL"),
        ("http://127.0.0.1:99999", "port"),
        ("http://127.0.0.1:0", "port"),
        ("http://127.0.0.1:8x", "port"),
        ("http://127.0.0.1:", "port"),
        ("http://exa mple.com", "spaces"),
        ("http://example.com/\x1b[31m", "control"),
        ("http://[::1", "not a valid URL"),
        ("http://", "no host"),
    ],
)
def test_invalid_base_urls_are_usage_errors(tmp_path: Path, url: str, message: str) -> None:
    result = record(url, tmp_path / "c.jsonl")
    _assert_usage_error(result, message)
    assert "\x1b" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "header",
    ["x-a: one\r\nx-b: two", "x-a: del\x7f", "x-a: \x1b[2J", "x-a: caf\u00e9", "bad name: v"],
)
def test_invalid_header_values_are_usage_errors(
    long_server: ReplayServer, tmp_path: Path, header: str
) -> None:
    result = record(long_server.url, tmp_path / "c.jsonl", "--header", header)
    _assert_usage_error(result, "--header")
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
