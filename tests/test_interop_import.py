"""Importing VCR cassettes and HAR logs: real cassettes of the four providers become captures.

The cassettes in tests/fixtures/cassettes are real recordings from public
test suites (PROVENANCE.md there); the HAR is built in Chrome's exact shape
around a real stream (tests/fixtures/har/PROVENANCE.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.capture import load_recording
from inspector.interop import read_file
from inspector.session import load_trace, trace_recording

from .conftest import ROOT, inspector

CASSETTES = ROOT / "tests" / "fixtures" / "cassettes"
HAR = ROOT / "tests" / "fixtures" / "har" / "chrome-shape-anthropic.har"
ANTHROPIC = CASSETTES / "anthropic-text.llm-anthropic.yaml"
GEMINI_ARRAY = CASSETTES / "gemini-json-array-gzip.llm-gemini.yaml"
GEMINI_SSE = CASSETTES / "gemini-sse-crlf.pydantic-ai.yaml"
CHAT_TWO = CASSETTES / "openai-chat-tool-then-text.pydantic-ai.yaml"
RESPONSES = CASSETTES / "openai-responses-reasoning-text.pydantic-ai.yaml"


def outline(events: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """Every event but deltas and unread-field warnings, as (type, block kind).

    (Which fields of real streams are unread is tests/test_unread_fields.py's.)
    """
    return [
        (e["type"], e.get("block", {}).get("kind"))
        for e in events
        if e["type"] != "block.delta" and e.get("code") != "unread_field"
    ]


def assembled(events: list[dict[str, Any]], kind: str = "text") -> dict[int, str]:
    """The text of each block from its deltas of one kind."""
    out: dict[int, str] = {}
    for e in events:
        if e["type"] == "block.delta" and e["delta"]["kind"] == kind:
            index = e["block"]["index"]
            out[index] = out.get(index, "") + e["delta"]["text"]
    return out


# (file, interaction, provider, outline, assembled text or tool arguments, finish, output tokens)
REAL_CASES = [
    (ANTHROPIC, 1, "anthropic",
     [("stream.start", None), ("block.start", "text"), ("stream.heartbeat", None),
      ("block.stop", "text"), ("stream.done", None)],
     {0: "- Captain\n- Scoop"}, "stop", 10),
    (GEMINI_ARRAY, 1, "gemini",
     [("stream.start", None), ("block.start", "text"), ("block.stop", "text"),
      ("stream.done", None)],
     {0: "Hello"}, "stop", 28),
    (GEMINI_SSE, 1, "gemini",
     [("stream.start", None), ("block.start", "text"), ("block.stop", "text"),
      ("stream.done", None)],
     {0: "The capital of France is **Paris**."}, "stop", 24),
    (CHAT_TWO, 1, "openai-chat",
     [("stream.start", None), ("block.start", "tool_call"), ("block.stop", "tool_call"),
      ("stream.done", None)],
     {0: '{"country":"UK"}'}, "tool_calls", 15),
    (CHAT_TWO, 2, "openai-chat",
     [("stream.start", None), ("block.start", "text"), ("block.stop", "text"),
      ("stream.done", None)],
     {0: "The capital of the UK is London."}, "stop", 9),
    (RESPONSES, 1, "openai-responses",
     [("stream.start", None), ("block.start", "reasoning"), ("block.stop", "reasoning"),
      ("block.start", "text"), ("block.stop", "text"), ("stream.done", None)],
     {1: "Paris."}, "stop", 59),
    (HAR, 2, "anthropic",
     [("stream.start", None), ("block.start", "text"), ("stream.heartbeat", None),
      ("block.stop", "text"), ("stream.done", None)],
     {0: "- Captain\n- Scoop"}, "stop", 10),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "interaction", "provider", "expected", "texts", "finish", "output_tokens"),
    REAL_CASES,
    ids=[f"{c[0].name}#{c[1]}" for c in REAL_CASES],
)
def test_real_cassettes_import_as_completed_streams_of_their_provider(
    path: Path,
    interaction: int,
    provider: str,
    expected: list[tuple[str, str | None]],
    texts: dict[int, str],
    finish: str,
    output_tokens: int,
) -> None:
    recordings = dict(read_file(path).recordings)
    trace = trace_recording(recordings[interaction])
    events = list(trace.events)
    assert trace.provider == provider
    assert outline(events) == expected
    kind = "json_text" if finish == "tool_calls" else "text"
    assert assembled(events, kind) == texts
    assert events[-1]["finish_reason"] == finish
    assert events[-1]["usage"]["output_tokens"] == output_tokens
    assert trace.violations == []


def test_a_cassette_with_two_interactions_gives_two_captures_in_order() -> None:
    result = read_file(CHAT_TWO)
    assert [index for index, _ in result.recordings] == [1, 2]
    headers = [rec.header for _, rec in result.recordings]
    assert [h["imported"]["interaction"] for h in headers] == [1, 2]
    assert {h["imported"]["of"] for h in headers} == {2}
    # pydantic-ai's structured parsed_body is the request body as JSON.
    assert headers[1]["request"]["body"]["messages"][2] == {
        "content": "London", "role": "tool", "tool_call_id": "call_ZR5UUuTt3pf61kjwAJIYdVMj"
    }  # fmt: skip


def test_the_header_says_the_format_lost_timing_and_chunking() -> None:
    ((_, rec),) = read_file(ANTHROPIC).recordings
    header = rec.header
    assert header["timed"] is False
    assert header["imported"] == {
        "from": "vcr", "file": ANTHROPIC.name, "interaction": 1, "of": 1,
        "timing": "lost", "chunking": "lost",
    }  # fmt: skip
    assert header["provider"] == "anthropic"
    assert header["endpoint"] == "/v1/messages"
    assert header["model"] == "claude-sonnet-4-5"
    assert header["recorded_at"] == "2025-11-15T00:56:31Z"  # from the Date header
    assert rec.chunks == [(0.0, rec.body)]  # one piece: the chunking is not invented


def test_gzip_base64_json_array_gemini_is_kept_as_a_json_array_one_frame_per_element() -> None:
    ((_, rec),) = read_file(GEMINI_ARRAY).recordings
    assert rec.header["imported"]["decoded"] == ["base64", "gzip"]
    assert rec.header["framing"] == "json-array"
    assert rec.body.lstrip().startswith(b"[")
    result = inspector("frames", str(GEMINI_ARRAY))
    frames = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 0
    data = [orjson.loads(f["data"]) for f in frames]
    assert [d["candidates"][0]["content"]["parts"][0]["text"] for d in data] == ["Hello", ""]
    assert data[1]["candidates"][0]["finishReason"] == "STOP"
    # Each element keeps its exact text: a pretty-printed element is several data: lines.
    assert frames[0]["data"].startswith('{\n  "candidates": [')


def test_har_import_skips_the_preflight_and_redacts_the_api_key() -> None:
    result = read_file(HAR)
    assert [index for index, _ in result.recordings] == [2]
    assert result.skipped == [f"{HAR}: entry 1 (OPTIONS 204) is not a streamed response"]
    header = result.recordings[0][1].header
    assert header["request"]["headers"]["x-api-key"] == "[redacted]"
    assert "EXAMPLE" not in orjson.dumps(header).decode()
    assert header["recorded_at"] == "2025-11-15T00:56:29.712Z"
    # HAR keeps when the first and last byte came (blocked + send + wait; total time).
    assert header["timings"] == {"first_byte": 1.673851, "last_byte": 1.874386}
    assert header["timed"] is False


def test_open_events_check_and_frames_read_cassettes_directly() -> None:
    rec = load_recording(CHAT_TWO)
    assert rec.header["imported"]["interaction"] == 1  # the first streamed response
    events = [orjson.loads(line) for line in inspector("events", str(HAR)).stdout.splitlines()]
    assert events == list(load_trace(HAR).events)
    check = inspector("check", str(GEMINI_SSE), str(RESPONSES))
    assert check.returncode == 0, check.stderr
    assert "completed (stop)" in check.stdout


def test_a_har_with_event_source_messages_keeps_their_times(tmp_path: Path) -> None:
    # Chrome records an EventSource's messages with their arrival times.
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
           "entries": [{
               "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 900,
               "request": {"method": "GET", "url": "http://localhost:8000/v1/chat/completions",
                           "headers": []},
               "response": {"status": 200, "headers": [
                   {"name": "content-type", "value": "text/event-stream"}],
                   "content": {"size": 0, "mimeType": "text/event-stream"}},
               "timings": {"send": 1, "wait": 100, "receive": 799},
               "_eventSourceMessages": [
                   {"time": 1767225600.25, "eventName": "message", "eventId": "",
                    "data": '{"object":"chat.completion.chunk","choices":[{"index":0,'
                            '"delta":{"content":"Hi"},"finish_reason":null}]}'},
                   {"time": 1767225600.75, "eventName": "message", "eventId": "",
                    "data": '{"object":"chat.completion.chunk","choices":[{"index":0,'
                            '"delta":{},"finish_reason":"stop"}]}'},
                   {"time": 1767225600.8, "eventName": "message", "eventId": "",
                    "data": "[DONE]"},
               ]}]}}  # fmt: skip
    path = tmp_path / "es.har"
    path.write_bytes(orjson.dumps(har))
    trace = load_trace(path)
    assert [round(t, 3) for t, _ in [(c.time, c.data) for c in trace.chunks]] == [0.25, 0.75, 0.8]
    assert trace.header["timed"] is True
    assert trace.header["imported"]["timing"] == "per event"
    assert assembled(list(trace.events)) == {0: "Hi"}
    assert trace.state == "completed"


def test_inspector_import_writes_one_capture_per_streamed_response(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = inspector("import", str(CHAT_TWO), str(HAR), str(GEMINI_ARRAY), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "chrome-shape-anthropic.jsonl",
        "gemini-json-array-gzip.llm-gemini.jsonl",
        "openai-chat-tool-then-text.pydantic-ai-1.jsonl",
        "openai-chat-tool-then-text.pydantic-ai-2.jsonl",
    ]
    assert "skipped" in result.stdout and "OPTIONS 204" in result.stdout
    assert "imported 4 stream(s)" in result.stdout
    # The written captures are ordinary captures: they load and normalize the same.
    written = load_trace(out / "openai-chat-tool-then-text.pydantic-ai-2.jsonl")
    assert list(written.events) == list(
        trace_recording(read_file(CHAT_TWO).recordings[1][1]).events
    )
    assert written.header["timed"] is False


def test_import_of_a_file_with_nothing_streamed_exits_1(tmp_path: Path) -> None:
    cassette = tmp_path / "counts.yaml"
    cassette.write_text(
        'interactions:\n- request:\n    body: \'{"model": "claude"}\'\n    headers: {}\n'
        "    method: POST\n    uri: https://api.anthropic.com/v1/messages/count_tokens\n"
        "  response:\n    body: {string: '{\"input_tokens\": 3}'}\n"
        "    headers: {content-type: [application/json]}\n    status: {code: 200, message: OK}\n"
        "version: 1\n"
    )
    result = inspector("import", str(cassette), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "no streamed response to import" in result.stderr
    events = inspector("events", str(cassette))
    assert events.returncode == 2
    assert "no streamed response in this VCR file (1 other interaction(s))" in events.stderr


def test_an_error_status_answering_a_stream_request_is_imported_and_classified(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "overloaded.yaml"
    cassette.write_text(
        'interactions:\n- request:\n    body: \'{"model": "claude", "stream": true}\'\n'
        "    headers: {}\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n"
        '  response:\n    body:\n      string: \'{"type": "error", "error": {"type": '
        '"overloaded_error", "message": "Overloaded"}}\'\n'
        "    headers: {content-type: [application/json]}\n"
        "    status: {code: 529, message: ''}\nversion: 1\n"
    )
    trace = load_trace(cassette)
    assert trace.state == "failed"
    assert trace.events[-1]["error"]["category"] == "upstream_overloaded"


def test_the_tui_shows_an_imported_capture_untimed() -> None:
    from inspector.viewmodel.index import TraceIndex

    assert TraceIndex(load_trace(ANTHROPIC)).timed is False
    assert TraceIndex(load_trace(ROOT / "captures" / "anthropic" / "text-simple.jsonl")).timed


def test_a_folder_is_searched_and_its_layout_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = inspector("import", str(ROOT / "tests" / "fixtures"), "-o", str(out))
    # Every cassette and HAR imports, the Bedrock `!!binary` event streams included.
    assert result.returncode == 0, result.stderr
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.jsonl"))
    assert written == [
        "cassettes/anthropic-text.llm-anthropic.jsonl",
        "cassettes/gemini-json-array-gzip.llm-gemini.jsonl",
        "cassettes/gemini-sse-crlf.pydantic-ai.jsonl",
        "cassettes/openai-chat-tool-then-text.pydantic-ai-1.jsonl",
        "cassettes/openai-chat-tool-then-text.pydantic-ai-2.jsonl",
        "cassettes/openai-responses-reasoning-text.pydantic-ai.jsonl",
        "cassettes/openllmetry-claude3-invoke-stream.jsonl",
        "cassettes/openllmetry-titan-invoke-stream-guardrail-anonymized.jsonl",
        "cassettes/openllmetry-titan-invoke-stream-guardrail-blocked.jsonl",
        "har/chrome-shape-anthropic.jsonl",
        *(f"har/chromium-playwright-four-providers-{i}.jsonl" for i in range(2, 7)),
        "real-longtail/cohere-v1-command-r.jsonl",
        "real-longtail/openinference-anthropic-legacy-complete-stream.jsonl",
        "real-longtail/openinference-bedrock-claude3-haiku-converse-stream-tool.jsonl",
        "real-longtail/openinference-gemini-interactions-thinking-stream.jsonl",
        "real-longtail/openllmetry-bedrock-llama32-converse-stream.jsonl",
        "real-longtail/openllmetry-cohere-v2-command-r-tool-calls-stream.jsonl",
        "real-longtail/openllmetry-ollama-chat-llama3-stream.jsonl",
        "real-longtail/openllmetry-ollama-generate-llama3-stream.jsonl",
        "real-longtail/openllmetry-replicate-llama2-stream-1.jsonl",
        "real-longtail/openllmetry-replicate-llama2-stream-2.jsonl",
        "real-longtail/openllmetry-writer-palmyra-x4-tool-call-stream.jsonl",
        "real-longtail/pydantic-ai-bedrock-converse-stream-invalid-model-400.jsonl",
        "real-longtail/pydantic-ai-bedrock-gpt-oss-empty-text-delta.jsonl",
        "real-longtail/pydantic-ai-openai-moderation-stream.jsonl",
        "real-longtail/pydantic-ai-openrouter-minimax-length-then-error-chunk.jsonl",
    ]  # PROVENANCE.md and the real/*.sse streams are passed over


def test_two_inputs_with_one_name_do_not_overwrite_each_other(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "same.yaml", tmp_path / "b" / "same.yaml"
    first.write_bytes(GEMINI_SSE.read_bytes())
    second.write_bytes(ANTHROPIC.read_bytes())
    result = inspector("import", str(first), str(second), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "would overwrite" in result.stderr
    assert load_trace(tmp_path / "out" / "same.jsonl").provider == "gemini"


def test_json_cassettes_deflate_bodies_and_bodies_already_decoded(tmp_path: Path) -> None:
    import base64
    import zlib

    from inspector.interop import read_bytes

    sse = b'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}\n\n'
    url = "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse"

    def json_cassette(body: object, encoding: str | None) -> bytes:
        headers = {"content-type": ["text/event-stream"]}
        if encoding:
            headers["content-encoding"] = [encoding]
        interaction = {
            "request": {"method": "POST", "uri": url, "body": None, "headers": {}},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": headers,
                         "body": {"string": body}},
        }  # fmt: skip
        return orjson.dumps({"interactions": [interaction], "version": 1})

    plain = read_bytes(json_cassette(sse.decode(), None), "plain.json")
    assert plain.recordings[0][1].body == sse
    # YAML !!binary with deflate: the bytes are decoded.
    deflated = base64.b64encode(zlib.compress(sse)).decode()
    yaml_text = (
        "interactions:\n- request: {method: POST, uri: '" + url + "', body: null, headers: {}}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        "    headers: {content-type: [text/event-stream], content-encoding: [deflate]}\n"
        f"    body: {{string: !!binary '{deflated}'}}\nversion: 1\n"
    )
    ((_, rec),) = read_bytes(yaml_text.encode(), "deflate.yaml").recordings
    assert rec.body == sse
    assert rec.header["imported"]["decoded"] == ["base64", "deflate"]
    # A recorder hook that decoded the body but left the gzip header.
    decoded = yaml_text.replace("deflate", "gzip").replace(deflated, base64.b64encode(sse).decode())
    ((_, rec),) = read_bytes(decoded.encode(), "decoded.yaml").recordings
    assert rec.body == sse


def test_a_har_body_in_base64_is_decoded(tmp_path: Path) -> None:
    import base64

    doc = orjson.loads(HAR.read_bytes())
    content = doc["log"]["entries"][1]["response"]["content"]
    original = content["text"].encode()
    content["text"] = base64.b64encode(original).decode()
    content["encoding"] = "base64"
    path = tmp_path / "b64.har"
    path.write_bytes(orjson.dumps(doc))
    rec = load_recording(path)
    assert rec.body == original
    assert rec.header["imported"]["decoded"] == ["base64"]


async def test_inspector_open_shows_an_imported_cassette_untimed() -> None:
    from inspector.tui import InspectorApp
    from inspector.tui.screens.main import MainScreen

    from .tui.helpers import panes

    app = InspectorApp(load_trace(CHAT_TWO))
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        shown = panes(screen)
        assert "untimed" in shown.status
        assert "openai-chat" in shown.status
        assert " ms" not in shown.status  # no fake 0 ms anywhere on the status line
        frame_rows = [row for row in shown.frames if row.split()[0].isdigit()]
        assert len(frame_rows) == 9
        assert all("—" in row and " ms" not in row for row in frame_rows)
        assert "untimed" in shown.frame_detail


def test_a_streamed_entry_without_its_body_is_a_problem_not_an_empty_stream(
    tmp_path: Path,
) -> None:
    doc = orjson.loads(HAR.read_bytes())
    del doc["log"]["entries"][1]["response"]["content"]["text"]  # as Chrome does mid-stream
    path = tmp_path / "nobody.har"
    path.write_bytes(orjson.dumps(doc))
    result = read_file(path)
    assert result.recordings == []
    assert result.problems == [
        f"{path}: entry 2 (POST 200) streamed, but the browser or proxy kept no body"
    ]
    assert inspector("events", str(path)).returncode == 2
