"""Importing a HAR file that a real browser wrote: the streams are the ones it was served.

tests/fixtures/har/chromium-playwright-four-providers.har was recorded by
Chromium through Playwright's ``recordHar`` while a page fetched, with the
browser's own network stack, streams that ``inspector serve`` replayed from
``captures/`` (scripts/record_browser_har.mjs; PROVENANCE.md there). So each
imported stream must normalize to exactly the golden events of the capture
it was served from: that capture's name is in the ``x-inspector-capture``
response header the browser recorded.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.interop import read_bytes, read_file
from inspector.interop.charset import browser_decodes_as_windows_1252, undo_windows_1252
from inspector.session import load_trace, trace_recording
from inspector.stream_diff import comparable, diff_streams

from .conftest import ROOT

BROWSER_HAR = ROOT / "tests" / "fixtures" / "har" / "chromium-playwright-four-providers.har"
CAPTURES = ROOT / "captures"

# HAR entry -> (provider, capture it was served from, what the browser stored of its body)
SERVED = {
    2: ("openai-chat", "tool-call-fragmented", "ascii"),
    3: ("anthropic", "web-search-citations", "windows-1252"),
    4: ("gemini", "text-several-objects", "ascii"),
    5: ("openai-responses", "text-then-tool", "utf-8"),
    6: ("openai-chat", "http-429-rate-limited", "ascii"),
}


def entries() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = orjson.loads(BROWSER_HAR.read_bytes())["log"]["entries"]
    return entries


def golden(provider: str, name: str) -> list[dict[str, Any]]:
    path = CAPTURES / provider / f"{name}.events.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def served_body(provider: str, name: str) -> str:
    lines = (CAPTURES / provider / f"{name}.jsonl").read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    return "".join(r["text"] for r in records if r["type"] == "chunk")


def response_header(entry: dict[str, Any], name: str) -> str:
    values = [h["value"] for h in entry["response"]["headers"] if h["name"].lower() == name]
    assert len(values) == 1, values
    return str(values[0])


def test_the_fixture_is_what_chromium_recorded_through_playwright() -> None:
    log = orjson.loads(BROWSER_HAR.read_bytes())["log"]
    assert log["creator"]["name"] == "Playwright"
    assert log["browser"]["name"] == "chromium"
    # The page's own document, then one fetch per stream, in the order they were made.
    assert [(e["request"]["method"], e["_resourceType"]) for e in log["entries"]] == [
        ("GET", "document")
    ] + [("POST", "fetch")] * len(SERVED)
    for index, (_, name, _) in SERVED.items():
        assert response_header(log["entries"][index - 1], "x-inspector-capture") == name


def test_import_gives_one_capture_per_streamed_response() -> None:
    result = read_file(BROWSER_HAR)
    assert [index for index, _ in result.recordings] == list(SERVED)
    assert result.skipped == [f"{BROWSER_HAR}: entry 1 (GET 200) is not a streamed response"]
    assert result.problems == []


@pytest.mark.parametrize("index", list(SERVED), ids=[f"{p}/{n}" for p, n, _ in SERVED.values()])
def test_each_imported_stream_has_exactly_the_events_of_the_capture_it_was_served(
    index: int,
) -> None:
    provider, name, _ = SERVED[index]
    recordings = dict(read_file(BROWSER_HAR).recordings)
    trace = trace_recording(recordings[index])
    assert trace.provider == provider
    assert [comparable(e, exact=True) for e in trace.events] == [
        comparable(e, exact=True) for e in golden(provider, name)
    ]


@pytest.mark.parametrize("index", list(SERVED), ids=[f"{p}/{n}" for p, n, _ in SERVED.values()])
def test_each_imported_body_is_the_served_body_byte_for_byte(index: int) -> None:
    provider, name, stored = SERVED[index]
    rec = dict(read_file(BROWSER_HAR).recordings)[index]
    body = served_body(provider, name)
    assert rec.body == body.encode()
    assert body.isascii() == (stored == "ascii")
    decoded = rec.header["imported"].get("decoded", []) if rec.header else []
    assert decoded == (["windows-1252"] if stored == "windows-1252" else [])


def test_chromium_stored_an_sse_body_without_charset_as_windows_1252() -> None:
    """What the repair is for, as the browser wrote it: one character per UTF-8 byte."""
    entry = entries()[2]
    assert response_header(entry, "content-type") == "text/event-stream"
    text = entry["response"]["content"]["text"]
    served = served_body("anthropic", "web-search-citations")
    assert '"text":"°F.' in served
    assert '"text":"°F.' not in text and '"text":"Â°F.' in text
    assert undo_windows_1252(text) == served.encode()


def test_cli_import_writes_every_stream_and_diff_finds_it_the_same(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "import", str(BROWSER_HAR), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    stem = BROWSER_HAR.stem
    assert sorted(p.name for p in out.iterdir()) == [f"{stem}-{i}.jsonl" for i in SERVED]
    for index, (provider, name, _) in SERVED.items():
        imported = out / f"{stem}-{index}.jsonl"
        assert load_trace(imported).provider == provider
        assert diff_streams(imported, CAPTURES / provider / f"{name}.jsonl", exact=True).same


# -- the windows-1252 repair, as a rule over every character ------------------

EVERY_CHARACTER = "".join(
    chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000 and c % 7 == 0
) + "".join(chr(c) for c in range(0x80, 0x800))


def as_chromium_decodes(data: bytes) -> str:
    """Bytes decoded as WHATWG windows-1252: cp1252, its 5 undefined bytes as U+0080 + n."""
    return "".join(
        chr(b) if b in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else bytes([b]).decode("cp1252") for b in data
    )


def test_any_utf8_text_decoded_as_windows_1252_comes_back_byte_for_byte() -> None:
    data = ("data: " + EVERY_CHARACTER + "\n\n").encode()
    assert undo_windows_1252(as_chromium_decodes(data)) == data


@pytest.mark.parametrize(
    "text",
    [
        "data: plain ascii\n\n",  # nothing to undo
        "data: café\n\n",  # E9 alone is not UTF-8: a correct decoding, left alone
        "data: Grüße, 👋 — 東京\n\n",  # characters windows-1252 never produces
        "data: \x80\n\n",  # a C1 control windows-1252 never produces (0x80 is €)
    ],
)
def test_text_that_is_not_utf8_read_as_windows_1252_is_left_alone(text: str) -> None:
    assert undo_windows_1252(text) is None


@pytest.mark.parametrize(
    ("content_type", "repaired"),
    [
        ("text/event-stream", True),
        ("Text/Plain", True),
        ("text/event-stream; charset=utf-8", False),
        ('text/event-stream;charset="UTF-8"', False),
        ("application/json", False),  # Chromium decodes JSON without a charset as UTF-8
        ("", False),
    ],
)
def test_only_a_text_type_without_charset_is_repaired(content_type: str, repaired: bool) -> None:
    assert browser_decodes_as_windows_1252(content_type) is repaired
    served = 'data: {"text": "Hello! 👋 63°F"}\n\n'
    stored = as_chromium_decodes(served.encode())
    headers = [{"name": "Content-Type", "value": content_type}] if content_type else []
    entry = {
        "request": {"method": "POST", "url": "http://127.0.0.1:1/v1/chat/completions"},
        "response": {
            "status": 200,
            "headers": headers,
            "content": {"mimeType": content_type or "x-unknown", "text": stored},
        },
    }
    doc = orjson.dumps({"log": {"version": "1.2", "entries": [entry]}})
    ((_, rec),) = read_bytes(doc, "t.har").recordings
    assert rec.body == (served.encode() if repaired else stored.encode())
