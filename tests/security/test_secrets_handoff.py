"""Class 4 — handed across boundaries: what import removed, export still finds.

Import writes into the capture header what it redacted — kinds, lengths and
keyed hashes, never the values — and a later export reads it back: a value
import removed that turns up again in the capture (a spelling nobody
undid, an edit by hand) refuses the export just as a value the export
removed itself would. Exporting a cassette directly finds every secret too.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.export import ExportError, export_paths, export_recording
from inspector.interop import read_bytes

from .secrets_upstream import chat_frame

TOKEN = "ghp_" + "Tq4Wn8Vb" * 5
COOKIE = "cookie-value-" + "Hj6" * 5


def _cassette() -> bytes:
    sse = chat_frame(f"token {TOKEN} cookie {COOKIE}") + b"data: [DONE]\n\n"
    interaction = {
        "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions",
                    "body": '{"model": "gpt-4o", "stream": true}',
                    "headers": {"Authorization": [f"Bearer {TOKEN}"],
                                "Cookie": [f"sess={COOKIE}"]}},
        "response": {"status": {"code": 200, "message": "OK"},
                     "headers": {"content-type": ["text/event-stream"]},
                     "body": {"string": sse.decode()}},
    }  # fmt: skip
    return orjson.dumps({"interactions": [interaction], "version": 1})


def test_import_writes_kinds_and_keyed_hashes_never_the_values() -> None:
    ((_, rec),) = read_bytes(_cassette(), "c.json").recordings
    assert rec.header is not None
    record = rec.header["redacted"]
    kinds = {item["kind"] for item in record["secrets"]}
    assert {"header:authorization", "cookie"} <= kinds
    text = orjson.dumps(rec.header).decode() + rec.body.decode()
    assert TOKEN not in text and COOKIE not in text
    assert all(set(item) == {"kind", "length", "digest"} for item in record["secrets"])


def _write(rec_header: dict[str, object], body: bytes, path: Path) -> Path:
    writer = CaptureWriter(path, rec_header)
    writer.chunk(0.0, body)
    writer.end("eof", 0.1)
    return path


def test_an_export_after_import_refuses_a_value_import_removed(tmp_path: Path) -> None:
    ((_, rec),) = read_bytes(_cassette(), "c.json").recordings
    assert rec.header is not None
    header = {k: v for k, v in rec.header.items() if k not in ("type", "format", "version")}
    # The cookie value comes back where no rule can see it (plain prose, no shape).
    body = chat_frame(f"your session is {COOKIE} ok") + b"data: [DONE]\n\n"
    capture = _write(header, body, tmp_path / "imported.jsonl")
    with pytest.raises(ExportError) as refused:
        export_recording(load_recording(capture), tmp_path / "out")
    message = str(refused.value)
    assert "cookie" in message and "known by its hash" in message and COOKIE not in message
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_exporting_a_cassette_directly_finds_and_counts_its_secrets(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    cassette.write_bytes(_cassette())
    (outcome,) = export_paths([cassette], tmp_path / "out")
    assert outcome.error is None and outcome.result is not None
    result = outcome.result
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert TOKEN.encode() not in written and COOKIE.encode() not in written
    scan = result.report["verification"]["leak_scan"]
    assert scan["secrets"] >= 2 and scan["found"] == 0
