"""The proxy in front of ``inspector serve`` on the newer providers' paths: the app gets the
bytes exactly as sent (binary event streams included), the capture is decoded in the right
framing and provider, and the flow list shows provider, model and state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from inspector.capture import read_recording
from inspector.proxy import ProxyServer
from inspector.proxy.routes import Route, framing_of_response, provider_of_response, resolve
from inspector.serve import ReplayServer, load_catalog
from inspector.serve.services import SERVICES
from inspector.session import framing_of, load_trace

from .conftest import CAPTURES
from .framing_support import PROTOCOL_FOLDERS
from .test_proxy_helpers import captures_in, proxying

# (path to post to, body, the capture it plays, provider recorded, framing recorded)
CASES: list[tuple[str, dict[str, Any], str, str, str]] = [
    ("/model/tool-use/converse-stream", {}, "bedrock-converse/tool-use", "bedrock-converse",
     "aws-eventstream"),
    ("/model/claude-thinking/invoke-with-response-stream", {}, "bedrock-invoke/claude-thinking",
     "anthropic", "aws-eventstream"),
    ("/model/throttling-exception/converse-stream", {}, "bedrock-converse/throttling-exception",
     "bedrock-converse", "aws-eventstream"),
    ("/api/chat", {"model": "chat-tool-calls"}, "ollama/chat-tool-calls", "ollama", "ndjson"),
    ("/api/generate", {"model": "generate-text"}, "ollama/generate-text", "ollama", "ndjson"),
    ("/v2/chat", {"model": "tool-plan-and-call"}, "cohere/tool-plan-and-call", "cohere", "sse"),
    ("/v1/completions", {"model": "length"}, "openai-completions/length", "openai-completions",
     "sse"),
    ("/api/chat?capture=reasoning-then-text", {"id": "c"}, "ai-sdk-ui/reasoning-then-text",
     "ai-sdk-ui", "sse"),
]  # fmt: skip


@pytest.fixture(scope="module")
def upstream() -> Iterator[ReplayServer]:
    catalog = load_catalog([CAPTURES / folder for folder in PROTOCOL_FOLDERS])
    with ReplayServer(catalog, speed=0) as server:
        yield server


@pytest.fixture
def proxy(upstream: ReplayServer, tmp_path: Path) -> Iterator[tuple[ProxyServer, Path]]:
    with proxying(upstream.url, tmp_path / "caps") as running:
        yield running, tmp_path / "caps"


def _wait_ended(server: ProxyServer) -> None:
    import time

    deadline = time.monotonic() + 10
    while any(flow.live for flow in server.log.flows) and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize("case", CASES, ids=[c[2] for c in CASES])
def test_the_app_gets_the_bytes_as_sent_and_the_capture_reads_as_the_file(
    proxy: tuple[ProxyServer, Path], case: tuple[str, dict[str, Any], str, str, str]
) -> None:
    server, directory = proxy
    path, body, source, provider, framing = case
    original = read_recording(CAPTURES / f"{source}.jsonl")
    with httpx.Client(base_url=server.url, timeout=10) as client:
        response = client.post(path, json=body)
    assert response.content == original.body  # relayed raw, byte for byte
    _wait_ended(server)
    (capture,) = captures_in(directory)
    recorded = read_recording(capture)
    assert (recorded.provider, framing_of(recorded)) == (provider, framing)
    assert recorded.body == original.body
    expected = load_trace(CAPTURES / f"{source}.jsonl")
    trace = load_trace(capture)
    assert [e["type"] for e in trace.events] == [e["type"] for e in expected.events]
    assert trace.outcome == expected.outcome
    (flow,) = server.log.flows
    assert (flow.provider, flow.state) == (provider, expected.outcome)
    in_path = path.split("/")[2] if path.startswith("/model/") else None
    assert flow.model == (in_path or body.get("model"))  # useChat sends none: None


def test_botocore_through_the_proxy_reads_the_stream_and_the_flow_names_the_model(
    proxy: tuple[ProxyServer, Path],
) -> None:
    session = pytest.importorskip("botocore.session")
    from botocore.config import Config

    server, directory = proxy
    client = session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=server.url,
        config=Config(retries={"max_attempts": 1}),
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    )
    stream = client.converse_stream(modelId="max-tokens", messages=[])["stream"]
    assert next(iter(list(stream)[-1])) == "metadata"
    _wait_ended(server)
    (flow,) = server.log.flows
    assert (flow.provider, flow.model, flow.state) == (
        "bedrock-converse", "max-tokens", "completed (length)",
    )  # fmt: skip
    header = orjson.loads(captures_in(directory)[0].read_bytes().split(b"\n", 1)[0])
    assert header["framing"] == "aws-eventstream"
    assert header["request"]["headers"]["authorization"] == "[redacted]"


def test_ollamas_client_through_the_proxy(proxy: tuple[ProxyServer, Path]) -> None:
    ollama = pytest.importorskip("ollama")
    server, directory = proxy
    parts = list(ollama.Client(host=server.url).chat(model="chat-thinking", messages=[],
                                                     stream=True))  # fmt: skip
    assert parts[-1].done
    _wait_ended(server)
    assert load_trace(captures_in(directory)[0]).state == "completed"


@pytest.mark.parametrize("path", [s.path for s in SERVICES.values()])
def test_every_path_serve_answers_on_is_one_the_proxy_records(path: str) -> None:
    concrete = path.replace("{modelId}", "m").replace("{model}", "m")
    assert resolve("POST", concrete, {}).provider is not None


def test_a_responses_content_type_decides_its_framing_and_sse_on_api_chat_is_the_ai_sdks() -> None:
    chat = Route("ollama", "ollama")
    assert framing_of_response(chat, {"content-type": "application/x-ndjson"}) == "ndjson"
    assert provider_of_response(chat, "ndjson") == "ollama"
    assert provider_of_response(chat, "sse") == "ai-sdk-ui"
    bedrock = Route("bedrock-converse", "bedrock")
    ct = "application/vnd.amazon.eventstream"
    assert framing_of_response(bedrock, {"content-type": ct}) == "aws-eventstream"
    assert framing_of_response(Route("gemini", "google"), {"content-type": "application/json"}) == (
        "json-array"
    )
    assert framing_of_response(chat, {"content-type": "application/json"}) is None  # no stream


class _EchoingBedrock:
    """An upstream that echoes the caller's Bedrock API key inside its event-stream messages."""

    def __init__(self) -> None:
        import socket

        import uvicorn
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import Response
        from starlette.routing import Route as StarletteRoute

        from inspector.core.framing.eventstream import encode_message

        def message(name: str, payload: dict[str, Any]) -> bytes:
            headers = [(":event-type", name), (":content-type", "application/json"),
                       (":message-type", "event")]  # fmt: skip
            return encode_message(headers, orjson.dumps(payload))

        async def converse(request: Request) -> Response:
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            body = b"".join([
                message("messageStart", {"role": "assistant"}),
                message("contentBlockDelta", {"contentBlockIndex": 0,
                                              "delta": {"text": f"your key is {key}"}}),
                message("contentBlockStop", {"contentBlockIndex": 0}),
                message("messageStop", {"stopReason": "end_turn"}),
                message("metadata", {"usage": {"inputTokens": 1, "outputTokens": 2,
                                               "totalTokens": 3}, "metrics": {"latencyMs": 1}}),
            ])  # fmt: skip
            return Response(body, media_type="application/vnd.amazon.eventstream")

        app = Starlette(routes=[StarletteRoute("/model/{m}/converse-stream", converse,
                                               methods=["POST"])])  # fmt: skip
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"

    def __enter__(self) -> _EchoingBedrock:
        from inspector.net.server import start_in_thread

        self.thread = start_in_thread(
            self.server, lambda: self.server.run(sockets=[self.socket]), "echo-bedrock"
        )
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()


def test_a_bedrock_key_echoed_in_the_event_stream_is_not_recorded_and_the_capture_decodes(
    tmp_path: Path,
) -> None:
    key = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLXRva2VuLTAxMjM0NTY3ODk="
    with _EchoingBedrock() as upstream, proxying(upstream.url, tmp_path / "caps") as server:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            response = client.post("/model/m/converse-stream", json={},
                                   headers={"authorization": f"Bearer {key}"})  # fmt: skip
        assert key.encode() in response.content  # the app gets what the upstream sent
        _wait_ended(server)
    (capture,) = captures_in(tmp_path / "caps")
    assert key.encode() not in capture.read_bytes()
    trace = load_trace(capture)
    assert trace.outcome == "completed (stop)"
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts[0].startswith("your key is ") and key not in texts[0]


@pytest.mark.parametrize(
    ("path", "family"),
    [("/api/tags", "ollama"), ("/api/show", "ollama"), ("/model/m/converse", "bedrock"),
     ("/v2/embed", "cohere"), ("/v1/models", "openai")],
)  # fmt: skip
def test_the_other_paths_of_each_family_go_to_its_upstream_unrecorded(
    path: str, family: str
) -> None:
    assert resolve("GET" if path.startswith("/api/tags") else "POST", path, {}) == Route(
        None, family
    )
