"""Detection by frames (contract v1.1): the frames decide, "cannot tell" says why.

A protocol recognized by its frames gets its own adapter when one is
registered, and is "cannot tell" naming it otherwise — never another
provider's adapter (legacy Completions was read as Chat in v1). A body that
is not SSE is named as what it is; import keeps no URL guess the frames
contradict.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest

from inspector.core.adapters import ADAPTERS, detect_provider, detection_evidence
from inspector.core.framing.eventstream import encode_message
from inspector.core.sse import FrameDecoder
from inspector.input_sniff import describe_input
from inspector.interop.exchange import provider_of_frames


def frames(*payloads: Any, event: str | None = None) -> list[Any]:
    body = b"".join(
        (f"event: {event}\n".encode() if event else b"") + b"data: " + orjson.dumps(p) + b"\n\n"
        for p in payloads
    )
    return FrameDecoder().feed(body)


def expected(name: str) -> str | None:
    """The provider detection must give a protocol: its adapter, or None (cannot tell)."""
    return name if name in ADAPTERS else None


COMPLETIONS = {
    "id": "cmpl-1",
    "object": "text_completion",
    "model": "davinci-002",
    "choices": [{"index": 0, "text": "In", "logprobs": None, "finish_reason": None}],
}


def test_legacy_completions_is_never_read_as_chat() -> None:
    assert detect_provider(frames(COMPLETIONS)) == expected("openai-completions")
    without_object = {**COMPLETIONS, "object": None}
    assert detect_provider(frames(without_object)) == expected("openai-completions")


def test_a_choice_with_text_beside_its_delta_is_chat() -> None:
    together = {"id": "c", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "text": "Hi", "delta": {"content": "Hi"}}]}  # fmt: skip
    assert detect_provider(frames(together)) == "openai-chat"


@pytest.mark.parametrize(
    ("payload", "name"),
    [
        ({"type": "message-start", "id": "x", "delta": {}}, "cohere"),
        ({"type": "text-delta", "id": "0", "delta": "Hi"}, "ai-sdk-ui"),
        ({"event_type": "interaction.start", "interaction": {}}, "gemini-interactions"),
        ({"model_id": "ibm/granite", "results": [{"generated_text": "Hi"}]}, "watsonx"),
    ],
)
def test_a_known_protocol_gets_its_adapter_or_cannot_tell_naming_it(
    payload: dict[str, Any], name: str
) -> None:
    found = frames(payload)
    assert detect_provider(found) == expected(name)
    if expected(name) is None:
        assert "which has no adapter here" in detection_evidence(found)


def test_replicate_plain_text_output_events_are_named() -> None:
    found = FrameDecoder().feed(b"event: output\ndata: Hello\n\nevent: done\ndata: {}\n\n")
    assert detect_provider(found) is None
    assert "Replicate" in detection_evidence(found)


def test_unknown_frames_are_described_by_their_first_events_names_and_keys() -> None:
    found = frames({"kind": "token", "value": "a"}, {"kind": "token", "value": "b"}, event="tok")
    assert detect_provider(found) is None
    evidence = detection_evidence(found)
    assert evidence.startswith("its first events match no known provider's")
    assert "event 'tok' keys [kind, value]" in evidence


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b'{"model":"llama3","created_at":"t","message":{"content":"a"},"done":false}\n'
         b'{"model":"llama3","created_at":"t","message":{"content":""},"done":true}\n',
         "NDJSON (one JSON document a line: Ollama's native API"),
        (b'{"is_finished":false,"event_type":"stream-start"}\n\n'
         b'{"is_finished":true,"event_type":"stream-end"}\n', "Cohere v1 chat"),
        (b'[{"candidates": []},\n{"candidates": []}]', "a JSON array"),
        ((64).to_bytes(4, "big") + (30).to_bytes(4, "big") + b"\0\0\0\0\x0b:event-type"
         + b"\x07\x00\x05chunk" + b"\0" * 40, "an AWS event stream"),
    ],
)  # fmt: skip
def test_a_body_that_is_not_sse_is_named_as_what_it_is(body: bytes, what: str) -> None:
    described = describe_input(body)
    assert described is not None and what in described, described


def test_import_takes_the_provider_from_the_frames_not_the_url() -> None:
    anthropic = b'event: message_start\ndata: {"type":"message_start","message":{"id":"m"}}\n\n'
    assert provider_of_frames(anthropic) == "anthropic"
    assert provider_of_frames(b'{"model":"llama3","done":false}\n') is None


def invoke_message(inner: dict[str, Any]) -> bytes:
    """One InvokeModelWithResponseStream `chunk` message carrying ``inner`` (valid CRCs)."""
    payload = orjson.dumps({"bytes": base64.b64encode(orjson.dumps(inner)).decode()})
    headers = {":event-type": "chunk", ":message-type": "event"}
    return encode_message(headers, payload)


@pytest.mark.parametrize(
    "inner",
    [
        {"completions": [{"data": {"text": "hi"}}], "id": "j-1"},  # AI21 Jurassic's shape
        {"artifacts": [], "result": "success"},  # an image model's
        {"some_new_model_field": 1},
    ],
)
def test_an_invoke_stream_of_a_model_we_do_not_read_names_its_events_and_inner_keys(
    inner: dict[str, Any],
) -> None:
    described = describe_input(invoke_message(inner) * 2)
    assert described is not None and described.startswith("it is an AWS event stream")
    assert "'chunk' carrying keys" in described
    assert all(str(key) in described for key in inner), described
    assert all(str(value) not in described for value in inner.values() if value), described
