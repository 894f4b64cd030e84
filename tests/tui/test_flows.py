"""``inspector proxy``'s TUI: the flow list fills as exchanges happen and opens each one.

The proxy serves in the app's own event loop, so the test's async httpx
client, the proxy and the app share one loop; the upstream (``inspector
serve`` or the echoing upstream) runs in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from inspector.capture import load_recording
from inspector.proxy import FlowLog, ProxyServer, ProxySettings
from inspector.serve import ReplayServer
from inspector.session import load_trace
from inspector.tui.screens.flows import FlowsScreen, ProxyApp
from inspector.tui.screens.main import MainScreen

from ..conftest import ROOT
from ..test_live_helpers import serving
from ..test_proxy_helpers import EchoUpstream

SIZE = (170, 40)


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    with serving(ROOT / "captures") as server:
        yield server


def proxy_app(upstream: str, directory: Path, limit: int = 100) -> ProxyApp:
    server = ProxyServer(FlowLog(directory, limit), ProxySettings(upstream=upstream))
    return ProxyApp(server, upstream=upstream)


async def until(pilot: Pilot[int], condition: Callable[[], bool], what: str) -> None:
    """Let the app run until ``condition()`` holds (bounded; nothing here is timed)."""
    for _ in range(1000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


def table_rows(screen: FlowsScreen) -> list[list[str]]:
    table: DataTable[object] = screen.query_one(DataTable)
    return [
        [getattr(cell, "plain", str(cell)) for cell in table.get_row_at(i)]
        for i in range(table.row_count)
    ]


async def test_each_exchange_gets_a_row_and_enter_opens_its_capture_on_the_four_panes(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.server.server.started, "the proxy listens")
        async with httpx.AsyncClient(base_url=app.server.url, timeout=10) as client:
            ok = await client.post("/v1/messages", json={"model": "tool-call-fragmented-json"})
            limited = await client.post(
                "/v1/chat/completions?status=429", json={"model": "text-simple"}
            )
            listing = await client.get("/")
        assert (ok.status_code, limited.status_code, listing.status_code) == (200, 429, 200)
        screen = app.screen
        assert isinstance(screen, FlowsScreen)
        await until(pilot, lambda: len(table_rows(screen)) == 3, "three rows")
        await until(pilot, lambda: "passed" in table_rows(screen)[2][5], "the last row settles")
        rows = table_rows(screen)
        assert rows[0][:6] == ["1", "POST", "/v1/messages", "tool-call-fragmented-json", "200",
                               "completed (tool_calls)"]  # fmt: skip
        assert rows[1][:6] == [
            "2", "POST", "/v1/chat/completions", "text-simple", "429", "failed (rate_limited)",
        ]  # fmt: skip
        assert rows[2][:6] == ["3", "GET", "/", "—", "200", "passed"]

        await pilot.press("enter")  # the first row
        main = app.screen
        assert isinstance(main, MainScreen) and main.feed is None
        (capture, *_) = sorted(tmp_path.glob("*.jsonl"))
        assert main.trace.events == load_trace(capture).events
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the list")

        await pilot.press("down", "down", "enter")  # not recorded: a notice, no screen
        assert app.screen is screen
        await pilot.press("q")
    assert app.server.log.count == 3


async def test_a_flow_opened_while_it_streams_is_followed_live_until_it_ends(
    tmp_path: Path,
) -> None:
    with EchoUpstream() as upstream:
        app = proxy_app(upstream.url, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.server.server.started, "the proxy listens")
            async with httpx.AsyncClient(base_url=app.server.url, timeout=10) as client:
                request = asyncio.create_task(
                    client.post("/v1/chat/completions", json={"model": "hold"})
                )
                log = app.server.log
                await until(pilot, lambda: log.count == 1 and log.flows[0].bytes > 0, "a chunk")
                flow = log.flows[0]
                listed = app.screen
                await until(pilot, lambda: table_rows(listed)[0][5] == "streaming", "its row")
                await pilot.press("enter")
                main = app.screen
                assert isinstance(main, MainScreen) and main.feed is not None
                await until(pilot, lambda: main.feed_running, "following")
                assert main.cursor.follow and main.trace.state == "receiving"

                upstream.gate.set()
                response = await request
            await until(pilot, lambda: not flow.live and not main.feed_running, "the end")
            assert response.status_code == 200
            assert main.trace.state == "completed"
            assert main.cursor.at_end
            assert flow.trace is None  # the proxy keeps no finished trace; the screen has it
            await pilot.press("escape")
            await until(pilot, lambda: "completed" in table_rows(app.screen)[0][5], "settled")


async def test_c_on_the_list_stops_a_streaming_exchange_and_resets_the_apps_connection(
    tmp_path: Path,
) -> None:
    with EchoUpstream() as upstream:
        app = proxy_app(upstream.url, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.server.server.started, "the proxy listens")
            async with httpx.AsyncClient(base_url=app.server.url, timeout=10) as client:
                request = asyncio.create_task(
                    client.post("/v1/chat/completions", json={"model": "hold"})
                )
                log = app.server.log
                await until(pilot, lambda: log.count == 1 and log.flows[0].bytes > 0, "a chunk")
                listed = app.screen
                await until(pilot, lambda: table_rows(listed)[0][5] == "streaming", "its row")
                await pilot.press("c")
                with pytest.raises(httpx.TransportError):
                    await request
            flow = log.flows[0]
            await until(pilot, lambda: not flow.live, "the flow ends")
            assert flow.state == "interrupted (cancelled)"
            assert flow.capture is not None
            end = load_recording(flow.capture).end
            assert end is not None and end.error == "stopped in the inspector"
            await until(pilot, lambda: "cancelled" in table_rows(listed)[0][5], "the row says so")


async def test_the_list_forgets_what_the_log_forgets_and_the_captures_stay(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path, limit=2)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.server.server.started, "the proxy listens")
        async with httpx.AsyncClient(base_url=app.server.url, timeout=10) as client:
            for _ in range(3):
                await client.post("/v1/messages", json={"model": "text-simple"})
        listed = app.screen
        await until(pilot, lambda: app.server.log.count == 3, "three exchanges")
        await until(pilot, lambda: [r[0] for r in table_rows(listed)] == ["2", "3"], "two rows")
    assert len(list(tmp_path.glob("*.jsonl"))) == 3


async def test_quitting_mid_stream_closes_the_open_capture_as_cancelled(tmp_path: Path) -> None:
    with EchoUpstream() as upstream:
        app = proxy_app(upstream.url, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.server.server.started, "the proxy listens")
            client = httpx.AsyncClient(base_url=app.server.url, timeout=10)
            request = asyncio.create_task(
                client.post("/v1/chat/completions", json={"model": "hold"})
            )
            log = app.server.log
            await until(pilot, lambda: log.count == 1 and log.flows[0].bytes > 0, "a chunk")
            await pilot.press("q")
        with pytest.raises(httpx.TransportError):
            await request  # not a clean end for the app
        await client.aclose()
    (flow,) = log.flows
    assert flow.state == "interrupted (cancelled)"
    assert flow.capture is not None
    end = load_recording(flow.capture).end
    assert end is not None and (end.reason, end.error) == ("cancelled", "the proxy stopped")
