"""The leak scan reads an exported capture as the export read it back: the same as parsing it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import orjson
import pytest

import inspector.export.anonymizer as anonymizer_module
import inspector.export.pipeline as export_module
from inspector.capture import parse_recording_file
from inspector.export import ExportError, ExportOptions, export_capture
from inspector.export import leaks as leaks_module
from inspector.export.leaks import ReadCapture

ROOT = Path(__file__).resolve().parent.parent
PLANTED = sorted((ROOT / "tests" / "data" / "export").glob("*.jsonl"))
CAPTURES = sorted((ROOT / "captures").rglob("*.jsonl"))
CAPTURES = [path for path in CAPTURES if not path.name.endswith(".events.jsonl")]


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Check, on every scan, that each read-back capture gives the haystacks its file would."""
    seen: list[tuple[str, bool]] = []
    real = export_module.scan_outputs

    def scan(
        files: Any, secrets: Any, assembled: Any = (), read: Any = None, **options: Any
    ) -> Any:
        for name in files:
            parts = (read or {}).get(name)
            seen.append((name, parts is not None))
            if parts is not None:
                copy = ReadCapture(parts.records, list(parts.pieces))
                from_file = list(leaks_module._haystacks(files[name]))
                assert list(leaks_module._read_capture_haystacks(copy)) == from_file
        return real(files, secrets, assembled, read, **options)

    monkeypatch.setattr(export_module, "scan_outputs", scan)
    return seen


@pytest.mark.parametrize("path", PLANTED + CAPTURES[::4], ids=lambda p: p.name)
@pytest.mark.parametrize("text", ["keep", "mask"])
def test_a_read_back_capture_is_scanned_as_its_file_would_be(
    path: Path, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy(monkeypatch)
    with contextlib.suppress(ExportError):  # a refusal is the file's own (corpus tests pin them)
        export_capture(path, tmp_path, ExportOptions(text=text))
    last = orjson.loads(path.read_bytes().rstrip().rsplit(b"\n", 1)[-1])
    if seen and last.get("type") == "end":
        assert (path.stem + ".jsonl", True) in seen  # the read-back path was taken


def test_a_secret_left_in_the_stream_is_found_in_the_read_back_capture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewriter bypassed: the scan of the read-back capture refuses, as a parse of it would."""
    path = ROOT / "tests" / "data" / "export" / "openai-chat-planted.jsonl"
    monkeypatch.setattr(
        anonymizer_module, "rewrite_body", lambda body, ctx, whole_json: body.take()
    )
    with pytest.raises(ExportError) as reused:
        export_capture(path, tmp_path / "a", ExportOptions())
    monkeypatch.setattr(export_module, "read_back_records", lambda file, size, parsed: None)
    with pytest.raises(ExportError) as parsed:
        export_capture(path, tmp_path / "b", ExportOptions())
    assert "openai-chat-planted.jsonl: " in str(reused.value)
    assert "stream body" in str(reused.value)
    assert str(reused.value) == str(parsed.value)
    assert not (tmp_path / "a").exists()  # nothing written, the folder made for it removed


def _capture(*lines: dict[str, Any] | bytes) -> bytes:
    return b"".join(
        (line if isinstance(line, bytes) else orjson.dumps(line)) + b"\n" for line in lines
    )


HEADER = {"type": "header", "format": "llm-stream-capture", "version": 1, "provider": "openai-chat"}
CHUNK = {"type": "chunk", "t": 0.5, "text": "data: [DONE]\n\n"}


def _records(data: bytes) -> bytes | None:
    file = io.BytesIO(data)
    parsed = parse_recording_file(file, "c.jsonl", len(data))
    return export_module.read_back_records(file, len(data), parsed)


@pytest.mark.parametrize("error_size", [0, 10, (1 << 16) - 40, 1 << 16, 3 << 16])
def test_the_header_and_end_lines_are_read_whole(error_size: int) -> None:
    end = {"type": "end", "t": 1.0, "reason": "reset", "error": "e" * error_size or None}
    data = _capture(HEADER, CHUNK, CHUNK, end)
    assert _records(data) == orjson.dumps(HEADER) + b"\n" + orjson.dumps(end)
    parts = leaks_module._capture_parts(data)
    assert parts is not None and parts[1] == _records(data)


def test_a_capture_without_its_end_record_has_only_its_header_line() -> None:
    data = _capture(HEADER, CHUNK)
    # The reader reports the missing end record: the scan parses the file itself.
    assert _records(data) is None


@pytest.mark.parametrize(
    "data",
    [
        _capture(HEADER),  # no chunk: the scan reads such a file as it is
        _capture(HEADER, CHUNK, {"type": "end", "t": 1, "reason": "eof"}) + b"\n",
        _capture(HEADER, b"not json", {"type": "end", "t": 1, "reason": "eof"}),
        b"\n" + _capture(HEADER, CHUNK, {"type": "end", "t": 1, "reason": "eof"}),
        b"data: [DONE]\n\n",
    ],
)
def test_anything_but_a_plain_read_back_is_left_to_the_scan(data: bytes) -> None:
    assert _records(data) is None
