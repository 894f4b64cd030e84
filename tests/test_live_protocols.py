"""``live`` / ``record`` for the protocols beyond the v1 four: each row's request, Bedrock's two
ways to authenticate (a Bedrock API key, SigV4 by botocore), keys kept out of captures
(binary ones included, which stay decodable), and recording against ``inspector serve``."""

from __future__ import annotations

import argparse
import base64
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.framing.eventstream import encode_message
from inspector.core.normalizer import Normalizer
from inspector.core.trace import TransportEnd
from inspector.live.aws import AwsCredentials, bedrock_base_url, region_from, sign_sigv4
from inspector.live.framed_scrub import EventStreamScrubber, body_scrubber
from inspector.live.headless import exit_code
from inspector.live.options import UsageError, add_live_arguments, feed_from_args
from inspector.live.providers import PROVIDER_SPECS, build_request
from inspector.redact import SecretScrubber
from inspector.redact.sources import environ_secrets
from inspector.serve.services import SERVICES
from inspector.session import load_trace

from .conftest import CAPTURES
from .test_live_helpers import assert_nothing_holds, serving

BEARER = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLXRva2VuLTAxMjM0NTY3ODk="
ACCESS = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
TOKEN = "FwoGZXIvYXdzEXAMPLE-session-token-0123456789abcdef"
SIGV4_ENV = {
    "AWS_ACCESS_KEY_ID": ACCESS,
    "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
    "AWS_SESSION_TOKEN": TOKEN,
    "AWS_REGION": "eu-west-3",
}

# row -> (path, adapter that reads it, framing, accept, body for the prompt "hi" and model "m")
ROWS: dict[str, tuple[str, str, str, str, dict[str, Any]]] = {
    "bedrock-converse": ("/model/m/converse-stream", "bedrock-converse", "aws-eventstream",
                         "application/vnd.amazon.eventstream",
                         {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}),
    "bedrock-invoke": ("/model/m/invoke-with-response-stream", "anthropic", "aws-eventstream",
                       "application/vnd.amazon.eventstream",
                       {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024,
                        "messages": [{"role": "user", "content": "hi"}]}),
    "ollama": ("/api/chat", "ollama", "ndjson", "application/x-ndjson",
               {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}),
    "ollama-generate": ("/api/generate", "ollama", "ndjson", "application/x-ndjson",
                        {"model": "m", "prompt": "hi", "stream": True}),
    "cohere": ("/v2/chat", "cohere", "sse", "text/event-stream",
               {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}),
    "openai-completions": ("/v1/completions", "openai-completions", "sse", "text/event-stream",
                           {"model": "m", "prompt": "hi", "stream": True,
                            "stream_options": {"include_usage": True}}),
    "ai-sdk-ui": ("/api/chat", "ai-sdk-ui", "sse", "text/event-stream",
                  {"id": "inspector", "model": "m", "trigger": "submit-message",
                   "messages": [{"id": "m1", "role": "user",
                                 "parts": [{"type": "text", "text": "hi"}]}]}),
}  # fmt: skip


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_live_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("row", ROWS)
def test_each_row_builds_the_request_its_docs_show(row: str) -> None:
    path, adapter, framing, accept, body = ROWS[row]
    request = build_request(row, model="m", prompt="hi", base_url="http://127.0.0.1:9")
    assert (request.url, request.provider, request.framing) == (
        f"http://127.0.0.1:9{path}", adapter, framing,
    )  # fmt: skip
    assert request.headers["accept"] == accept
    assert request.body == body


@pytest.mark.parametrize("row", PROVIDER_SPECS)
def test_every_live_row_asks_the_path_serve_answers_on_under_the_same_name(row: str) -> None:
    spec = PROVIDER_SPECS[row]
    assert SERVICES[row].path.replace("{modelId}", "{model}") == spec.path
    assert spec.framing in SERVICES[row].framings


def test_bedrock_tools_go_under_tool_config_as_tool_specs() -> None:
    tool = {"name": "weather", "description": "d", "parameters": {"type": "object"}}
    request = build_request("bedrock-converse", model="m", prompt="hi", tools=[tool])
    spec = {"name": "weather", "description": "d", "inputSchema": {"json": {"type": "object"}}}
    assert request.body["toolConfig"] == {"tools": [{"toolSpec": spec}]}


def test_ai_sdk_ui_needs_no_model_and_the_others_do() -> None:
    assert "model" not in build_request("ai-sdk-ui", model=None, prompt="hi").body
    with pytest.raises(ValueError, match="needs a model"):
        build_request("cohere", model=None, prompt="hi")


# -- authentication ------------------------------------------------------------------------------


def test_bedrocks_region_names_its_endpoint_and_a_bad_region_is_refused() -> None:
    assert bedrock_base_url({}) == "https://bedrock-runtime.us-east-1.amazonaws.com"
    assert bedrock_base_url({"AWS_DEFAULT_REGION": "ap-south-1"}).endswith(
        ".ap-south-1.amazonaws.com"
    )
    with pytest.raises(ValueError, match="not a region"):
        region_from({"AWS_REGION": "evil.example.com/x"})


def test_a_bedrock_api_key_is_sent_as_a_bearer_to_the_regions_endpoint(tmp_path: Path) -> None:
    args = _args("--provider", "bedrock-converse", "--model", "anthropic.claude-3:0",
                 "--prompt", "hi", "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    feed = feed_from_args(args, {"AWS_BEARER_TOKEN_BEDROCK": BEARER, **SIGV4_ENV})
    assert feed.request.url == (
        "https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-3%3A0/converse-stream"
    )
    assert feed.request.headers["authorization"] == f"Bearer {BEARER}"
    assert BEARER in feed.secrets


def test_sigv4_signs_exactly_the_request_httpx_sends(tmp_path: Path) -> None:
    pytest.importorskip("botocore")
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    args = _args("--provider", "bedrock-invoke", "--model", "anthropic.claude-3:0",
                 "--prompt", "hi", "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    feed = feed_from_args(args, SIGV4_ENV)
    request = feed.request
    authorization = request.headers["authorization"]
    assert authorization.startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS}/")
    assert "/eu-west-3/bedrock/aws4_request" in authorization
    assert request.headers["x-amz-security-token"] == TOKEN
    # Verify the signature over what httpx puts on the wire, with botocore's own algorithm.
    sent = httpx.Client().build_request(
        request.method, request.url, headers=request.headers, content=orjson.dumps(request.body)
    )
    signed_names = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
    again = AWSRequest(
        method=sent.method, url=str(sent.url), data=sent.content,
        headers={name: sent.headers[name] for name in signed_names},
    )  # fmt: skip
    again.context["timestamp"] = sent.headers["x-amz-date"]
    auth = SigV4Auth(Credentials(ACCESS, SECRET_KEY, TOKEN), "bedrock", "eu-west-3")
    canonical = auth.canonical_request(again)
    expected = auth.signature(auth.string_to_sign(again, canonical), again)
    assert authorization.endswith(f"Signature={expected}")


def test_bedrock_without_credentials_names_both_ways_to_give_them(tmp_path: Path) -> None:
    args = _args("--provider", "bedrock-converse", "--model", "m", "--prompt", "hi",
                 "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    with pytest.raises(UsageError, match=r"AWS_BEARER_TOKEN_BEDROCK.*AWS_ACCESS_KEY_ID"):
        feed_from_args(args, {})


def test_cohere_needs_co_api_key_and_ollama_on_loopback_needs_nothing(tmp_path: Path) -> None:
    cohere = _args("--provider", "cohere", "--model", "m", "--prompt", "x",
                   "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    with pytest.raises(UsageError, match="CO_API_KEY"):
        feed_from_args(cohere, {})
    assert feed_from_args(cohere, {"CO_API_KEY": BEARER}).request.headers["authorization"] == (
        f"Bearer {BEARER}"
    )
    ollama = _args("--provider", "ollama", "--model", "llama3.2", "--prompt", "x",
                   "-o", str(tmp_path / "o.jsonl"))  # fmt: skip
    assert "authorization" not in feed_from_args(ollama, {}).request.headers


def test_the_bedrock_api_key_variable_is_a_credential_source() -> None:
    found = dict(environ_secrets({"AWS_BEARER_TOKEN_BEDROCK": BEARER, "AWS_REGION": "us-east-1"}))
    assert found == {"env:AWS_BEARER_TOKEN_BEDROCK": BEARER}


# -- recording against serve ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "capture", "env"),
    [
        ("bedrock-converse", "bedrock-converse/tool-use", SIGV4_ENV),
        (
            "bedrock-converse",
            "bedrock-converse/reasoning-then-text",
            {"AWS_BEARER_TOKEN_BEDROCK": BEARER},
        ),
        ("bedrock-invoke", "bedrock-invoke/claude-tool-use", SIGV4_ENV),
        ("ollama", "ollama/chat-tool-calls", {"OLLAMA_API_KEY": BEARER}),
        ("ollama-generate", "ollama/generate-text", {}),
        ("cohere", "cohere/tool-plan-and-call", {"CO_API_KEY": BEARER}),
        ("openai-completions", "openai-completions/length", {"OPENAI_API_KEY": BEARER}),
        ("ai-sdk-ui", "ai-sdk-ui/server-tool-then-text", {}),
    ],
)
async def test_recording_each_row_against_serve_gives_the_files_events_and_no_secret(
    tmp_path: Path, row: str, capture: str, env: dict[str, str]
) -> None:
    if "AWS_SECRET_ACCESS_KEY" in env:
        pytest.importorskip("botocore")  # SigV4 is signed by botocore
    source = CAPTURES / f"{capture}.jsonl"
    out = tmp_path / "live.jsonl"
    with serving(source.parent) as server:
        name = source.stem
        args = _args("--provider", row, "--model", name, "--prompt", "hi",
                     "--base-url", f"{server.url}?capture={name}", "-o", str(out))  # fmt: skip
        feed = feed_from_args(args, env, keep_history=False)
        await feed.run(lambda: None)
    expected = load_trace(source)
    recorded = load_trace(out)
    assert exit_code(feed.trace) == (0 if expected.state == "completed" else 1)
    assert [e["type"] for e in recorded.events] == [e["type"] for e in expected.events]
    assert recorded.outcome == expected.outcome
    header = orjson.loads(out.read_bytes().split(b"\n", 1)[0])
    assert header.get("framing", "sse") == PROVIDER_SPECS[row].framing
    assert_nothing_holds((BEARER, SECRET_KEY, TOKEN), out)


# -- scrubbing a binary body keeps it decodable ---------------------------------------------------

HEADERS = [(":event-type", "contentBlockDelta"), (":content-type", "application/json"),
           (":message-type", "event")]  # fmt: skip
ECHOED = "sk-ant-api03-" + "Q" * 40


def _stream(texts: list[str]) -> bytes:
    def delta(i: int, text: str) -> bytes:
        payload = {"contentBlockIndex": 0, "delta": {"text": text}}
        return encode_message(HEADERS, orjson.dumps(payload))

    start = encode_message([(":event-type", "messageStart"), *HEADERS[1:]], b'{"role":"assistant"}')
    return start + b"".join(delta(i, t) for i, t in enumerate(texts))


def _scrubbed(body: bytes, cuts: list[int]) -> bytes:
    scrubber = body_scrubber(SecretScrubber([ECHOED]), "aws-eventstream")
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    return b"".join(scrubber.feed(p) for p in pieces) + scrubber.flush()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 400), max_size=6))
def test_a_key_echoed_in_an_event_stream_is_scrubbed_with_lengths_and_crcs_recomputed(
    cuts: list[int],
) -> None:
    body = _stream(["Your key is ", ECHOED, " — keep it."])
    cuts = sorted({c for c in cuts if c < len(body)})
    clean = _scrubbed(body, cuts)
    assert ECHOED.encode() not in clean
    normalizer = Normalizer("bedrock-converse", "s", framing="aws-eventstream")
    normalizer.feed(clean)
    trace = normalizer.finish(TransportEnd("eof"))
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts[0] == "Your key is " and ECHOED not in texts[1] and texts[2] == " — keep it."
    assert trace.decoder_error is None


def test_a_message_without_a_secret_is_recorded_byte_for_byte() -> None:
    body = _stream(["a", "b", "c"])
    assert _scrubbed(body, [7, 100]) == body


def test_a_key_inside_invokes_base64_chunk_is_scrubbed_decoded_and_encoded_again() -> None:
    inner = orjson.dumps({"type": "content_block_delta", "index": 0,
                          "delta": {"type": "text_delta", "text": ECHOED}})  # fmt: skip
    chunk = encode_message([(":event-type", "chunk"), *HEADERS[1:]],
                           orjson.dumps({"bytes": base64.b64encode(inner).decode()}))  # fmt: skip
    clean = _scrubbed(chunk, [])
    payload = orjson.loads(_payload(clean))
    decoded = orjson.loads(base64.b64decode(payload["bytes"]))
    assert decoded["type"] == "content_block_delta" and ECHOED not in decoded["delta"]["text"]


def _payload(message: bytes) -> bytes:
    headers = int.from_bytes(message[4:8], "big")
    return message[12 + headers : -4]


def test_a_damaged_message_is_scrubbed_in_place_never_made_whole() -> None:
    body = bytearray(_stream([ECHOED]))
    body[-1] ^= 0xFF  # the last message's CRC no longer holds
    clean = _scrubbed(bytes(body), [])
    assert ECHOED.encode() not in clean
    normalizer = Normalizer("bedrock-converse", "s", framing="aws-eventstream")
    normalizer.feed(clean)
    # (scrubbed in place, its stated length no longer fits: never a clean stream)
    assert normalizer.finish(TransportEnd("eof")).state != "completed"


def test_text_framings_use_the_scrubber_itself() -> None:
    scrubber = SecretScrubber([ECHOED])
    assert body_scrubber(scrubber, "ndjson") is scrubber
    assert isinstance(body_scrubber(scrubber, "aws-eventstream"), EventStreamScrubber)


def test_sigv4_credentials_never_show_in_a_repr() -> None:
    pytest.importorskip("botocore")
    assert SECRET_KEY not in repr(AwsCredentials(ACCESS, SECRET_KEY, TOKEN))
    request = build_request("bedrock-converse", model="m", prompt="hi")
    signed = sign_sigv4(request, AwsCredentials(ACCESS, SECRET_KEY), "us-east-1")
    assert SECRET_KEY not in repr(signed)


def test_a_servers_own_cancel_exits_1_and_only_a_stop_on_our_side_130() -> None:
    from inspector.capture import read_recording

    rec = read_recording(CAPTURES / "ai-sdk-ui/abort-part.jsonl")
    normalizer = Normalizer("ai-sdk-ui", "s")
    normalizer.feed(rec.body)
    aborted = normalizer.finish(TransportEnd("eof"))
    assert aborted.outcome == "interrupted (cancelled)"  # the server's `abort` part
    assert exit_code(aborted) == 1
    stopped = Normalizer("ollama", "s", framing="ndjson")
    stopped.feed(b'{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}\n')
    assert exit_code(stopped.finish(TransportEnd("cancelled", 1.0, "cancelled by the user"))) == 130
