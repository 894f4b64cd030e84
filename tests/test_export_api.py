"""The Python entry points the CLI and the TUI's export dialog call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.capture import load_recording
from inspector.export import (
    ExportError,
    ExportOptions,
    export_capture,
    export_paths,
    export_trace,
    prepare_export,
)
from inspector.session import load_trace

from .conftest import DATA

CORPUS = DATA / "export"


def test_export_capture_writes_the_files_and_returns_the_report(tmp_path: Path) -> None:
    result = export_capture(
        CORPUS / "anthropic-planted.jsonl", tmp_path, ExportOptions(text="mask", pytest=True)
    )
    assert set(result.files) == {"capture", "events", "pytest", "report"}
    assert all(path.is_file() and path.parent == tmp_path for path in result.files.values())
    assert result.report["provider"] == "anthropic"
    assert result.report["options"] == {"text": "mask", "keep_request": False}
    lines = result.summary()
    assert lines[0].startswith("anthropic-planted.jsonl -> anthropic-planted.jsonl")
    assert lines[-1].startswith("  verified: skeleton identical")


def test_export_trace_exports_what_a_session_recorded_like_the_file_it_came_from(
    tmp_path: Path,
) -> None:
    for name in ("gemini-planted.jsonl", "raw-planted.sse"):
        from_file = export_capture(CORPUS / name, tmp_path / "file")
        from_trace = export_trace(load_trace(CORPUS / name), tmp_path / "trace")
        for role, path in from_file.files.items():
            assert from_trace.files[role].read_bytes() == path.read_bytes(), (name, role)


def test_prepare_export_writes_nothing(tmp_path: Path) -> None:
    prepared = prepare_export(
        load_recording(CORPUS / "raw-planted.sse"), ExportOptions(pytest=True)
    )
    assert sorted(prepared.names) == ["capture", "events", "pytest", "report"]
    assert set(prepared.files) == set(prepared.names.values())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["keep", "mask"])
def test_writing_an_export_gives_the_files_prepare_export_renders(
    tmp_path: Path, text: str
) -> None:
    # export_capture frees the original trace early; prepare_export keeps it.
    # Both must render the same bytes, and the events file must be exactly
    # what each event dumps to.
    options = ExportOptions(text=text, pytest=True)
    for source in sorted(CORPUS.glob("*-planted.*")):
        prepared = prepare_export(load_recording(source), options)
        written = export_capture(source, tmp_path / source.name, options)
        for role, path in written.files.items():
            assert path.read_bytes() == prepared.files[prepared.names[role]], (source.name, role)
        events = b"".join(orjson.dumps(e) + b"\n" for e in prepared.exported.events)
        assert prepared.files[prepared.names["events"]] == events, source.name


@pytest.mark.parametrize(
    ("path", "message"),
    [(CORPUS / "missing.jsonl", "no such file"), (CORPUS, "is a directory")],
)
def test_bad_paths_raise_export_error_with_a_message(path: Path, message: str) -> None:
    with pytest.raises(ExportError, match=message):
        export_capture(path, "unused")


def test_an_unknown_text_mode_is_refused() -> None:
    with pytest.raises(ExportError, match="--text must be one of keep, mask"):
        prepare_export(load_recording(CORPUS / "raw-planted.sse"), ExportOptions(text="blur"))


def test_export_paths_reports_each_input_and_goes_on_after_a_failure(tmp_path: Path) -> None:
    outcomes = list(
        export_paths([tmp_path / "nope.sse", CORPUS / "raw-planted.sse"], tmp_path / "out")
    )
    assert [(o.source.name, o.result is not None) for o in outcomes] == [
        ("nope.sse", False),
        ("raw-planted.sse", True),
    ]
    assert outcomes[0].error is not None and "no such file" in outcomes[0].error


def test_a_users_own_symlinked_output_folder_still_works(tmp_path: Path) -> None:
    # The other side of tests/security/test_export_symlink.py: only links
    # planted by someone else are refused.
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    export_capture(
        CORPUS / "openai-chat-planted.jsonl", tmp_path / "link", ExportOptions(name="chat")
    )
    assert (real / "chat.jsonl").is_file()


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-folder"])
def test_an_export_refused_by_the_leak_scan_leaves_nothing_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, existing: bool
) -> None:
    # The outputs are staged in the output folder while the leak scan reads
    # them: a refusal removes them, and the folders the export made.
    import inspector.export.anonymizer as anonymizer

    unchanged = lambda body, ctx, whole_json=False: body.take()  # noqa: E731
    monkeypatch.setattr(anonymizer, "rewrite_body", unchanged)
    out = tmp_path / "deep" / "out"
    if existing:
        out.mkdir(parents=True)
    with pytest.raises(ExportError, match="nothing was written"):
        export_capture(CORPUS / "openai-chat-planted.jsonl", out, ExportOptions(pytest=True))
    if existing:
        assert list(out.iterdir()) == []
    else:
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-folder"])
def test_an_export_refused_by_the_skeleton_check_leaves_nothing_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, existing: bool
) -> None:
    # The anonymized capture is staged before it is normalized and compared:
    # a difference removes it, and the folders the export made.
    import inspector.export.anonymizer as anonymizer

    rewrite = anonymizer.rewrite_body

    def rewrite_badly(body: Any, ctx: Any, whole_json: bool = False) -> bytes:
        out = rewrite(body, ctx, whole_json=whole_json)
        return out.replace(b"\n\ndata: ", b"\n\n:ata: ", 1)  # an event made a comment

    monkeypatch.setattr(anonymizer, "rewrite_body", rewrite_badly)
    out = tmp_path / "deep" / "out"
    if existing:
        out.mkdir(parents=True)
    with pytest.raises(ExportError, match="does not normalize like the original"):
        export_capture(CORPUS / "openai-chat-planted.jsonl", out, ExportOptions(pytest=True))
    if existing:
        assert list(out.iterdir()) == []
    else:
        assert list(tmp_path.iterdir()) == []


def test_a_written_export_leaves_no_staging_files(tmp_path: Path) -> None:
    result = export_capture(CORPUS / "gemini-planted.jsonl", tmp_path, ExportOptions(pytest=True))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in result.files.values()
    )
