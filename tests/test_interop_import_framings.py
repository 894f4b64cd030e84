"""Importing bodies that are not SSE: ``!!binary`` Bedrock event streams, HAR base64, NDJSON.

The body's frames decide the provider and the framing; the request URL and
body only speak where the frames do not contradict them. The three
openllmetry cassettes in tests/fixtures/cassettes are real recordings
(PROVENANCE.md there).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording
from inspector.core.framing.eventstream import encode_message
from inspector.interop import read_bytes, read_file
from inspector.session import trace_recording

from .conftest import ROOT, inspector

CASSETTES = ROOT / "tests" / "fixtures" / "cassettes"
CLAUDE = CASSETTES / "openllmetry-claude3-invoke-stream.yaml"
TITAN = CASSETTES / "openllmetry-titan-invoke-stream-guardrail-anonymized.yaml"
TITAN_BLOCKED = CASSETTES / "openllmetry-titan-invoke-stream-guardrail-blocked.yaml"
HAR = ROOT / "tests" / "fixtures" / "har" / "chrome-shape-anthropic.har"
OLLAMA = ROOT / "captures" / "ollama" / "chat-text.jsonl"
INVOKE = "https://bedrock-runtime.us-east-1.amazonaws.com/model/{}/invoke-with-response-stream"


def response_body(cassette: Path) -> bytes:
    doc = yaml.safe_load(cassette.read_bytes())
    body: bytes = doc["interactions"][0]["response"]["body"]["string"]
    return body


def chunk_message(event: dict[str, Any]) -> bytes:
    payload = orjson.dumps({"bytes": base64.b64encode(orjson.dumps(event)).decode()})
    return encode_message(
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"},
        payload,
    )


def cassette(*interactions: tuple[str, bytes, str]) -> bytes:
    """A vcrpy cassette of (url, body, content type) interactions, bodies as ``!!binary``."""
    doc = {
        "interactions": [
            {
                "request": {"body": "{}", "headers": {}, "method": "POST", "uri": url},
                "response": {
                    "body": {"string": body},
                    "headers": {"Content-Type": [kind]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
            for url, body, kind in interactions
        ],
        "version": 1,
    }
    return yaml.safe_dump(doc).encode()


EVENTSTREAM = "application/vnd.amazon.eventstream"


@pytest.mark.parametrize(
    ("path", "provider", "status", "text_start"),
    [
        (CLAUDE, "anthropic", "completed", "Why did the distributed tracing span"),
        (TITAN, "bedrock-titan", "completed", "\nOnce upon a time"),
        (TITAN_BLOCKED, "bedrock-titan", "failed", None),
    ],
)
def test_real_binary_bedrock_cassettes_import_with_their_provider_and_framing(
    path: Path, provider: str, status: str, text_start: str | None
) -> None:
    result = read_file(path)
    [(index, rec)] = result.recordings
    assert index == 1
    assert rec.header is not None
    assert rec.header["provider"] == provider
    assert rec.header["framing"] == "aws-eventstream"
    assert rec.header["imported"]["decoded"] == ["base64"]
    assert rec.body == response_body(path)  # the wire bytes, CRCs and all
    # botocore's request headers are bytes in the cassette: kept as text.
    assert rec.header["request"]["headers"]["amz-sdk-request"] == "attempt=1"
    trace = trace_recording(rec)
    assert trace.state == status
    start = trace.events[0]
    assert start["provider"] == provider and start["framing"] == "aws-eventstream"
    texts = "".join(e["delta"]["text"] for e in trace.events if e["type"] == "block.delta")
    if text_start is None:
        assert trace.events[-1]["error"]["category"] == "content_filter"
    else:
        assert texts.startswith(text_start)


def test_a_har_body_in_base64_holding_an_event_stream_is_read_by_its_frames(
    tmp_path: Path,
) -> None:
    body = response_body(CLAUDE)
    doc = orjson.loads(HAR.read_bytes())
    entry = doc["log"]["entries"][1]
    # A request URL that names another provider: the frames overrule it.
    entry["request"]["url"] = "https://proxy.example/v1/chat/completions"
    content = entry["response"]["content"]
    content.update(text=base64.b64encode(body).decode(), encoding="base64", mimeType=EVENTSTREAM)
    for header in entry["response"]["headers"]:
        if header["name"].lower() == "content-type":
            header["value"] = EVENTSTREAM
    path = tmp_path / "bedrock.har"
    path.write_bytes(orjson.dumps(doc))
    rec = load_recording(path)
    assert rec.body == body
    assert rec.header is not None
    assert rec.header["provider"] == "anthropic"
    assert rec.header["framing"] == "aws-eventstream"
    assert rec.header["imported"]["request_guess"] == "openai-chat"
    assert trace_recording(rec).state == "completed"


def test_an_ndjson_body_in_a_cassette_is_imported_as_ndjson() -> None:
    body = load_recording(OLLAMA).body
    raw = cassette(("http://localhost:11434/api/chat", body, "application/x-ndjson"))
    [(_, rec)] = read_bytes(raw, "ollama.yaml").recordings
    assert rec.header is not None
    assert (rec.header["provider"], rec.header["framing"]) == ("ollama", "ndjson")
    assert trace_recording(rec).state == "completed"


TITAN_EVENTS = [
    {"outputText": "Hi", "index": 0, "inputTextTokenCount": 3},
    {"outputText": " there", "index": 0, "totalOutputTextTokenCount": 2,
     "completionReason": "FINISH"},
]  # fmt: skip
CLAUDE_BODY = response_body(CLAUDE)
TITAN_BODY = b"".join(chunk_message(e) for e in TITAN_EVENTS)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(
        [
            INVOKE.format("meta.llama3-8b-instruct-v1%3A0"),
            INVOKE.format("amazon.titan-text-express-v1"),
            INVOKE.format("anthropic.claude-3-haiku-20240307-v1%3A0"),
            "https://api.openai.com/v1/chat/completions",
            "https://api.anthropic.com/v1/messages",
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream",
            "https://proxy.example/anything",
        ]
    ),
    st.sampled_from([(CLAUDE_BODY, "anthropic"), (TITAN_BODY, "bedrock-titan")]),
)
def test_the_frames_decide_the_provider_whatever_the_url_says(
    url: str, case: tuple[bytes, str]
) -> None:
    body, provider = case
    [(_, rec)] = read_bytes(cassette((url, body, EVENTSTREAM)), "x.yaml").recordings
    assert rec.header is not None
    assert rec.header["provider"] == provider
    assert rec.header["framing"] == "aws-eventstream"
    guess = rec.header["imported"].get("request_guess")
    assert guess is None or guess != provider


def test_an_invoke_model_id_names_the_model_when_the_frames_name_none() -> None:
    unknown = chunk_message({"someNewField": "text"})
    url = INVOKE.format("us.meta.llama3-2-1b-instruct-v1%3A0")
    [(_, rec)] = read_bytes(cassette((url, unknown, EVENTSTREAM)), "x.yaml").recordings
    assert rec.header is not None
    assert rec.header["provider"] == "bedrock-llama"
    assert rec.header["model"] == "us.meta.llama3-2-1b-instruct-v1:0"
    # Neither the frames nor the URL: "cannot tell", no provider written.
    other = "https://proxy.example/stream"
    [(_, rec)] = read_bytes(cassette((other, unknown, EVENTSTREAM)), "x.yaml").recordings
    assert rec.header is not None
    assert "provider" not in rec.header
    assert rec.header["framing"] == "aws-eventstream"


def test_a_cassette_with_several_recordings_yields_every_one_with_its_own_provider(
    tmp_path: Path,
) -> None:
    raw = cassette(
        (INVOKE.format("anthropic.claude-3-sonnet-20240229-v1%3A0"), CLAUDE_BODY, EVENTSTREAM),
        ("http://localhost:11434/api/chat", load_recording(OLLAMA).body, "application/x-ndjson"),
        (INVOKE.format("amazon.titan-text-express-v1"), TITAN_BODY, EVENTSTREAM),
    )
    path = tmp_path / "three.yaml"
    path.write_bytes(raw)
    result = read_file(path)
    seen = [
        (i, r.header["provider"], r.header["framing"])
        for i, r in result.recordings
        if r.header is not None
    ]
    assert seen == [
        (1, "anthropic", "aws-eventstream"),
        (2, "ollama", "ndjson"),
        (3, "bedrock-titan", "aws-eventstream"),
    ]
    out = tmp_path / "out"
    run = inspector("import", str(path), "-o", str(out))
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["three-1.jsonl", "three-2.jsonl", "three-3.jsonl"]
    statuses = [trace_recording(load_recording(out / f"three-{i}.jsonl")).state for i in (1, 2, 3)]
    assert statuses == ["completed", "completed", "completed"]


def test_a_glob_passes_over_a_stray_file_with_a_one_line_note(tmp_path: Path) -> None:
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "README.md").write_text("# my cassettes\n")
    (folder / "chat-text.jsonl").write_bytes(OLLAMA.read_bytes())
    (folder / "titan.yaml").write_bytes(TITAN.read_bytes())
    out = tmp_path / "out"
    run = inspector("import", *sorted(str(p) for p in folder.iterdir()), "-o", str(out))
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stdout.splitlines() if "skipped" in line]
    assert notes == [
        f"{folder / 'README.md'}: not a VCR cassette or HAR file; skipped",
        f"{folder / 'chat-text.jsonl'}: not a VCR cassette or HAR file; skipped",
    ]
    assert [p.name for p in out.iterdir()] == ["titan.jsonl"]
    alone = inspector("import", str(folder / "README.md"), "-o", str(out))
    assert alone.returncode == 1
    assert "nothing imported" in alone.stderr


def test_a_yaml_file_of_several_cassette_documents_yields_the_recordings_of_all() -> None:
    raw = TITAN_BLOCKED.read_bytes() + b"---\n" + CLAUDE.read_bytes()
    result = read_bytes(raw, "appended.yaml")
    assert [(i, r.header["provider"]) for i, r in result.recordings if r.header] == [
        (1, "bedrock-titan"),
        (2, "anthropic"),
    ]


def test_rubys_vcr_cassette_with_a_base64_string_body_is_read() -> None:
    encoded = base64.encodebytes(CLAUDE_BODY).decode().replace("\n", "\n        ")
    url = INVOKE.format("anthropic.claude-3-sonnet-20240229-v1:0")
    raw = f"""---
http_interactions:
- request:
    method: post
    uri: {url}
    body:
      encoding: UTF-8
      string: '{{"messages":[]}}'
    headers:
      Content-Type:
      - application/json
  response:
    status:
      code: 200
      message: OK
    headers:
      Content-Type:
      - {EVENTSTREAM}
    body:
      encoding: ASCII-8BIT
      base64_string: |
        {encoded}
  recorded_at: Tue, 01 Dec 2026 20:00:00 GMT
recorded_with: VCR 6.3.1
""".encode()
    result = read_bytes(raw, "ruby.yml")
    assert result.fmt == "vcr"
    [(_, rec)] = result.recordings
    assert rec.body == CLAUDE_BODY
    assert rec.header is not None
    assert (rec.header["provider"], rec.header["framing"]) == ("anthropic", "aws-eventstream")
    assert rec.header["imported"]["decoded"] == ["base64"]
