"""Boundary: paths and files given on the command line.

Whatever is named — a FIFO, a device, a directory, an unreadable or huge
file, a damaged or hostile capture, a tree with a link loop — the command
ends promptly with a clear message and a meaningful exit code (2: nothing
could be read; 1: read, but damaged), never a hang or a traceback, and
never holding more than the documented limits in memory.
"""

from __future__ import annotations

import gzip
import io
import os
import pty
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector.capture as capture
from inspector.capture import UnreadableInput, read_recording
from inspector.cli import main
from inspector.core.adapters import PROVIDERS
from inspector.library import iter_stream_files
from inspector.session import load_trace

from ..conftest import ROOT

CHAT = ROOT / "tests" / "fixtures" / "real" / "openai-chat"
PLAIN = CHAT / "openai-text-plain.sse"
CAPTURE = ROOT / "captures" / "anthropic" / "text-simple.jsonl"
HEADER = {"type": "header", "format": "llm-stream-capture", "version": 1, "provider": "openai-chat"}


def inspector(
    *args: str, cwd: Path = ROOT, stdin: bytes | int = subprocess.DEVNULL, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run the real entry point; ``stdin`` is bytes to pipe in, or a file descriptor."""
    piped = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
    raw = subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        cwd=cwd,
        timeout=60,  # a hang fails the test instead of blocking the suite
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        **piped,
        **kwargs,
    )
    result = subprocess.CompletedProcess(
        raw.args, raw.returncode, raw.stdout.decode(), raw.stderr.decode()
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def chat_stream(*texts: str) -> bytes:
    frames = [
        {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"content": text}}]}
        for text in texts
    ]
    frames.append({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return b"".join(b"data: " + orjson.dumps(f) + b"\n\n" for f in frames) + b"data: [DONE]\n\n"


def capture_lines(*records: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


# --- not a regular file --------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "stream.sse"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["frames", "events", "check", "open"])
def test_a_fifo_is_refused_without_being_opened(fifo: Path, command: str) -> None:
    result = inspector(command, str(fifo))
    assert result.returncode == (1 if command == "check" else 2)
    assert f"{fifo}: not a regular file (a FIFO)" in result.stderr


@pytest.mark.parametrize("command", ["frames", "events", "check", "export"])
def test_a_device_that_never_ends_is_refused(command: str, tmp_path: Path) -> None:
    extra = ["-o", str(tmp_path)] if command == "export" else []
    result = inspector(command, "/dev/zero", *extra)
    assert "/dev/zero: not a regular file (a character device)" in result.stderr
    assert result.returncode == (1 if command in ("check", "export") else 2)


def test_a_socket_is_refused() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:  # short: socket paths are limited
        path = Path(folder) / "s.sse"
        server = socket.socket(socket.AF_UNIX)
        try:
            server.bind(str(path))
            result = inspector("events", str(path))
        finally:
            server.close()
    assert result.returncode == 2
    assert "s.sse: not a regular file (a socket)" in result.stderr


def test_a_directory_given_as_a_file_is_named_as_such(tmp_path: Path) -> None:
    for command in ("frames", "events"):
        result = inspector(command, str(tmp_path))
        assert (result.returncode, result.stderr.strip()) == (
            2,
            f"inspector: {tmp_path}: is a directory",
        )


def test_dev_stdin_on_a_terminal_is_refused_and_so_is_dash() -> None:
    leader, follower = pty.openpty()
    try:
        by_path = inspector("events", "/dev/stdin", stdin=follower)
        by_dash = inspector("events", "-", stdin=follower)
    finally:
        os.close(leader)
        os.close(follower)
    assert by_path.returncode == 2
    assert "/dev/stdin: not a regular file (a character device)" in by_path.stderr
    assert by_dash.returncode == 2
    assert "stdin: is a terminal" in by_dash.stderr


# --- stdin ----------------------------------------------------------------------


@pytest.mark.parametrize("source", [PLAIN, CAPTURE])
@pytest.mark.parametrize("command", ["frames", "events"])
def test_dash_reads_the_stream_from_stdin(source: Path, command: str) -> None:
    from_file = inspector(command, str(source))
    from_stdin = inspector(command, "-", stdin=source.read_bytes())
    assert from_stdin.returncode == from_file.returncode == 0
    assert from_stdin.stdout == from_file.stdout


def test_check_reads_stdin_among_other_files() -> None:
    result = inspector("check", str(PLAIN), "-", stdin=CAPTURE.read_bytes())
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{PLAIN}: completed (stop)")
    assert lines[1].startswith("stdin: completed (stop) frames=10")


def test_open_dash_reads_stdin_first_and_refuses_clearly_without_a_terminal() -> None:
    # A new session has no controlling terminal: the TUI could not read keys.
    result = inspector("open", "-", stdin=PLAIN.read_bytes(), start_new_session=True)
    assert result.returncode == 2
    assert "stdin was read, but there is no terminal to show it on" in result.stderr


def test_open_dash_hands_the_stream_to_the_tui(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspector.cli.open as open_command
    import inspector.tui

    shown: list[Any] = []

    def run_app(trace: Any, **options: Any) -> int:
        shown.append(trace)
        return 0

    monkeypatch.setattr(sys, "stdin", FakeStdin(PLAIN.read_bytes()))
    monkeypatch.setattr(open_command, "reattach_terminal", lambda: True)
    monkeypatch.setattr(inspector.tui, "run_app", run_app)
    assert main(["-"]) == 0
    assert [e["type"] for e in shown[0].events] == [e["type"] for e in load_trace(PLAIN).events]


class FakeStdin:
    """A pipe on stdin, as far as the reader can tell."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_stdin_is_read_up_to_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(b"data: x\n\n" * 1000))
    with pytest.raises(UnreadableInput, match="stdin: more than 8 KiB, the most this inspector"):
        read_recording("-", limit=8192)


# --- permission, size ---------------------------------------------------------


@pytest.mark.parametrize("provider", [[], ["--provider", "openai-chat"]])
@pytest.mark.parametrize("command", ["frames", "events", "check"])
def test_an_unreadable_file_says_permission_denied_whatever_the_provider(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
    provider: list[str],
) -> None:
    # Root reads any file, so the refusal comes from a patched os.open.
    path = tmp_path / "secret.sse"
    path.write_bytes(PLAIN.read_bytes())
    real_open = os.open

    def deny(file: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    args = [command, str(path)] + (provider if command != "frames" else [])
    status = main(args)
    assert status == (1 if command == "check" else 2)
    assert f"inspector: {path}: permission denied" in capsys.readouterr().err


def test_a_file_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.sse"
    with huge.open("wb") as file:
        file.truncate(capture.MAX_INPUT_BYTES + 1)  # sparse: costs no disk
    result = inspector("events", "--provider", "openai-chat", str(huge))
    assert result.returncode == 2
    assert "huge.sse: 1,073,741,825 bytes is more than 1 GiB" in result.stderr


# --- detection failures say why ---------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "it is empty"),
        (b"  \n\n", "it holds only whitespace"),
        (
            gzip.compress(chat_stream("hi"), mtime=0),
            "it is a gzip file (compressed data); decompress it",
        ),
        ("data: hi\n\n".encode("utf-16"), "it is UTF-16 text (it starts with a UTF-16 byte"),
        (b"data: \x00\x01\x02\n\n", "it is binary data (it holds NUL bytes)"),
        (b'{"id": "chatcmpl-1", "choices": [{"message": {}}]}', "a JSON response body"),
        (b"[1, 2, 3]", "it is a JSON document, not a capture or an SSE stream"),
        (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n", "(curl -i)"),
        (b"<!DOCTYPE html><html></html>", "an HTML or XML page"),
        (b"hello world\n", "it has no SSE field lines"),
        (b"data: " + b"x" * (1 << 20) + b"\n\n", "the first frame is larger than 1 MiB"),
    ],
    ids=lambda value: value[:12].decode("latin-1") if isinstance(value, bytes) else None,
)
def test_a_detection_failure_gives_the_real_reason(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "input.sse"
    path.write_bytes(content)
    result = inspector("events", str(path))
    assert result.returncode == 2
    assert f"{path}: cannot tell which provider this stream is from: " in result.stderr
    assert reason in result.stderr
    assert "pass --provider" in result.stderr


@pytest.mark.parametrize("provider", [[], ["--provider", "anthropic"]])
def test_an_unsupported_capture_version_is_refused_whatever_the_provider(
    tmp_path: Path, provider: list[str]
) -> None:
    path = tmp_path / "future.jsonl"
    path.write_bytes(capture_lines(dict(HEADER, version=7), {"type": "end", "reason": "eof"}))
    result = inspector("events", *provider, str(path))
    assert (result.returncode, result.stderr.strip()) == (
        2,
        f"inspector: {path}:1: capture version 7 is not supported (this inspector reads version 1)",
    )


def test_a_capture_after_a_utf8_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + CAPTURE.read_bytes())
    assert load_trace(path).events == load_trace(CAPTURE).events


# --- damaged captures ---------------------------------------------------------


def damaged_variants() -> dict[str, tuple[bytes, str]]:
    header, *chunks, end = CAPTURE.read_bytes().splitlines(keepends=True)
    middle = len(chunks) // 2
    return {
        "corrupt line": (
            header + b"".join(chunks[:middle]) + b'{"type": "chunk", "t": 0.1, "te\n'
            + b"".join(chunks[middle:]) + end,
            f":{middle + 2}: not valid JSON",
        ),
        "cut short": (header + b"".join(chunks)[:-20], "the last line is cut short"),
        "no end record": (header + b"".join(chunks), "no end record"),
        "a record after the end": (
            header + b"".join(chunks) + end + chunks[0],
            "record after the end record",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("damage", list(damaged_variants()))
def test_check_exits_1_on_a_damaged_capture_and_keeps_what_was_read(
    tmp_path: Path, damage: str
) -> None:
    content, what = damaged_variants()[damage]
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(content)
    result = inspector("check", str(path))
    assert result.returncode == 1
    summary, *details = result.stdout.splitlines()
    assert summary.startswith(f"{path}: ")
    assert " frames=0 " not in summary  # what was read before the damage is kept
    assert any(line.startswith("  damaged: ") and what in line for line in details), details


# --- folders ------------------------------------------------------------------


def test_a_very_deep_folder_tree_is_walked_without_recursion() -> None:
    top = tempfile.mkdtemp(dir="/tmp")  # short, so 2,000 levels fit in PATH_MAX
    levels = [top]
    try:
        for _ in range(2000):  # pathlib's mkdir(parents=True) would itself recurse
            levels.append(os.path.join(levels[-1], "d"))
            os.mkdir(levels[-1])
        Path(levels[-1], "bottom.sse").write_bytes(PLAIN.read_bytes())
        Path(top, "top.sse").write_bytes(PLAIN.read_bytes())
        found = list(iter_stream_files([top]))
        assert [p.name for p in found] == ["bottom.sse", "top.sse"]
        result = inspector("check", "--jobs", "1", top)
        assert result.returncode == 0, result.stderr
        assert len(result.stdout.splitlines()) == 2
        # the TUI's folder picker walks folders the same way
        from inspector.tui.screens.picker import capture_files

        assert capture_files(Path(top)) == found
    finally:  # shutil.rmtree recurses too: remove level by level
        for name in (Path(levels[-1], "bottom.sse"), Path(top, "top.sse")):
            name.unlink(missing_ok=True)
        for level in reversed(levels):
            os.rmdir(level)


def test_a_symlink_loop_in_a_folder_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "s.sse").write_bytes(PLAIN.read_bytes())
    (tmp_path / "a" / "b" / "up").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "a" / "self").symlink_to(".", target_is_directory=True)
    result = inspector("check", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        line for line in result.stdout.splitlines() if "a/b/s.sse: completed" in line
    ]
    assert len(result.stdout.splitlines()) == 1


def test_a_huge_folder_streams_results_before_it_is_fully_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(50):
        (tmp_path / f"sub{i:02}").mkdir()
        (tmp_path / f"sub{i:02}" / "s.sse").write_bytes(b"")
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path: Any) -> Any:
        listed.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    first = next(iter(iter_stream_files([str(tmp_path)])))
    assert first == tmp_path / "sub00" / "s.sse"
    assert len(listed) == 2  # the top folder and the first subfolder, no more


# --- usage --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--jobs", "0", "x"],
        ["check", "--jobs", "many", "x"],
        ["check", "-j", "-3", "x"],
        ["open", "--frame", "-7", "x.sse"],
        ["open", "--frame", "first", "x.sse"],
        ["events"],
        ["frames", "a", "b"],
        ["events", "--provider", "openai", "x"],
        ["proxy", "--port", "-1"],
        ["proxy", "--port", "65536"],
        ["serve", "--port", "70000", "x"],
    ],
)
def test_invalid_usage_is_a_usage_error(args: list[str]) -> None:
    result = inspector(*args)
    assert result.returncode == 2
    assert "usage: inspector" in result.stderr
    assert "error:" in result.stderr


# --- what a capture can make us allocate ------------------------------------------


def test_a_header_line_longer_than_the_limit_is_refused_after_reading_only_the_limit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big-header.jsonl"
    padding = "x" * (capture.MAX_HEADER_LINE + 10)
    path.write_bytes(capture_lines(dict(HEADER, padding=padding)))
    result = inspector("events", str(path))
    assert result.returncode == 2
    assert f"{path}:1: the header line longer than 16 MiB" in result.stderr


def test_a_record_line_longer_than_the_limit_stops_reading_and_keeps_earlier_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(capture, "MAX_RECORD_LINE", 4096)
    stream = chat_stream("Hello")
    path = tmp_path / "big-chunk.jsonl"
    path.write_bytes(
        capture_lines(
            HEADER,
            {"type": "chunk", "t": 0.1, "text": stream.decode()},
            # base64 that would decode to far more than the limit
            {"type": "chunk", "t": 0.2, "b64": "QUFB" * 100_000},
            {"type": "end", "t": 0.3, "reason": "eof"},
        )
    )
    rec = read_recording(path)
    assert rec.chunks == [(0.1, stream)]
    assert rec.problems == [f"{path}:3: a record line longer than 4 KiB"]


def test_a_capture_of_millions_of_tiny_records_stops_at_the_record_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(capture, "MAX_RECORDS", 1000)
    path = tmp_path / "many.jsonl"
    tiny = orjson.dumps({"type": "chunk", "t": 0, "text": ""}) + b"\n"
    path.write_bytes(capture_lines(HEADER) + tiny * 600 + b"\n" * 600 + tiny)
    rec = read_recording(path)
    assert len(rec.chunks) == 600
    assert rec.problems == [f"{path}:1002: more than 1,000 records; reading stopped here"]


def test_a_deeply_nested_header_is_refused(tmp_path: Path) -> None:
    nested: Any = "leaf"
    for _ in range(200):
        nested = {"n": nested}
    path = tmp_path / "deep.jsonl"
    path.write_bytes(capture_lines(dict(HEADER, request=nested), {"type": "end", "reason": "eof"}))
    result = inspector("events", str(path))
    assert result.returncode == 2
    assert f"{path}:1: the header nests deeper than 64 levels" in result.stderr


def test_a_header_nesting_beyond_the_json_parsers_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deeper.jsonl"
    path.write_bytes(b'{"type": "header", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    result = inspector("events", str(path))
    assert result.returncode == 2
    assert f"{path}:1: the header is not valid JSON" in result.stderr


# --- any bytes at all -------------------------------------------------------------

INT64 = st.integers(-(2**63), 2**63 - 1)
record_lines = st.one_of(
    st.builds(
        lambda t, text: orjson.dumps({"type": "chunk", "t": t, "text": text}),
        st.floats(allow_nan=False, allow_infinity=False) | INT64 | st.text(max_size=3),
        st.text(max_size=60) | st.sampled_from(['data: {"choices":[]}\n\n', "data: [DONE]\n\n"]),
    ),
    st.builds(lambda b: orjson.dumps({"type": "chunk", "t": 0, "b64": b}), st.text(max_size=40)),
    st.builds(
        lambda reason, t: orjson.dumps({"type": "end", "t": t, "reason": reason}),
        st.sampled_from(["eof", "reset", "timeout", "bogus", None]),
        st.none() | st.floats(allow_nan=False, allow_infinity=False),
    ),
    st.binary(max_size=40),
)
header_lines = st.one_of(
    st.just(orjson.dumps(HEADER)),
    st.builds(lambda v: orjson.dumps(dict(HEADER, version=v)), INT64 | st.text(max_size=5)),
    st.builds(lambda p: orjson.dumps(dict(HEADER, provider=p)), st.text(max_size=12)),
    st.binary(max_size=40),
)


@st.composite
def capture_like(draw: st.DrawFn) -> bytes:
    lines = [draw(header_lines), *draw(st.lists(record_lines, max_size=8))]
    data = b"\n".join(lines) + draw(st.sampled_from([b"\n", b""]))
    return data[: draw(st.integers(0, len(data)))] if draw(st.booleans()) else data


@settings(max_examples=150)
@given(st.one_of(capture_like(), st.binary(max_size=300)), st.sampled_from([None, *PROVIDERS]))
def test_any_bytes_load_or_are_refused_with_a_message(data: bytes, provider: str | None) -> None:
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as file:
        file.write(data)
        file.flush()
        try:
            trace = load_trace(file.name, provider)
        except ValueError as exc:  # UnreadableInput, ProviderUnknown: said, not raised
            assert str(exc).startswith(file.name)
            return
    assert trace.terminal_event is not None  # every loaded stream ends somehow
    for problem in trace.problems:
        assert problem.startswith(file.name)
