"""The guard transport: a stream that ends without proof raises, with evidence, in the
client's own iterator; a proven stream passes byte for byte and stops at its proof."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from inspector.guard import (
    AsyncGuardTransport,
    GuardTransport,
    NotProven,
    StreamNotProven,
    guard_for,
    provider_for,
)
from inspector.harness.drivers import DRIVERS, available
from inspector.harness.mutations import MUTATIONS
from inspector.harness.oracle import expect
from inspector.harness.runner import Settings, run_scenario
from inspector.harness.transport import AsyncScenarioTransport, ScenarioTransport

from .conftest import CHAT, LIBRARY, base

URL = "http://api.test/v1/chat/completions"
TOOL = base(CHAT / "tool-call-fragmented.jsonl")


def scenario(mutation: str, capture=TOOL):
    made = MUTATIONS[mutation].make(capture, mutation)
    assert made is not None
    return made


def read_sync(mutation: str, timeout: float = 5.0) -> bytes:
    transport = GuardTransport(ScenarioTransport(scenario(mutation)))
    with (
        httpx.Client(transport=transport, timeout=timeout) as client,
        client.stream("POST", URL, json={}) as response,
    ):
        return b"".join(response.iter_raw())


def test_a_proven_stream_passes_byte_for_byte():
    assert read_sync("as-recorded") == TOOL.body


@pytest.mark.parametrize("mutation", ["eof@mid-tool-args", "no-final-signal", "lying-finish"])
def test_an_unproven_end_raises_with_the_evidence(mutation):
    with pytest.raises(StreamNotProven) as caught:
        read_sync(mutation)
    evidence = caught.value.evidence
    assert isinstance(caught.value, httpx.TransportError)
    assert evidence.provider == "openai-chat"
    assert evidence.state in ("interrupted", "failed")
    assert evidence.category in ("transport", "protocol_error")
    assert evidence.bytes_received > 0
    # the draft of the tool call: its name, and arguments that are a prefix of the proven ones
    proven = expect(scenario("as-recorded")).content.tool_calls
    assert evidence.tool_calls and evidence.tool_calls[0][0] == proven[0][0]
    assert proven[0][1].startswith(evidence.tool_calls[0][1])


def test_the_evidence_holds_the_draft_text_received():
    text_base = base(CHAT / "text-simple.jsonl")
    transport = GuardTransport(ScenarioTransport(scenario("eof@mid-text", text_base)))
    with httpx.Client(transport=transport) as client, pytest.raises(StreamNotProven) as caught:
        client.post(URL, json={})
    assert caught.value.evidence.text
    assert caught.value.evidence.to_json()["state"] == "interrupted"


def test_a_connection_held_open_after_the_proof_does_not_hang_the_reader():
    # Without the guard this read waits for the (0.5 s) read timeout and fails.
    assert read_sync("hold-open", timeout=0.5) == TOOL.body


def test_a_reset_is_passed_through_as_it_came():
    with pytest.raises(httpx.ReadError) as caught:
        read_sync("reset@mid-tool-args")
    assert not isinstance(caught.value, NotProven)


def test_non_streaming_and_error_responses_are_not_touched():
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, json={"error": {"message": "slow down"}})

    transport = GuardTransport(httpx.MockTransport(answer))
    with httpx.Client(transport=transport) as client:
        assert client.post(URL).status_code == 429


def test_the_provider_comes_from_the_path():
    assert provider_for("/v1/chat/completions") == "openai-chat"
    assert provider_for("/v1/responses") == "openai-responses"
    assert provider_for("/v1/messages") == "anthropic"
    assert provider_for("/v1beta/models/gemini-2.0-flash:streamGenerateContent") == "gemini"
    assert provider_for("/v1/embeddings") is None


def test_async_guard_raises_and_passes_the_same_way():
    async def read(mutation: str) -> bytes:
        transport = AsyncGuardTransport(AsyncScenarioTransport(scenario(mutation)))
        async with (
            httpx.AsyncClient(transport=transport) as client,
            client.stream("POST", URL, json={}) as response,
        ):
            return b"".join([piece async for piece in response.aiter_raw()])

    assert asyncio.run(read("as-recorded")) == TOOL.body
    with pytest.raises(StreamNotProven):
        asyncio.run(read("eof@mid-tool-args"))


def test_the_httpx2_guard_raises_an_httpx2_error():
    httpx2 = pytest.importorskip("httpx2")
    from inspector.harness.transport import transports_for

    guard = guard_for(httpx2)
    transport = guard.sync(transports_for(httpx2).sync(scenario("eof@mid-tool-args")))
    with httpx2.Client(transport=transport) as client, pytest.raises(NotProven) as caught:
        client.post(URL, json={})
    assert isinstance(caught.value, httpx2.TransportError)


#: For each SDK driver: a capture of its provider, and a cut its SDK alone accepts.
SDK_CASES = {
    "openai-chat": ("openai-chat/tool-call-fragmented", "eof@mid-tool-args"),
    "openai-chat-stream": ("openai-chat/tool-call-fragmented", "no-final-signal"),
    "openai-responses": ("openai-responses/text-then-tool", "eof@mid-tool-args"),
    "anthropic": ("anthropic/tool-call-fragmented-json", "eof@mid-tool-args"),
    "anthropic-stream": ("anthropic/text-simple", "eof@mid-text"),
    "google-genai": ("gemini/text-several-objects", "eof@mid-text"),
}


@pytest.mark.parametrize("name", SDK_CASES)
def test_each_sdk_surfaces_the_guards_error_where_it_alone_was_silently_wrong(name):
    driver = DRIVERS[name]
    missing = available(driver)
    if missing:
        pytest.skip(missing)
    capture, mutation = SDK_CASES[name]
    cut = scenario(mutation, base(LIBRARY / f"{capture}.jsonl"))
    alone = run_scenario(driver, cut, Settings(timeout=2.0, margin=2.0))
    guarded = run_scenario(driver, cut, Settings(timeout=2.0, margin=2.0, guard=True))
    assert alone.verdict == "silently_wrong", alone.why
    assert guarded.verdict == "raised", guarded.why
    # (the openai SDKs wrap it in APIConnectionError: it is the cause)
    assert "StreamNotProven" in (guarded.outcome.error or "")
    proven = scenario("as-recorded", base(LIBRARY / f"{capture}.jsonl"))
    assert run_scenario(driver, proven, Settings(guard=True)).verdict == "agrees"


def test_an_async_sdk_raises_through_the_async_guard():
    openai = pytest.importorskip("openai")

    async def consume(mutation: str) -> str:
        transport = AsyncGuardTransport(AsyncScenarioTransport(scenario(mutation)))
        client = openai.AsyncOpenAI(
            api_key="x",
            base_url="http://api.test/v1",
            max_retries=0,
            http_client=httpx.AsyncClient(transport=transport),
        )
        stream = await client.chat.completions.create(model="m", messages=[], stream=True)
        args = ""
        async for chunk in stream:
            for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
                args += call.function.arguments or ""
        await client.close()
        return args

    assert asyncio.run(consume("as-recorded"))
    with pytest.raises(openai.APIConnectionError) as caught:
        asyncio.run(consume("eof@mid-tool-args"))
    assert isinstance(caught.value.__cause__, StreamNotProven)
    assert caught.value.__cause__.evidence.category == "transport"
