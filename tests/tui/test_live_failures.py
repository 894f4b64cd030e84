"""A live request that never reaches a server reads as no connection, not as a reset."""

from __future__ import annotations

import socket
from pathlib import Path

from inspector.live import LiveFeed, build_request
from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import FramesList
from inspector.tui.widgets.gaps import GapStrip

from .helpers import app_for, rows


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timeline_labels(screen: MainScreen) -> str:
    strip = screen.query_one(GapStrip)
    return strip.labels(strip.buckets(), strip.size.width).plain


async def test_a_refused_connection_says_no_connection_live_and_from_its_capture(
    tmp_path: Path,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    request = build_request("openai-chat", model="m", prompt="hi", base_url=url)
    capture = tmp_path / "refused.jsonl"
    feed = LiveFeed(request, capture=capture, transport_timeout=5)
    for make in (lambda: InspectorApp(feed), lambda: app_for(capture)):
        app = make()  # the capture is read once the live session wrote it
        async with app.run_test(size=(200, 50)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MainScreen)
            end_row = rows(screen.query_one(FramesList))[-1]
            assert "■ end of bytes · no connection after " in end_row, end_row
            assert "reset" not in end_row
            assert timeline_labels(screen) == "no frames: no connection was made"
    assert load_trace(capture).transport_end.reason == "reset"  # type: ignore[union-attr]
