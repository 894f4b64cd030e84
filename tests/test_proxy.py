"""``inspector proxy`` on loopback, in front of ``inspector serve`` and of an echoing upstream.

What the app receives through the proxy must be what it would have received
directly — status, headers that matter, every byte, and the way the stream
ended — and what the proxy writes must be a clean capture with no key in it.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.capture import load_recording
from inspector.cli import main
from inspector.proxy import ProxyServer
from inspector.serve import ReplayServer
from inspector.session import load_trace

from .conftest import ROOT
from .test_live_helpers import SECRET, assert_nothing_holds, serving, without_ids
from .test_proxy_helpers import EchoUpstream, captures_in, proxying

CAPTURES = ROOT / "captures"

#: (provider, path, body) for one completed stream of each protocol in the library.
STREAMS = [
    ("openai-chat", "/v1/chat/completions", {"model": "tool-call-fragmented", "stream": True}),
    ("openai-responses", "/v1/responses", {"model": "reasoning-summary", "stream": True}),
    ("anthropic", "/v1/messages", {"model": "parallel-tool-calls", "stream": True}),
    ("gemini", "/v1beta/models/text-several-objects:streamGenerateContent?alt=sse", {}),
]


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    with serving(CAPTURES) as server:
        yield server


@pytest.fixture
def proxy(replay: ReplayServer, tmp_path: Path) -> Iterator[ProxyServer]:
    with proxying(replay.url, tmp_path / "recorded") as server:
        yield server


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoUpstream]:
    with EchoUpstream() as upstream:
        yield upstream


@pytest.fixture
def echo_proxy(echo: EchoUpstream, tmp_path: Path) -> Iterator[ProxyServer]:
    echo.gate.clear()
    echo.seen_headers.clear()
    with proxying(echo.url, tmp_path) as server:
        yield server


def wait_for(condition: Any, what: str) -> None:
    """Wait (bounded) until ``condition()`` holds: the proxy's thread settles flows."""
    pause = threading.Event()
    for _ in range(2000):
        if condition():
            return
        pause.wait(0.005)
    raise AssertionError(f"never happened: {what}")


def post(base: str, path: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.post(base + path, json=body, headers=headers)


def read_until_broken(base: str, path: str, body: dict[str, Any]) -> tuple[bytes, str]:
    """Every body byte received, and the name of the error that ended it ("" for a clean end)."""
    received = b""
    with httpx.Client(timeout=10) as client, client.stream("POST", base + path, json=body) as r:
        try:
            for data in r.iter_raw():
                received += data
        except httpx.TransportError as exc:
            return received, type(exc).__name__
    return received, ""


def check_exit(path: Path) -> int:
    return main(["check", str(path)])


# -- byte for byte, every protocol ------------------------------------------------------


@pytest.mark.parametrize(("provider", "path", "body"), STREAMS, ids=[s[0] for s in STREAMS])
def test_the_app_receives_through_the_proxy_exactly_what_serve_sends_directly(
    replay: ReplayServer, proxy: ProxyServer, provider: str, path: str, body: dict[str, Any]
) -> None:
    direct = post(replay.url, path, body, authorization=f"Bearer {SECRET}")
    proxied = post(proxy.url, path, body, authorization=f"Bearer {SECRET}")
    assert proxied.status_code == direct.status_code == 200
    assert proxied.content == direct.content
    for name in ("content-type", "cache-control", "x-inspector-capture"):
        assert proxied.headers[name] == direct.headers[name]
    (capture,) = captures_in(proxy.directory)
    recording = load_recording(capture)
    assert recording.body == direct.content  # the recorded bytes are the stream as decoded
    assert recording.header["request"]["body"] == body
    (flow,) = proxy.log.flows
    assert flow.trace is None and "body" not in flow.exchange["request"]  # on disk only now
    assert recording.provider == provider and recording.end is not None
    served = CAPTURES / provider / f"{proxy.log.flows[0].model}.jsonl"
    assert without_ids(load_trace(capture).events) == without_ids(load_trace(served).events)
    assert check_exit(capture) == 0
    assert_nothing_holds((SECRET,), proxy.directory)


def test_the_openai_sdk_streams_through_the_proxy_as_it_does_directly(
    replay: ReplayServer, proxy: ProxyServer
) -> None:
    openai = pytest.importorskip("openai", reason="the openai SDK is in the bench extra")

    def chat(base: str) -> tuple[bytes, list[Any]]:
        client = openai.OpenAI(base_url=base + "/v1", api_key=SECRET, max_retries=0)
        args: dict[str, Any] = {
            "model": "text-simple",
            "messages": [{"role": "user", "content": "hi"}],
        }
        with client.chat.completions.with_streaming_response.create(stream=True, **args) as raw:
            wire = b"".join(raw.iter_bytes())
        parsed = [
            chunk.model_dump() for chunk in client.chat.completions.create(stream=True, **args)
        ]
        return wire, parsed

    def responses(base: str) -> list[Any]:
        client = openai.OpenAI(base_url=base + "/v1", api_key=SECRET, max_retries=0)
        stream = client.responses.create(model="text-then-tool", input="hi", stream=True)
        return [event.model_dump() for event in stream]

    assert chat(proxy.url) == chat(replay.url)
    assert responses(proxy.url) == responses(replay.url)
    assert len(captures_in(proxy.directory)) == 3
    for capture in captures_in(proxy.directory):
        assert check_exit(capture) == 0
    assert_nothing_holds((SECRET,), proxy.directory)


def test_the_anthropic_sdk_reaches_the_proxy_with_its_base_url_without_v1(
    replay: ReplayServer, proxy: ProxyServer
) -> None:
    anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK is in the bench extra")

    def messages(base: str) -> list[Any]:
        client = anthropic.Anthropic(base_url=base, api_key=SECRET, max_retries=0)
        stream = client.messages.create(
            model="text-simple", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )  # fmt: skip
        return [event.model_dump() for event in stream]

    assert messages(proxy.url) == messages(replay.url)
    (capture,) = captures_in(proxy.directory)
    sent = load_recording(capture).header["request"]["headers"]
    assert "[redacted]" in (sent.get("x-api-key"), sent.get("authorization"))
    assert_nothing_holds((SECRET,), proxy.directory)


def test_the_google_genai_sdk_streams_through_the_proxy_as_it_does_directly(
    replay: ReplayServer, proxy: ProxyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    genai = pytest.importorskip("google.genai", reason="google-genai is in the bench extra")
    # inspector serve answers Gemini's v1beta paths; the SDK's default version may differ.
    options = genai.types.HttpOptions(api_version="v1beta")

    def stream(base: str | None) -> list[Any]:
        if base is not None:
            options.base_url = base
        client = genai.Client(api_key=SECRET + "-gemini", http_options=options)
        chunks = client.models.generate_content_stream(model="text-several-objects", contents="hi")
        # Each chunk also carries the response headers; their date is the second it was sent.
        return [chunk.model_dump(exclude={"sdk_http_response"}) for chunk in chunks]

    direct = stream(replay.url)
    options.base_url = None
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", proxy.url)  # the recipe in docs/proxy.md
    assert stream(None) == direct
    (capture,) = captures_in(proxy.directory)
    assert load_recording(capture).header["request"]["headers"]["x-goog-api-key"] == "[redacted]"
    assert check_exit(capture) == 0
    assert_nothing_holds((SECRET,), proxy.directory)


# -- failures reach the app as they happened ----------------------------------------------


def test_an_upstream_that_ends_cleanly_mid_event_ends_the_apps_response_cleanly(
    replay: ReplayServer, proxy: ProxyServer
) -> None:
    path, body = "/v1/chat/completions?cut=400", {"model": "text-simple", "stream": True}
    direct, direct_error = read_until_broken(replay.url, path, body)
    proxied, proxied_error = read_until_broken(proxy.url, path, body)
    assert (proxied, proxied_error) == (direct, direct_error) == (direct[:400], "")
    (flow,) = proxy.log.flows
    recording = load_recording(flow.capture)
    assert recording.end is not None and recording.end.reason == "eof"
    assert flow.state == "interrupted (transport)"  # no final signal: the bytes just stopped


async def test_concurrent_streams_are_relayed_and_recorded_each_on_its_own(
    replay: ReplayServer, proxy: ProxyServer
) -> None:
    names = ["text-simple", "tool-call-fragmented", "parallel-tool-calls-interleaved",
             "reasoning-then-tool-call", "refusal", "length-after-text"]  # fmt: skip
    async with httpx.AsyncClient(timeout=10) as client:

        async def both(name: str) -> tuple[bytes, bytes]:
            body = {"model": name, "stream": True}
            direct = await client.post(replay.url + "/v1/chat/completions", json=body)
            proxied = await client.post(proxy.url + "/v1/chat/completions", json=body)
            return direct.content, proxied.content

        results = await asyncio.gather(*(both(name) for name in names * 2))
    assert all(direct == proxied for direct, proxied in results)
    by_model: dict[str, set[bytes]] = {}
    for capture in captures_in(proxy.directory):
        recording = load_recording(capture)
        by_model.setdefault(recording.header["model"], set()).add(recording.body)
    assert sorted(by_model) == sorted(names)
    for name, bodies in by_model.items():
        assert bodies == {load_recording(CAPTURES / "openai-chat" / f"{name}.jsonl").body}
    assert len(captures_in(proxy.directory)) == len(names) * 2


@pytest.mark.parametrize(
    ("fault", "broken"),
    [("reset=400", {"ReadError", "RemoteProtocolError"}), ("drop=400", {"RemoteProtocolError"})],
)
def test_an_upstream_that_breaks_mid_body_breaks_the_apps_response_after_the_same_bytes(
    replay: ReplayServer, proxy: ProxyServer, fault: str, broken: set[str]
) -> None:
    path = f"/v1/chat/completions?{fault}"
    body = {"model": "text-simple", "stream": True}
    direct, direct_error = read_until_broken(replay.url, path, body)
    proxied, proxied_error = read_until_broken(proxy.url, path, body)
    assert len(direct) == 400 and direct_error in broken
    assert proxied == direct
    assert proxied_error in broken  # not a clean end
    (flow,) = proxy.log.flows
    assert flow.state == "interrupted (transport)"
    recording = load_recording(flow.capture)
    assert recording.body == direct and recording.end is not None
    assert recording.end.reason == "reset"
    assert check_exit(flow.capture) == 0


def test_a_recorded_reset_replayed_by_serve_resets_the_app_behind_the_proxy(
    replay: ReplayServer, proxy: ProxyServer
) -> None:
    body = {"model": "interrupted-reset-mid-text", "stream": True}
    direct, direct_error = read_until_broken(replay.url, "/v1/messages", body)
    proxied, proxied_error = read_until_broken(proxy.url, "/v1/messages", body)
    assert proxied == direct and direct_error and proxied_error
    assert proxy.log.flows[0].state == "interrupted (transport)"


@pytest.mark.parametrize(
    ("path", "body", "status", "category"),
    [
        ("/v1/chat/completions?status=429&retry_after=20", {"model": "text-simple"}, 429,
         "rate_limited"),
        ("/v1/messages", {"model": "http-529-overloaded"}, 529, "upstream_overloaded"),
        ("/v1beta/models/http-429-resource-exhausted:streamGenerateContent?alt=sse", {}, 429,
         "rate_limited"),
    ],
)  # fmt: skip
def test_an_http_error_reaches_the_app_unchanged_and_is_recorded_as_failed(
    replay: ReplayServer,
    proxy: ProxyServer,
    path: str,
    body: dict[str, Any],
    status: int,
    category: str,
) -> None:
    direct = post(replay.url, path, body)
    proxied = post(proxy.url, path, body)
    assert proxied.status_code == direct.status_code == status
    assert proxied.content == direct.content
    assert proxied.headers.get("retry-after") == direct.headers.get("retry-after")
    (flow,) = proxy.log.flows
    # An error body with a length is complete for the app before the proxy records its end.
    wait_for(lambda: not flow.live, "the flow ends")
    assert flow.state == f"failed ({category})"
    assert load_recording(flow.capture).body == direct.content
    assert check_exit(flow.capture) == 0


def test_an_unreachable_upstream_is_a_502_that_says_why(tmp_path: Path) -> None:
    with proxying("http://127.0.0.1:9", tmp_path) as proxy:
        response = post(proxy.url, "/v1/chat/completions", {"model": "m", "stream": True})
    assert response.status_code == 502
    assert "could not connect to 127.0.0.1:9" in response.json()["error"]["message"]
    (flow,) = proxy.log.flows
    assert flow.state == "interrupted (transport)"
    recording = load_recording(flow.capture)
    assert recording.end is not None and recording.end.reason == "reset"


# -- secrets ---------------------------------------------------------------------------


def test_a_key_the_upstream_echoes_reaches_the_app_but_is_never_written(
    echo: EchoUpstream, echo_proxy: ProxyServer, tmp_path: Path
) -> None:
    auth = {"authorization": f"Bearer {SECRET}"}
    direct = post(echo.url, "/v1/chat/completions", {"model": "echo"}, **auth)
    proxied = post(echo_proxy.url, "/v1/chat/completions", {"model": "echo"}, **auth)
    assert proxied.content == direct.content and SECRET.encode() in proxied.content
    assert proxied.headers["x-echo-key"] == SECRET
    (flow,) = echo_proxy.log.flows
    assert flow.state == "completed (stop)"
    assert_nothing_holds((SECRET,), tmp_path)
    recorded = load_trace(flow.capture)
    text = "".join(e["delta"]["text"] for e in recorded.events if e["type"] == "block.delta")
    assert "your key is [redacted]" in text and text.endswith("[redacted]")
    header = load_recording(flow.capture).header
    assert header["response"]["headers"]["x-echo-key"] == "[redacted]"
    assert check_exit(flow.capture) == 0


def test_a_key_echoed_in_an_error_body_reaches_the_app_but_not_the_capture(
    echo_proxy: ProxyServer, tmp_path: Path
) -> None:
    auth = {"authorization": f"Bearer {SECRET}"}
    proxied = post(echo_proxy.url, "/v1/chat/completions", {"model": "unauthorized"}, **auth)
    assert proxied.status_code == 401 and SECRET in proxied.json()["error"]["message"]
    (flow,) = echo_proxy.log.flows
    # A body with a length is complete for the app before the proxy has recorded its end.
    wait_for(lambda: not flow.live, "the flow ends")
    assert flow.state == "failed (authentication)"
    assert_nothing_holds((SECRET,), tmp_path)
    assert b"Incorrect API key provided: [redacted]." in load_recording(flow.capture).body


def test_a_key_in_the_query_is_forwarded_but_kept_out_of_the_capture(
    echo_proxy: ProxyServer, tmp_path: Path
) -> None:
    proxied = post(echo_proxy.url, f"/v1/chat/completions?key={SECRET}", {"model": "echo"})
    assert SECRET.encode() in proxied.content  # the upstream got it, and echoed it
    (flow,) = echo_proxy.log.flows
    assert "key=" not in load_recording(flow.capture).header["request"]["url"]
    assert_nothing_holds((SECRET,), tmp_path)


# -- what crosses the proxy ------------------------------------------------------------------


def test_the_upstream_gets_the_apps_headers_without_hop_by_hop_ones_accept_encoding_too(
    echo: EchoUpstream, echo_proxy: ProxyServer
) -> None:
    post(
        echo_proxy.url,
        "/v1/chat/completions",
        {"model": "headers"},
        **{"user-agent": "my-app/1.0", "x-custom": "kept", "te": "trailers",
           "connection": "keep-alive, x-private", "x-private": "hop",
           "accept-encoding": "gzip, br"},
    )  # fmt: skip
    (seen,) = echo.seen_headers
    assert seen["user-agent"] == "my-app/1.0" and seen["x-custom"] == "kept"
    assert seen["accept-encoding"] == "gzip, br"
    assert seen["host"] == echo.url.removeprefix("http://")
    assert "te" not in seen and "x-private" not in seen


def test_a_compressed_upstream_body_is_forwarded_as_sent_and_recorded_decoded(
    echo_proxy: ProxyServer,
) -> None:
    proxied = post(echo_proxy.url, "/v1/chat/completions", {"model": "gzip"})
    assert proxied.headers["content-encoding"] == "gzip"  # the body matches its headers
    assert b"squeezed" in proxied.content  # (httpx decoded it for us, as any client would)
    (flow,) = echo_proxy.log.flows
    wait_for(lambda: not flow.live, "the flow ends")  # (it records after the app's copy)
    assert load_recording(flow.capture).body == proxied.content


def open_stream(client: httpx.Client, proxy: ProxyServer, model: str) -> Any:
    return client.stream("POST", proxy.url + "/v1/chat/completions", json={"model": model})


def test_each_chunk_is_in_the_capture_while_the_stream_is_still_open(
    echo: EchoUpstream, echo_proxy: ProxyServer
) -> None:
    with httpx.Client(timeout=10) as client, open_stream(client, echo_proxy, "hold") as response:
        chunks = response.iter_raw()
        first = next(chunks)
        assert b"first" in first
        (flow,) = echo_proxy.log.flows
        # Forwarded first, recorded right after: written through, not held to the end.
        wait_for(lambda: load_recording(flow.capture).body == first, "the chunk on disk")
        assert flow.live
        echo.gate.set()
        rest = b"".join(chunks)
    assert b" second" in rest
    wait_for(lambda: not flow.live, "the flow ends")
    assert load_recording(flow.capture).body == first + rest


def test_an_app_that_hangs_up_mid_stream_leaves_a_cancelled_capture(
    echo_proxy: ProxyServer,
) -> None:
    with httpx.Client(timeout=10) as client, open_stream(client, echo_proxy, "hold") as response:
        next(response.iter_raw())
    (flow,) = echo_proxy.log.flows
    wait_for(lambda: not flow.live, "the flow ends after the app left")
    recording = load_recording(flow.capture)
    assert recording.end is not None and recording.end.reason == "cancelled"
    assert flow.state == "interrupted (cancelled)"


def test_a_non_streaming_response_passes_unchanged_and_is_not_recorded(
    echo: EchoUpstream, echo_proxy: ProxyServer, tmp_path: Path
) -> None:
    direct = post(echo.url, "/v1/chat/completions", {"model": "json"})
    proxied = post(echo_proxy.url, "/v1/chat/completions", {"model": "json"})
    assert proxied.content == direct.content
    assert proxied.headers["content-type"] == "application/json"
    (flow,) = echo_proxy.log.flows
    assert flow.state == "passed" and flow.capture is None
    assert captures_in(tmp_path) == []


@pytest.mark.parametrize(
    ("host", "status"),
    [("rebound.example.com:8790", 421), ("127.0.0.1.nip.io", 421), ("localhost", 200)],
)
def test_only_a_host_header_naming_this_machine_is_served(
    proxy: ProxyServer, host: str, status: int
) -> None:
    with httpx.Client(timeout=10) as client:
        response = client.post(
            proxy.url + "/v1/chat/completions",
            json={"model": "text-simple"},
            headers={"host": host},
        )
    assert response.status_code == status
    assert proxy.log.count == (status == 200)


def test_a_request_body_over_the_bound_is_refused(replay: ReplayServer, tmp_path: Path) -> None:
    with proxying(replay.url, tmp_path, max_body=1000) as proxy:
        response = post(proxy.url, "/v1/chat/completions", {"model": "x" * 2000})
    assert response.status_code == 413
    assert "1000 bytes" in response.json()["error"]["message"]
    assert proxy.log.count == 0


def raw_request(proxy: ProxyServer, target: bytes) -> bytes:
    """Send a request line httpx would not (a raw target); the status line that came back."""
    body = b'{"model": "echo"}'
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(
            b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        return sock.recv(4096).split(b"\r\n", 1)[0]


def test_a_request_target_cannot_send_the_proxy_to_another_host(
    echo_proxy: ProxyServer,
) -> None:
    # A path that looks like a network path still goes to the upstream (which has no such path).
    assert (
        raw_request(echo_proxy, b"//127.0.0.2:9/v1/chat/completions") == b"HTTP/1.1 404 Not Found"
    )
    (flow,) = echo_proxy.log.flows
    assert flow.status == 404 and flow.path == "/127.0.0.2:9/v1/chat/completions"  # normalized
    # An absolute-form target naming another host is refused, not forwarded.
    for target in (b"http://127.0.0.2:9/v1/chat/completions", b"*"):
        assert raw_request(echo_proxy, target) == b"HTTP/1.1 400 Bad Request"
    assert echo_proxy.log.count == 1
