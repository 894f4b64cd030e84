"""Export in every framing: anonymizing inside NDJSON lines, array elements, event-stream frames.

A secret placed anywhere in a model's text — whole, or split between two
events — is removed from every output; the exported body is still valid in
its framing (every event-stream message's prelude and both CRC32s hold, for
our decoder and for botocore's); and the export normalizes to the same
events as the original, text aside.
"""

from __future__ import annotations

import base64
import itertools
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording, parse_recording
from inspector.capture_writer import CaptureWriter
from inspector.core.framing import decoder_for
from inspector.core.framing.eventstream import encode_message
from inspector.export import ExportOptions, prepare_export
from inspector.inputs import Recording

from .conftest import ROOT

SECRET_BODY = st.text(
    alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=40, max_size=60
)
PROSE = st.text(alphabet="abcdefghij klmnop.,", max_size=20)


def eventstream_message(name: str, payload: dict[str, Any]) -> bytes:
    headers = [(":event-type", name), (":content-type", "application/json"),
               (":message-type", "event")]  # fmt: skip
    return encode_message(headers, orjson.dumps(payload))


def invoke_chunk(event: dict[str, Any]) -> bytes:
    inner = base64.b64encode(orjson.dumps(event)).decode()
    return eventstream_message("chunk", {"bytes": inner, "p": "abcdefgh"})


# Each framing's body around a list of text pieces (two pieces: a text split between events).


def claude_invoke(pieces: list[str]) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_bdrk_01Abc", "model": "claude-3-haiku",
                                              "usage": {"input_tokens": 5, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
          for p in pieces),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 9}},
        {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 5}},
    ]  # fmt: skip
    return b"".join(invoke_chunk(e) for e in events)


def titan_invoke(pieces: list[str]) -> bytes:
    events = [{"outputText": p, "index": 0} for p in pieces]
    events[-1] = {**events[-1], "completionReason": "FINISH", "totalOutputTextTokenCount": 4}
    return b"".join(invoke_chunk(e) for e in events)


def converse(pieces: list[str]) -> bytes:
    return b"".join(
        [
            eventstream_message("messageStart", {"role": "assistant", "p": "abcd"}),
            *(
                eventstream_message(
                    "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": p}, "p": "ab"}
                )
                for p in pieces
            ),
            eventstream_message("contentBlockStop", {"contentBlockIndex": 0}),
            eventstream_message("messageStop", {"stopReason": "end_turn"}),
            eventstream_message(
                "metadata",
                {"usage": {"inputTokens": 3, "outputTokens": 4}, "metrics": {"latencyMs": 10}},
            ),
        ]
    )


def ollama(pieces: list[str]) -> bytes:
    lines = [
        {
            "model": "llama3.2",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": p},
            "done": False,
        }
        for p in pieces
    ]
    lines.append(
        {
            "model": "llama3.2",
            "created_at": "2026-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 3,
            "eval_count": 4,
        }
    )
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)  # fmt: skip


def gemini_array(pieces: list[str]) -> bytes:
    elements = [
        {"candidates": [{"content": {"parts": [{"text": p}], "role": "model"}, "index": 0}]}
        for p in pieces
    ]
    elements[-1]["candidates"][0]["finishReason"] = "STOP"
    elements[-1]["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": 4}
    return b"[" + b",\r\n".join(orjson.dumps(e) for e in elements) + b"]"  # fmt: skip


FRAMINGS = {
    "claude-invoke": (claude_invoke, "anthropic", "aws-eventstream",
                      "/model/anthropic.claude-3-haiku-20240307-v1:0/invoke-with-response-stream"),
    "titan-invoke": (titan_invoke, "bedrock-titan", "aws-eventstream",
                     "/model/amazon.titan-text-express-v1/invoke-with-response-stream"),
    "converse": (converse, "bedrock-converse", "aws-eventstream",
                 "/model/amazon.nova-lite-v1:0/converse-stream"),
    "ollama": (ollama, "ollama", "ndjson", "/api/chat"),
    "gemini-array": (gemini_array, "gemini", "json-array",
                     "/v1beta/models/gemini-2.0-flash:streamGenerateContent"),
}  # fmt: skip


def recording(tmp: Path, name: str, pieces: list[str]) -> Recording:
    build, provider, framing, endpoint = FRAMINGS[name]
    body = build(pieces)
    header = {"provider": provider, "framing": framing, "endpoint": endpoint,
              "request": {"method": "POST", "url": "https://example.test" + endpoint,
                          "headers": {}, "body": {"messages": []}},
              "response": {"status": 200, "headers": {}}}  # fmt: skip
    path = tmp / f"{name}.jsonl"
    writer = CaptureWriter(path, header)
    cuts = sorted({0, len(body) // 3, len(body) // 2, len(body)})
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        writer.chunk(0.1 * (i + 1), body[a:b])
    writer.end("eof", 1.0, None)
    return load_recording(path)


def inner_texts(body: bytes, framing: str) -> list[bytes]:
    """Every payload of the body, and every invoke chunk's inner event, decoded."""
    if framing != "aws-eventstream":
        return [body]
    decoder = decoder_for(framing)
    out = []
    for frame in decoder.feed(body):
        out.append(frame.data.encode())
        if frame.event == "chunk":
            out.append(base64.b64decode(orjson.loads(frame.data)["bytes"]))
    return out


def outline(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (e["type"], e.get("block", {}).get("kind"), e.get("finish_reason"), e.get("status"))
        for e in events
    ]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(sorted(FRAMINGS)),
    key=SECRET_BODY,
    before=PROSE,
    after=PROSE,
    split=st.integers(0, 70),
    mask=st.booleans(),
)
def test_a_secret_in_any_framings_payload_is_removed_and_the_export_verifies(
    tmp_path: Path, name: str, key: str, before: str, after: str, split: int, mask: bool
) -> None:
    secret = "sk-ant-api03-" + key
    text = f"{before} my key is {secret} {after}"
    at = min(len(before) + 10 + split, len(text) - 1)
    pieces = [text[:at], text[at:]]  # split anywhere, inside the secret or not
    rec = recording(tmp_path, name, pieces)
    framing = FRAMINGS[name][2]
    prepared = prepare_export(rec, ExportOptions(text="mask" if mask else "keep"))
    for data in prepared.files.values():
        assert secret.encode() not in data
        assert base64.b64encode(secret.encode())[:40] not in data
    exported = parse_recording(prepared.files[prepared.names["capture"]], "x.jsonl")
    body = exported.body
    assert len(body) == len(rec.body)
    assert [len(d) for _, d in exported.chunks] == [len(d) for _, d in rec.chunks]
    for part in inner_texts(body, framing):
        assert secret.encode() not in part
    # Events equal, text aside; the text changed only where the secret was.
    assert outline(prepared.exported.events) == outline(prepared.original.events)
    if not mask:
        new = "".join(
            e["delta"]["text"] for e in prepared.exported.events if e["type"] == "block.delta"
        )
        assert new.startswith(f"{before} my key is ") and secret not in new
    assert prepared.ledger.secrets


@pytest.mark.parametrize("name", ["claude-invoke", "titan-invoke", "converse"])
def test_the_exported_event_stream_has_valid_crcs_for_our_decoder_and_botocores(
    tmp_path: Path, name: str
) -> None:
    botocore = pytest.importorskip("botocore.eventstream")
    secret = "sk-ant-api03-" + "Q7" * 24
    rec = recording(tmp_path, name, [f"the key {secret[:20]}", f"{secret[20:]} ends here"])
    prepared = prepare_export(rec, ExportOptions(text="mask"))
    body = parse_recording(prepared.files[prepared.names["capture"]], "x.jsonl").body
    assert body != rec.body
    decoder = decoder_for("aws-eventstream")
    ours = decoder.feed(body)
    assert decoder.error is None and not decoder.close().pending_bytes
    buffer = botocore.EventStreamBuffer()
    buffer.add_data(body)
    theirs = list(buffer)  # raises on a bad prelude or message CRC
    assert len(theirs) == len(ours) == len(decoder_for("aws-eventstream").feed(rec.body))
    assert [m.headers[":event-type"] for m in theirs] == [f.event for f in ours]
    for message, frame in zip(theirs, ours, strict=True):
        assert message.payload == frame.data.encode()


@pytest.mark.parametrize(
    "capture",
    [
        "bedrock-invoke/claude-text.jsonl",
        "bedrock-invoke/claude-tool-use.jsonl",
        "bedrock-invoke/titan-guardrail-anonymized.jsonl",
        "bedrock-invoke/nova-tool-use.jsonl",
        "bedrock-invoke/nova-guardrail-real.jsonl",
        "bedrock-converse/tool-use.jsonl",
        "bedrock-converse/crc-mismatch.jsonl",
        "bedrock-invoke/interrupted-mid-message.jsonl",
        "ollama/chat-text.jsonl",
    ],
)
def test_bundled_captures_of_other_framings_export_masked_with_their_ids_pseudonymized(
    capture: str,
) -> None:
    rec = load_recording(ROOT / "captures" / capture)
    prepared = prepare_export(rec, ExportOptions(text="mask"))
    assert outline(prepared.exported.events) == outline(prepared.original.events)
    original = [e["delta"] for e in prepared.original.events if e["type"] == "block.delta"]
    exported = [e["delta"] for e in prepared.exported.events if e["type"] == "block.delta"]
    pairs = list(zip(original, exported, strict=True))
    assert any(a["text"] != b["text"] for a, b in pairs)
    texts = [(a["text"], b["text"]) for a, b in pairs if a["kind"] == "text"]
    masked = [(a, b) for a, b in texts if any(c.isalpha() for c in a)]
    assert all(a != b and len(a) == len(b) for a, b in masked)
    assert prepared.ledger.masked


def test_a_recorded_invoke_id_is_pseudonymized_inside_its_base64_chunk() -> None:
    rec = load_recording(ROOT / "captures" / "bedrock-invoke" / "claude-text.jsonl")
    prepared = prepare_export(rec, ExportOptions())
    body = parse_recording(prepared.files[prepared.names["capture"]], "x.jsonl").body
    inner = b"".join(inner_texts(body, "aws-eventstream"))
    assert b"msg_bdrk_014eJfxWXNnxFKhmuiT8FYf7" not in inner
    assert (
        prepared.exported.events[-1]["response_id"] != prepared.original.events[-1]["response_id"]
    )


@pytest.mark.parametrize("fmt", ["vcr", "har"])
def test_an_event_stream_exported_as_a_cassette_or_har_imports_back_to_the_same_events(
    tmp_path: Path, fmt: str
) -> None:
    from inspector.export import export_capture
    from inspector.export.foreign import write_exported
    from inspector.interop import read_file
    from inspector.stream_diff import diff_streams

    source = ROOT / "captures" / "bedrock-invoke" / "claude-tool-use.jsonl"
    result = export_capture(source, tmp_path, ExportOptions(text="mask"))
    written, _ = write_exported(result.files["capture"], fmt, None)
    raw = written.read_bytes()
    assert (b"!!binary" in raw) if fmt == "vcr" else (b'"base64"' in raw)
    [(_, rec)] = read_file(written).recordings
    assert rec.header is not None
    assert (rec.header["provider"], rec.header["framing"]) == ("anthropic", "aws-eventstream")
    assert diff_streams(result.files["capture"], written).same
