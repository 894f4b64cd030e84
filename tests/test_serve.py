"""The replay server over real HTTP on loopback: routing by model, recorded statuses, faults."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.capture_writer import CaptureWriter
from inspector.serve import ReplayServer, load_catalog

from .test_live_helpers import CHAT, body_of, serving

ANTHROPIC_TEXT = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"c"}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)
OVERLOADED = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two chat streams, one Anthropic stream, one recorded 529, one Gemini stream."""
    root = tmp_path_factory.mktemp("library")
    (root / "chat").mkdir()
    for name in ("openai-text-plain", "openai-tool-call-fragmented"):
        (root / "chat" / f"{name}.sse").write_bytes((CHAT / f"{name}.sse").read_bytes())
    (root / "chat" / "openai-text-plain.events.jsonl").write_text("not a stream\n")
    (root / "anthropic").mkdir()
    (root / "anthropic" / "hello.sse").write_bytes(ANTHROPIC_TEXT)
    writer = CaptureWriter(
        root / "anthropic" / "busy.jsonl",
        {"provider": "anthropic", "response": {"status": 529, "headers": {
            "content-type": "application/json", "retry-after": "7", "content-length": "75"}}},
    )  # fmt: skip
    writer.chunk(0.1, OVERLOADED)
    writer.end("eof", 0.2)
    (root / "gemini.sse").write_bytes(b'data: {"candidates": [], "modelVersion": "g"}\r\n\r\n')
    (root / "mystery.sse").write_bytes(b"data: hello\n\n")
    return root


@pytest.fixture(scope="module")
def server(library: Path) -> Iterator[ReplayServer]:
    with serving(library) as running:
        yield running


@pytest.fixture
def client(server: ReplayServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def test_get_root_lists_every_endpoint_capture_and_fault(client: httpx.Client) -> None:
    listing = client.get("/").json()
    endpoints = listing["endpoints"]
    assert set(endpoints["/v1/chat/completions"]["captures"]) == {
        "openai-text-plain", "openai-tool-call-fragmented",
    }  # fmt: skip
    assert set(endpoints["/v1/messages"]["captures"]) == {"hello", "busy"}
    assert endpoints["/v1/messages"]["captures"]["busy"]["status"] == 529
    assert set(endpoints["/v1beta/models/{model}:streamGenerateContent"]["captures"]) == {"gemini"}
    assert {"cut", "drop", "reset", "stall", "chunk", "status"} <= set(listing["faults"]["kinds"])
    assert any("mystery.sse: cannot tell which provider" in s for s in listing["skipped"])


def test_the_model_picks_the_capture_by_file_name(client: httpx.Client) -> None:
    for name in ("openai-text-plain", "openai-tool-call-fragmented"):
        response = client.post("/v1/chat/completions", json={"model": name, "stream": True})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-inspector-capture"] == name
        assert response.content == (CHAT / f"{name}.sse").read_bytes()


def test_an_unknown_model_among_several_is_a_404_naming_what_is_served(
    client: httpx.Client,
) -> None:
    response = client.post("/v1/chat/completions", json={"model": "gpt-4o"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "model_not_found"
    assert "openai-text-plain, openai-tool-call-fragmented" in error["message"]


def test_an_endpoint_with_one_capture_plays_it_whatever_the_model(client: httpx.Client) -> None:
    url = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    response = client.post(url, json={"contents": []})
    assert response.status_code == 200
    assert response.headers["x-inspector-capture"] == "gemini"
    not_streaming = client.post("/v1beta/models/g:generateContent", json={})
    assert not_streaming.status_code == 404


def test_a_recorded_http_error_is_replayed_with_its_status_headers_and_body(
    client: httpx.Client,
) -> None:
    response = client.post("/v1/messages", json={"model": "busy"})
    assert response.status_code == 529
    assert response.headers["retry-after"] == "7"
    assert response.headers["content-type"] == "application/json"
    assert response.content == OVERLOADED


RATE = "Rate limit reached. Please try again later."
SHAPES_429 = [
    (
        "/v1/chat/completions",
        {"message": RATE, "type": "requests", "param": None, "code": "rate_limit_exceeded"},
    ),
    ("/v1/messages", {"type": "rate_limit_error", "message": RATE}),
    (
        "/v1beta/models/g:streamGenerateContent",
        {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": RATE},
    ),
]


@pytest.mark.parametrize(("path", "error"), SHAPES_429)
def test_the_status_fault_answers_in_the_providers_own_error_shape(
    client: httpx.Client, path: str, error: dict[str, object]
) -> None:
    response = client.post(path, params={"status": "429", "retry_after": "3"}, json={"model": "x"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.json()["error"] == error


def test_faults_may_come_in_one_header(client: httpx.Client) -> None:
    response = client.post(
        "/v1/messages", headers={"x-inspector-fault": "cut=30"}, json={"model": "hello"}
    )
    assert response.content == ANTHROPIC_TEXT[:30]


def test_bad_fault_requests_and_bad_bodies_are_400s_that_say_why(client: httpx.Client) -> None:
    response = client.post(
        "/v1/messages", headers={"x-inspector-fault": "explode=1"}, json={"model": "hello"}
    )
    assert response.status_code == 400
    assert "unknown fault 'explode'" in response.json()["error"]["message"]
    broken = client.post("/v1/messages", content=b"{not json")
    assert broken.status_code == 400
    assert "not valid JSON" in broken.json()["error"]["message"]


def _read_until_broken(client: httpx.Client, query: str) -> tuple[bytes, Exception | None]:
    received = b""
    with client.stream(
        "POST", f"/v1/chat/completions?{query}", json={"model": "openai-text-plain"}
    ) as response:
        try:
            for data in response.iter_raw():
                received += data
        except httpx.TransportError as exc:
            return received, exc
    return received, None


@pytest.mark.parametrize(
    ("fault", "broken_by"),
    [("cut", None), ("drop", httpx.RemoteProtocolError), ("reset", httpx.ReadError)],
)
def test_the_three_ways_to_end_early_each_after_exactly_n_bytes(
    client: httpx.Client, fault: str, broken_by: type[Exception] | None
) -> None:
    received, problem = _read_until_broken(client, f"{fault}=1000")
    assert received == body_of(CHAT / "openai-text-plain.sse")[:1000]
    if broken_by is None:
        assert problem is None
    else:
        assert isinstance(problem, broken_by)


def test_duplicate_names_keep_the_first_file_and_say_so(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "same.sse").write_bytes((CHAT / "openai-refusal.sse").read_bytes())
    catalog = load_catalog([tmp_path])
    assert len(catalog) == 1
    assert catalog.skipped == [
        f"{tmp_path / 'b' / 'same.sse'}: the name 'same' is already served by "
        f"{tmp_path / 'a' / 'same.sse'}"
    ]
