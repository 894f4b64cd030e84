"""Choosing the framing (header, then bytes) and the provider (by frames), newer protocols."""

from __future__ import annotations

import pytest

from inspector.capture import parse_recording
from inspector.core.framing import decoder_for, detect_framing
from inspector.session import guess_provider, load_trace

from .framing_support import body_of, message, ndjson, protocol_captures, sse


@pytest.mark.parametrize(
    ("head", "framing"),
    [
        (message("messageStart", {"role": "assistant"}), "aws-eventstream"),
        (b'\xef\xbb\xbf \n[{"candidates": []}', "json-array"),
        (b'{"model":"llama3.2","response":"a","done":false}\n', "ndjson"),
        (b'{"error":"model not found"}\n', "ndjson"),
        (b'{"error":{"message":"bad key","type":"invalid_request_error"}}\n', "sse"),
        (b'{"model":"llama3.2"', "sse"),  # no whole line yet: not NDJSON by its bytes
        (b'data: {"type":"text-delta"}\n\n', "sse"),
        (b"\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00", "sse"),  # a prelude whose CRC fails
    ],
)
def test_the_framing_is_told_by_the_first_bytes(head: bytes, framing: str) -> None:
    assert detect_framing(head) == framing


@pytest.mark.parametrize(
    ("content_type", "framing"),
    [
        ("application/vnd.amazon.eventstream", "aws-eventstream"),
        ("application/x-ndjson; charset=utf-8", "ndjson"),
        ("text/event-stream", "sse"),
    ],
)
def test_a_capture_headers_content_type_decides_before_the_bytes(
    content_type: str, framing: str
) -> None:
    header = {"response": {"status": 200, "headers": {"Content-Type": content_type}}}
    assert detect_framing(b"[1]", header) == framing


def test_a_header_framing_field_decides_first() -> None:
    header = {
        "framing": "json-array",
        "response": {"headers": {"content-type": "text/event-stream"}},
    }
    assert detect_framing(b"data: x\n\n", header) == "json-array"


def test_an_unknown_framing_name_is_refused_with_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match="expected one of: sse, ndjson, aws-eventstream, json-array"
    ):
        decoder_for("websocket")


@pytest.mark.parametrize("path", protocol_captures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_raw_body_of_each_capture_is_told_by_its_frames(path) -> None:  # type: ignore[no-untyped-def]
    body, provider, _, _ = body_of(path)
    rec = parse_recording(body, "body")  # no header: bytes and frames only
    found = guess_provider(rec)
    if found is None:  # only a body whose frames carry no protocol's shape (an error alone)
        assert (
            path.stem in {"service-unavailable", "generate-model-not-found"}
            or "exception" in path.stem
        )
        return
    assert found == provider


@pytest.mark.parametrize(
    ("body", "provider"),
    [
        (
            ndjson(
                [{"model": "m", "message": {"role": "assistant", "content": "a"}, "done": False}]
            ),
            "ollama",
        ),
        (sse([{"type": "message-start", "id": "x"}], named=True), "cohere"),
        (
            sse([{"type": "start", "messageId": "m"}, {"type": "text-start", "id": "t"}]),
            "ai-sdk-ui",
        ),
        (
            sse([{"object": "text_completion", "choices": [{"text": "a", "index": 0}]}]),
            "openai-completions",
        ),
        (
            sse([{"object": "chat.completion.chunk", "choices": [{"delta": {"content": "a"}}]}]),
            "openai-chat",
        ),
    ],
)
def test_the_provider_is_told_by_one_frame(body: bytes, provider: str) -> None:
    assert guess_provider(parse_recording(body, "body")) == provider


def test_events_of_a_raw_bedrock_body_carry_the_framing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    body = b"".join(
        [
            message("messageStart", {"role": "assistant"}),
            message("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}),
            message("contentBlockStop", {"contentBlockIndex": 0}),
            message("messageStop", {"stopReason": "end_turn"}),
            message("metadata", {"usage": {"inputTokens": 3, "outputTokens": 1}}),
        ]
    )
    path = tmp_path / "body.bin"
    path.write_bytes(body)
    trace = load_trace(path)
    assert trace.events[0]["provider"] == "bedrock-converse"
    assert trace.events[0]["framing"] == "aws-eventstream"
    assert trace.outcome == "completed (stop)"
    assert trace.frames[1].event == "contentBlockDelta"  # rebuilt from the stored span
    assert dict(trace.frames[1].headers)[":message-type"] == "event"  # type: ignore[attr-defined]


GEMINI_ARRAY = (
    b'[{"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}}],'
    b' "modelVersion": "gemini-2.0-flash"}\n,\r\n'
    b'{"candidates": [{"content": {"parts": [{"text": " there"}], "role": "model"},'
    b' "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 3,'
    b' "candidatesTokenCount": 2, "totalTokenCount": 5}}\n]'
)


def test_gemini_without_alt_sse_reads_as_a_streamed_json_array(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "gemini.json"
    path.write_bytes(GEMINI_ARRAY)
    trace = load_trace(path)
    assert trace.events[0]["provider"] == "gemini"
    assert trace.events[0]["framing"] == "json-array"
    assert trace.outcome == "completed (stop)"
    text = "".join(e["delta"]["text"] for e in trace.events if e["type"] == "block.delta")
    assert text == "Hi there"
