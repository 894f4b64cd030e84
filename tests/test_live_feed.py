"""Live mode against the replay server over loopback: no transport mocks anywhere.

The central property: recording a stream through ``inspector serve`` gives the
same normalized events as opening the file directly, and the capture written
on the way holds the same bytes (so it reopens to the very same events, ids
included).
"""

from __future__ import annotations

import asyncio
import importlib
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.capture import Recording, load_recording
from inspector.core.adapters import ADAPTERS as ALL_ADAPTERS
from inspector.library import expand_paths
from inspector.live import LiveFeed, build_request
from inspector.live.providers import PROVIDER_SPECS
from inspector.serve import ReplayServer, load_catalog
from inspector.serve.catalog import stream_name
from inspector.session import guess_provider, load_trace

from .conftest import CAPTURES
from .test_live_helpers import (
    CHAT,
    REAL,
    SECRET,
    assert_nothing_holds,
    body_of,
    record_live,
    serving,
    without_ids,
)

#: The adapters of the providers live mode streams (not yet the newer protocols').
ADAPTERS = {name: where for name, where in ALL_ADAPTERS.items() if name in PROVIDER_SPECS}


def _adapter_ready(provider: str) -> bool:
    # Adapters land one by one; a provider joins these tests once its adapter imports.
    module = ADAPTERS[provider].split(":")[0]
    try:
        importlib.import_module(f"inspector.core.adapters.{module}")
    except ImportError:
        return False
    return True


def _streams() -> list[Path]:
    found = []
    for root in (CAPTURES, REAL):
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            if folder.name in ADAPTERS and _adapter_ready(folder.name):
                found.extend(expand_paths([str(folder)]))
    return found


STREAMS = _streams()


class Servers:
    """One replay server per folder (names are unique within a folder), started on demand."""

    def __init__(self) -> None:
        self.running: dict[Path, ReplayServer] = {}

    def url_for(self, folder: Path) -> str:
        if folder not in self.running:
            self.running[folder] = ReplayServer(load_catalog([folder]), speed=0).start()
        return self.running[folder].url

    def stop(self) -> None:
        for server in self.running.values():
            server.stop()


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    pool = Servers()
    yield pool
    pool.stop()


def _replayable_exactly(rec: Recording) -> bool:
    """Whether a replay can reproduce even the terminal message.

    A recording that ended in a reset (or a timeout, or a cancel) describes
    its own recorder's transport failure in the terminal message; a replay
    breaks the connection the same way but the client words it its own way.
    """
    return (
        rec.end is not None and rec.end.reason == "eof" and not rec.end.error and not rec.problems
    )


def _comparable(events: list[dict[str, Any]], exact: bool) -> list[dict[str, Any]]:
    out = without_ids(events)
    if not exact and out and out[-1]["type"] == "stream.error":
        out[-1] = {**out[-1], "error": {**out[-1]["error"], "message": "(transport's own words)"}}
    return out


def _as_a_live_feed_knows_it(path: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """The file's events, read without a recorded request that asked for several choices.

    The live feed sends its own request, so it cannot know beforehand that a
    stream has several choices (``n`` / ``candidateCount``); it learns so from
    the frames, as a capture without its request does (v1.1 ``late_choice``).
    """
    header = dict(load_recording(path).header or {})
    body = (header.get("request") or {}).get("body")
    asked = isinstance(body, dict) and (
        (body.get("n") or 1) > 1
        or ((body.get("generationConfig") or {}).get("candidateCount") or 1) > 1
    )
    if not asked:
        return load_trace(path).events
    lines = path.read_bytes().splitlines()  # a capture file: its first line is the header
    del header["request"]
    unasked = tmp_path / "unasked.jsonl"
    unasked.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    return load_trace(unasked).events


@pytest.mark.parametrize("path", STREAMS, ids=[f"{p.parent.name}/{p.name}" for p in STREAMS])
async def test_recording_through_the_server_gives_the_events_of_the_file(
    path: Path, servers: Servers, tmp_path: Path
) -> None:
    rec = load_recording(path)
    assert guess_provider(rec) is not None
    # The live row that asks the endpoint the capture is served on (they share names).
    (provider,) = load_catalog([path]).by_provider
    expected = _as_a_live_feed_knows_it(path, tmp_path)
    capture = tmp_path / "live.jsonl"

    feed = await record_live(servers.url_for(path.parent), provider, stream_name(path), capture)

    exact = _replayable_exactly(rec)
    assert _comparable(feed.trace.events, exact) == _comparable(expected, exact)
    assert body_of(capture) == rec.body
    assert _comparable(load_trace(capture).events, exact) == _comparable(expected, exact)
    if exact:
        assert load_trace(capture).events == expected  # the same bytes: the same stream id too


def test_every_provider_is_in_the_equivalence_test() -> None:
    covered = {guess_provider(load_recording(p)) for p in STREAMS}
    assert covered == {p for p in ADAPTERS if _adapter_ready(p)}
    assert "openai-chat" in covered


@pytest.fixture(scope="module")
def chat_server() -> Iterator[ReplayServer]:
    with serving(CHAT) as server:
        yield server


async def test_the_exchange_and_the_capture_header_show_request_response_and_timings(
    chat_server: ReplayServer, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    feed = await record_live(
        chat_server.url, "openai-chat", "openai-tool-call-fragmented", capture, api_key=SECRET
    )
    exchange = feed.exchange
    assert exchange["request"]["headers"]["authorization"] == "[redacted]"
    assert exchange["request"]["url"] == f"{chat_server.url}/v1/chat/completions"
    assert exchange["request"]["body"]["model"] == "openai-tool-call-fragmented"
    assert exchange["response"]["status"] == 200
    assert exchange["response"]["headers"]["content-type"].startswith("text/event-stream")
    timings = exchange["timings"]
    order = ["connect", "headers", "first_byte", "first_content", "last_byte"]
    assert set(timings) == set(order)
    assert [timings[k] for k in order] == sorted(timings[k] for k in order)
    header = load_recording(capture).header
    assert header is not None
    assert {k: header[k] for k in ("request", "response", "timings")} == exchange
    assert (header["provider"], header["endpoint"]) == ("openai-chat", "/v1/chat/completions")
    assert_nothing_holds((SECRET,), capture, orjson.dumps(exchange).decode(), feed.description)


# provider -> the provider_code its error body carries, for a 429
CODES_429 = {
    "openai-chat": "rate_limit_exceeded",
    "openai-responses": "rate_limit_exceeded",
    "anthropic": "rate_limit_error",
    "gemini": "RESOURCE_EXHAUSTED",
    "openai-completions": "rate_limit_exceeded",
    # Bedrock names its code in x-amzn-errortype; the others' bodies name none.
    "bedrock-converse": "ThrottlingException",
    "ollama": 429,
    "cohere": 429,
    "ai-sdk-ui": 429,
}
# status -> (category, retryable)
HTTP_ERRORS = {
    401: ("authentication", False),
    403: ("permission", False),
    404: ("not_found", False),
    413: ("invalid_request", False),
    429: ("rate_limited", True),
    500: ("server_error", True),
    503: ("upstream_overloaded", True),
    529: ("upstream_overloaded", True),
}
HTTP_CASES = [
    (provider, status)
    for provider in ADAPTERS
    if _adapter_ready(provider)
    for status in HTTP_ERRORS
]


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplayServer]:
    folder = tmp_path_factory.mktemp("one")
    (folder / "only.sse").write_bytes((CHAT / "openai-refusal.sse").read_bytes())
    with serving(folder) as server:
        yield server


@pytest.mark.parametrize(("provider", "status"), HTTP_CASES)
async def test_http_errors_before_the_stream_fail_with_the_right_category(
    empty_server: ReplayServer, tmp_path: Path, provider: str, status: int
) -> None:
    capture = tmp_path / "c.jsonl"
    url = f"{empty_server.url}?status={status}&retry_after=20"
    feed = await record_live(url, provider, "m", capture)
    trace = feed.trace
    category, retryable = HTTP_ERRORS[status]
    assert [e["type"] for e in trace.events] == ["stream.start", "stream.error"]
    error = trace.events[-1]["error"]
    assert (trace.state, error["category"], error["retryable"]) == ("failed", category, retryable)
    assert error["message"].startswith(f"HTTP {status}: ")
    if status == 429:
        assert error["provider_code"] == CODES_429[provider]
        assert feed.exchange["response"]["headers"]["retry-after"] == "20"
    rec = load_recording(capture)
    assert rec.status == status
    assert rec.body == b"".join(c.data for c in trace.chunks) != b""
    assert without_ids(load_trace(capture).events) == without_ids(trace.events)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


UNREACHABLE = {
    "connection refused": (
        lambda: f"http://127.0.0.1:{_closed_port()}",
        "could not connect to 127.0.0.1:",
    ),
    "no such host": (
        lambda: "http://nonexistent.invalid",
        "could not connect to nonexistent.invalid",
    ),
}


@pytest.mark.parametrize("case", UNREACHABLE)
async def test_an_unreachable_server_is_a_clear_transport_interruption(
    tmp_path: Path, case: str
) -> None:
    make_url, says = UNREACHABLE[case]
    url = make_url()
    capture = tmp_path / "c.jsonl"
    request = build_request("openai-chat", model="m", prompt="hi", base_url=url, api_key=SECRET)
    feed = LiveFeed(request, capture=capture, api_key=SECRET, transport_timeout=5)
    await feed.run(lambda: None)
    error = feed.trace.terminal_event["error"]  # type: ignore[index]
    assert (feed.trace.state, error["category"], error["retryable"]) == (
        "interrupted", "transport", True,
    )  # fmt: skip
    assert says in error["message"]
    rec = load_recording(capture)
    assert rec.header is not None and rec.header["response"] is None
    assert rec.end is not None and rec.end.reason == "reset" and says in (rec.end.error or "")
    assert load_trace(capture).state == "interrupted"
    assert_nothing_holds((SECRET,), capture)


async def test_cancel_keeps_the_draft_and_records_how_it_ended(
    tmp_path: Path, chat_server: ReplayServer
) -> None:
    capture = tmp_path / "c.jsonl"
    # The server stalls (with pings) after the third frame, long past the test.
    url = f"{chat_server.url}?stall=60&stall_at=900&ping_every=0.05"
    request = build_request("openai-chat", model="openai-text-plain", prompt="hi", base_url=url)
    feed = LiveFeed(request, capture=capture)
    mid_stream: list[str] = []

    def notify() -> None:
        if any(e["type"] == "stream.heartbeat" for e in feed.trace.events) and not mid_stream:
            # While the server stalls, the capture on disk is already readable.
            on_disk = load_trace(capture)
            assert any(e["type"] == "block.delta" for e in on_disk.events)
            mid_stream.extend(on_disk.problems)
            feed.cancel()

    await asyncio.wait_for(feed.run(notify), timeout=30)
    terminal = feed.trace.terminal_event
    assert terminal is not None and terminal["error"]["category"] == "cancelled"
    assert feed.trace.state == "interrupted"
    assert mid_stream == [
        f"{capture}: no end record — the recording stopped before the transport ended"
    ]
    drafts = [e for e in feed.trace.events if e["type"] == "block.delta"]
    assert drafts, "the text received before the cancel is kept"
    rec = load_recording(capture)
    assert rec.end is not None and rec.end.reason == "cancelled"
    assert rec.body == b"".join(c.data for c in feed.trace.chunks)
    reopened = load_trace(capture)
    assert (reopened.state, reopened.terminal_event["error"]["category"]) == (  # type: ignore[index]
        "interrupted", "cancelled",
    )  # fmt: skip


async def test_cancel_before_the_request_is_sent(tmp_path: Path) -> None:
    request = build_request("openai-chat", model="m", prompt="hi", base_url="http://127.0.0.1:9")
    feed = LiveFeed(request, capture=tmp_path / "c.jsonl")
    feed.cancel()
    await feed.run(lambda: None)
    assert feed.trace.terminal_event["error"]["category"] == "cancelled"  # type: ignore[index]


async def test_without_a_capture_path_nothing_is_written(
    tmp_path: Path, chat_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    feed = await record_live(chat_server.url, "openai-chat", "openai-refusal", None)
    assert feed.trace.state == "completed"
    assert list(tmp_path.iterdir()) == []
