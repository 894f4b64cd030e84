"""The headless commands, run through the real entry point in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from .conftest import ROOT, inspector

REAL = ROOT / "tests" / "fixtures" / "real"
CHAT = REAL / "openai-chat"


def jsonl(text: str) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in text.splitlines() if line]


@pytest.mark.parametrize("command", ["frames", "events", "check"])
def test_every_command_has_help(command: str) -> None:
    result = inspector(command, "--help")
    assert result.returncode == 0
    assert f"usage: inspector {command}" in result.stdout


def test_frames_prints_event_data_id_retry_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "s.sse"
    path.write_bytes(b": hello\n\nid: 7\nretry: 100\nevent: e\ndata: a\ndata: b\n\ndata: c\n\n")
    result = inspector("frames", str(path))
    assert result.returncode == 0, result.stderr
    assert jsonl(result.stdout) == [
        {"comment": "hello"},
        {"event": "e", "data": "a\nb", "id": "7", "retry": 100},
        {"event": "message", "data": "c", "id": "7", "retry": None},
    ]


def test_events_prints_the_whole_normalized_sequence_with_contract_fields() -> None:
    result = inspector("events", str(CHAT / "openai-max-tokens-length.sse"))
    assert result.returncode == 0, result.stderr
    events = jsonl(result.stdout)
    assert [e["type"] for e in events] == [
        "stream.start", "block.start", "block.delta", "block.stop", "stream.done",
    ]  # fmt: skip
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
    assert len({e["stream_id"] for e in events}) == 1
    done = events[-1]
    assert set(done) == {
        "stream_id", "seq", "type", "status", "finish_reason", "provider_finish_reason",
        "usage", "model", "response_id",
    }  # fmt: skip
    assert (done["finish_reason"], done["provider_finish_reason"]) == ("length", "length")


def test_events_on_a_capture_equals_events_on_its_raw_body(tmp_path: Path) -> None:
    from inspector.capture_writer import CaptureWriter

    raw = (CHAT / "openai-text-usage.sse").read_bytes()
    path = tmp_path / "c.jsonl"
    writer = CaptureWriter(path, {"provider": "openai-chat"})
    for i in range(0, len(raw), 333):
        writer.chunk(i / 1000, raw[i : i + 333])
    writer.end("eof", 1.0)
    from_capture = jsonl(inspector("events", str(path)).stdout)
    from_raw = jsonl(inspector("events", str(CHAT / "openai-text-usage.sse")).stdout)
    assert from_capture == from_raw


def test_events_with_an_explicit_provider_and_a_missing_file() -> None:
    result = inspector("events", "--provider", "openai-chat", "nope.sse")
    assert result.returncode == 2
    assert result.stderr == "inspector: nope.sse: no such file\n"


def test_events_says_clearly_when_the_provider_cannot_be_told(tmp_path: Path) -> None:
    path = tmp_path / "x.sse"
    path.write_bytes(b"data: hello\n\n")
    result = inspector("events", str(path))
    assert result.returncode == 2
    assert "cannot tell which provider" in result.stderr
    assert "Traceback" not in result.stderr


def test_check_accepts_directories_and_reports_one_line_per_file() -> None:
    result = inspector("check", str(CHAT))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(list(CHAT.glob("*.sse")))
    assert all("violations=0" in line for line in lines)
    groq = next(line for line in lines if "groq-tool-use-failed" in line)
    assert ": failed (invalid_request) frames=95" in groq


def test_check_exits_1_when_a_file_cannot_be_read(tmp_path: Path) -> None:
    result = inspector("check", str(CHAT / "openai-text-plain.sse"), str(tmp_path / "missing.sse"))
    assert result.returncode == 1
    assert "missing.sse: unreadable" in result.stdout


def test_garbage_input_never_produces_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "g.sse"
    path.write_bytes(b"\xff\xfe\x00garbage\r\rdata: {not json\n\n")
    for command in ("frames", "events", "check"):
        result = (
            inspector(command, "--provider", "openai-chat", str(path))
            if command != "frames"
            else inspector(command, str(path))
        )
        assert "Traceback" not in result.stderr, command
    events = jsonl(inspector("events", "--provider", "openai-chat", str(path)).stdout)
    assert events[-1]["type"] == "stream.error"
    assert events[-1]["error"]["category"] == "protocol_error"


def test_the_console_script_is_installed_and_runs() -> None:
    exe = Path(sys.executable).with_name("inspector")
    if not exe.exists():
        pytest.skip("console script not installed in this environment")
    result = subprocess.run(
        [str(exe), "check", str(CHAT / "openai-refusal.sse")], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert "completed (refusal)" in result.stdout
