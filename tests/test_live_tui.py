"""A LiveFeed driven by the TUI, as ``inspector live`` runs it, against the replay server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.live import LiveFeed, build_request
from inspector.serve import ReplayServer
from inspector.session import load_trace
from inspector.tui import InspectorApp

from .test_live_helpers import CHAT, serving, without_ids


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving(CHAT) as running:
        yield running


def _feed(url: str, capture: Path, model: str = "openai-tool-call-fragmented") -> LiveFeed:
    request = build_request("openai-chat", model=model, prompt="hi", base_url=url)
    return LiveFeed(request, capture=capture, progress_timeout=30)


async def test_the_tui_runs_a_live_feed_to_its_end(server: ReplayServer, tmp_path: Path) -> None:
    feed = _feed(server.url, tmp_path / "c.jsonl")
    app = InspectorApp(feed)
    async with app.run_test() as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert feed.trace.state == "completed"
    expected = load_trace(CHAT / "openai-tool-call-fragmented.sse").events
    assert without_ids(feed.trace.events) == without_ids(expected)
    assert load_trace(tmp_path / "c.jsonl").events == expected


async def test_key_c_cancels_the_stream_and_the_capture_says_so(
    server: ReplayServer, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    feed = _feed(
        f"{server.url}?stall=60&stall_at=1200&ping_every=0.05", capture, "openai-text-plain"
    )
    app = InspectorApp(feed)
    async with app.run_test() as pilot:
        for _ in range(600):  # bounded: the stall starts within the first frames
            if any(e["type"] == "stream.heartbeat" for e in feed.trace.events):
                break
            await pilot.pause(0.01)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        assert feed.trace.terminal_event["error"]["category"] == "cancelled"  # type: ignore[index]
    rec = load_recording(capture)
    assert rec.end is not None and rec.end.reason == "cancelled"
    assert any(e["type"] == "block.delta" for e in load_trace(capture).events)


async def test_quitting_mid_stream_still_closes_the_capture(
    server: ReplayServer, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    feed = _feed(
        f"{server.url}?stall=60&stall_at=1200&ping_every=0.05", capture, "openai-text-plain"
    )
    app = InspectorApp(feed)
    async with app.run_test() as pilot:
        for _ in range(600):
            if feed.trace.chunks:
                break
            await pilot.pause(0.01)
        await pilot.press("q")
    feed.settle_cancelled()  # what `inspector live` does once the TUI has closed
    rec = load_recording(capture)
    assert rec.end is not None and rec.end.reason == "cancelled"
    assert rec.body == b"".join(chunk.data for chunk in feed.trace.chunks)


@pytest.mark.parametrize(
    ("row", "capture"),
    [("bedrock-converse", "bedrock-converse/tool-use"), ("ollama", "ollama/chat-thinking")],
)
async def test_the_tui_follows_a_binary_and_an_ndjson_live_stream_to_its_end(
    tmp_path: Path, row: str, capture: str
) -> None:
    from .conftest import CAPTURES

    source = CAPTURES / f"{capture}.jsonl"
    with serving(source.parent) as upstream:
        request = build_request(row, model=source.stem, prompt="hi", base_url=upstream.url)
        feed = LiveFeed(request, capture=tmp_path / "c.jsonl", progress_timeout=30)
        app = InspectorApp(feed)
        async with app.run_test() as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert feed.trace.outcome == load_trace(source).outcome
    expected = load_trace(source).events
    assert without_ids(feed.trace.events) == without_ids(expected)
    assert without_ids(load_trace(tmp_path / "c.jsonl").events) == without_ids(expected)
