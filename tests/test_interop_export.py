"""``inspector export --format vcr|har``: the anonymized exchange as a cassette vcrpy replays.

The replay goes through vcrpy and httpx exactly as a user's pytest-recording
suite would: the cassette is loaded with ``record_mode="none"``, the request
is sent with httpx, and the body it plays back is normalized again. The
events must be the export's own golden events — the same sequence the
original capture produced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import vcr
import yaml

from inspector.capture import Recording
from inspector.cli import main
from inspector.core.trace import TransportEnd
from inspector.session import load_trace, trace_recording

from .conftest import CAPTURES

REPLAYED = [
    "anthropic/tool-call-fragmented-json",
    "anthropic/reasoning",
    "openai-chat/parallel-tool-calls-interleaved",
    "openai-chat/http-429-rate-limited",
    "openai-responses/text-then-tool",
    "gemini/reasoning-thought-signature",
    "gemini/parallel-tool-calls",
]


def export(capture: Path, out: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    status = main(["export", str(capture), "-o", str(out), "--format", fmt])
    printed = capsys.readouterr().out
    assert status == 0, printed
    return printed


def golden(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def replay(cassette: Path, provider: str) -> list[dict[str, Any]]:
    """Send the recorded request through httpx under vcrpy; normalize what comes back."""
    request = yaml.safe_load(cassette.read_text())["interactions"][0]["request"]
    with (
        vcr.VCR(record_mode="none").use_cassette(str(cassette)),
        httpx.Client() as client,
        client.stream(
            request["method"], request["uri"], content=(request["body"] or "").encode()
        ) as response,
    ):
        body = response.read()
        status = response.status_code
    header = {"provider": provider, "response": {"status": status}}
    played = Recording("replayed", "capture", header, [(0.0, body)], TransportEnd("eof"))
    return list(trace_recording(played).events)


@pytest.mark.parametrize("name", REPLAYED)
def test_an_exported_cassette_replays_through_vcrpy_to_the_same_events(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = CAPTURES / f"{name}.jsonl"
    stem = Path(name).name
    printed = export(source, tmp_path, "vcr", capsys)
    cassette = tmp_path / f"{stem}.yaml"
    assert f"vcr: {cassette}" in printed
    provider = load_trace(source).provider
    assert provider is not None
    events = replay(cassette, provider)
    assert events == golden(tmp_path / f"{stem}.events.jsonl")
    # ... which is what the original capture normalizes to, ids pseudonymized aside.
    original = list(load_trace(source).events)
    assert [e["type"] for e in events] == [e["type"] for e in original]


def test_the_cassette_holds_the_anonymized_request_and_a_decoded_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export(CAPTURES / "anthropic" / "tool-call-fragmented-json.jsonl", tmp_path, "vcr", capsys)
    doc = yaml.safe_load((tmp_path / "tool-call-fragmented-json.yaml").read_text())
    assert doc["version"] == 1
    (interaction,) = doc["interactions"]
    request, response = interaction["request"], interaction["response"]
    assert request["method"] == "POST"
    assert request["uri"] == "https://api.anthropic.com/v1/messages"
    assert "[removed]" in request["body"]  # the prompt, removed by the export
    assert response["status"] == {"code": 200, "message": "OK"}
    names = {name.lower() for name in response["headers"]}
    assert not names & {"content-encoding", "content-length", "transfer-encoding"}
    capture = (tmp_path / "tool-call-fragmented-json.jsonl").read_bytes()
    chunks = [orjson.loads(line) for line in capture.splitlines()[1:-1]]
    assert response["body"]["string"] == "".join(c["text"] for c in chunks)


def test_a_transport_reset_is_named_as_something_a_cassette_cannot_carry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = export(
        CAPTURES / "anthropic" / "interrupted-reset-mid-text.jsonl", tmp_path, "vcr", capsys
    )
    assert "the stream ended with a transport reset, which a cassette cannot carry" in printed


def test_an_exported_har_reads_back_to_the_golden_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = CAPTURES / "openai-responses" / "reasoning-text.jsonl"
    export(source, tmp_path, "har", capsys)
    har = tmp_path / "reasoning-text.har"
    doc = orjson.loads(har.read_bytes())
    (entry,) = doc["log"]["entries"]
    assert doc["log"]["version"] == "1.2"
    assert entry["response"]["content"]["mimeType"].startswith("text/event-stream")
    assert entry["timings"]["wait"] > 0  # the first byte's time, from the capture
    assert list(load_trace(har).events) == golden(tmp_path / "reasoning-text.events.jsonl")


def test_a_raw_sse_export_gets_the_providers_endpoint_so_vcrpy_can_match_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "in" / "stream.sse"
    raw.parent.mkdir()
    raw.write_bytes(
        b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":'
        b'{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    out = tmp_path / "out"
    export(raw, out, "vcr", capsys)
    doc = yaml.safe_load((out / "stream.yaml").read_text())
    assert doc["interactions"][0]["request"]["uri"] == "https://api.openai.com/v1/chat/completions"
    assert replay(out / "stream.yaml", "openai-chat") == golden(out / "stream.events.jsonl")
