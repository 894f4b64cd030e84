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
from hypothesis import given
from hypothesis import strategies as st
from textual.pilot import Pilot
from textual.widgets import DataTable

from inspector.capture import load_recording
from inspector.proxy import FlowLog, ProxyServer, ProxySettings
from inspector.serve import ReplayServer
from inspector.session import load_trace
from inspector.tui.screens.flows import COLUMNS, FlowsScreen, ProxyApp
from inspector.tui.screens.main import MainScreen

from ..conftest import ROOT
from ..test_live_helpers import serving
from ..test_proxy_helpers import EchoUpstream
from .helpers import plain

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


def header(screen: FlowsScreen) -> str:
    return screen.header_text().plain


async def three_flows(app: ProxyApp, pilot: Pilot[int]) -> FlowsScreen:
    """Three exchanges through the proxy: a text, a tool call, a 429."""
    await until(pilot, lambda: app.server.server.started, "the proxy listens")
    async with httpx.AsyncClient(base_url=app.server.url, timeout=10) as client:
        await client.post("/v1/chat/completions", json={"model": "text-simple", "stream": True})
        await client.post("/v1/messages", json={"model": "tool-call-fragmented-json"})
        await client.post("/v1/chat/completions?status=429", json={"model": "text-simple"})
    screen = app.screen
    assert isinstance(screen, FlowsScreen)
    await until(pilot, lambda: len(table_rows(screen)) == 3, "three rows")
    await until(pilot, lambda: not any(f.live for f in screen.flows.values()), "all ended")
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_the_header_says_where_it_listens_upstream_folder_and_recipe_before_any_request(
    replay: ReplayServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.server.server.started, "the proxy listens")
        screen = app.screen
        assert isinstance(screen, FlowsScreen)
        shown = plain(screen.query_one("#flows-header"))
        url = app.server.url
        expected = [
            f"listening on {url}", f"upstream {replay.url}", f"recording to {tmp_path}",
            f"OPENAI_BASE_URL={url}/v1", f"ANTHROPIC_BASE_URL={url}",
            f"GOOGLE_GEMINI_BASE_URL={url}", "waiting for the first request",
        ]  # fmt: skip
        for words in expected:
            assert words in shown.replace("\n", " "), words


async def test_slash_filters_by_words_and_fields_and_says_how_many_are_shown(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_flows(app, pilot)
        await pilot.press("slash", *"status:4xx")
        assert [r[0] for r in table_rows(screen)] == ["3"]
        assert "1 of 3 exchanges shown" in header(screen)
        await pilot.press("enter")
        await pilot.press("escape")  # the bar is closed: clears the filter
        assert [r[0] for r in table_rows(screen)] == ["1", "2", "3"]
        await pilot.press("slash", *"provider:anthropic tool")
        assert [r[0] for r in table_rows(screen)] == ["2"]
        await pilot.press("ctrl+u", *"nothing-like-this")
        assert table_rows(screen) == []
        assert "nothing matches: escape clears the filter" in header(screen)


async def test_s_sorts_by_the_next_column_and_delete_takes_a_row_off_the_list(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_flows(app, pilot)
        by_bytes = sorted(screen.flows.values(), key=lambda f: (f.bytes, f.number), reverse=True)
        await pilot.press("s", "s")  # duration, then bytes
        assert "sorted by bytes" in header(screen)
        assert [r[0] for r in table_rows(screen)] == [str(f.number) for f in by_bytes]
        await pilot.press("home", "delete")
        assert str(by_bytes[0].number) not in [r[0] for r in table_rows(screen)]
        assert "2 of 3 exchanges shown" in header(screen)
        assert len(list(tmp_path.glob("0000*.jsonl"))) == 3, "every capture stays"


async def test_r_replays_a_recorded_request_against_serve_with_faults_and_follows_it(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_flows(app, pilot)
        await pilot.press("home", "r")
        from textual.widgets import Input

        dialog = app.screen
        assert dialog.query_one("#replay-target", Input).value == replay.url
        await pilot.press("tab", *"cut=900", "enter")
        main = app.screen
        assert isinstance(main, MainScreen) and main.feed is not None
        await until(pilot, lambda: main.feed_ended, "the replay ends")
        assert "◉ live · ended" in plain(main.query_one("#status"))
        # cut=900: the server ended the body cleanly after 900 bytes, mid-stream.
        assert main.trace.chunks.bytes_received == 900
        assert main.trace.state == "interrupted"
        (recorded,) = tmp_path.glob("replay-of-00001-*.jsonl")
        assert load_recording(recorded).end is not None
        await pilot.press("escape")
        assert app.screen is screen


async def test_space_marks_two_flows_and_shift_d_diffs_them(
    replay: ReplayServer, tmp_path: Path
) -> None:
    from inspector.tui.screens.diff import DiffScreen

    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_flows(app, pilot)
        await pilot.press("D")
        assert app.screen is screen, "nothing marked: a notice"
        await pilot.press("home", "space", "down", "space")
        assert screen.marked == ["1", "2"]
        assert table_rows(screen)[0][0] == "● 1"
        await pilot.press("D")
        assert isinstance(app.screen, DiffScreen)
        await pilot.press("escape")
        assert app.screen is screen


def test_a_recorded_request_as_curl_keeps_secrets_redacted_and_quotes_the_body() -> None:
    from inspector.tui.screens.flows import curl_command

    command = curl_command({"request": {
        "method": "POST", "url": "http://h/v1/chat/completions",
        "headers": {"authorization": "[redacted]", "content-type": "application/json"},
        "body": {"model": "m", "messages": [{"role": "user", "content": "it's"}]},
    }})  # fmt: skip
    assert command is not None
    assert command.startswith("curl -N -X 'POST' 'http://h/v1/chat/completions'")
    assert "-H 'authorization: [redacted]'" in command
    assert """--data-raw '{"model":"m","messages":[{"role":"user","content":"it'\\''s"}]}'""" in (
        command
    )


async def test_end_and_home_move_the_selection_to_the_last_and_the_first_flow(
    replay: ReplayServer, tmp_path: Path
) -> None:
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_flows(app, pilot)
        table = screen.query_one(DataTable)
        await pilot.press("end")
        assert table.cursor_coordinate.row == 2
        await pilot.press("home")
        assert table.cursor_coordinate.row == 0


async def test_x_exports_a_flow_as_a_cassette_vcrpy_replays_to_the_golden_events(
    replay: ReplayServer, tmp_path: Path
) -> None:
    """The flow's capture, anonymized and verified, then written as a cassette beside it."""
    from textual.widgets import Button, Input, Static

    from inspector.tui.screens.export import ExportDialog

    from ..test_interop_export import golden
    from ..test_interop_export import replay as replay_cassette

    out = tmp_path / "out"
    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await three_flows(app, pilot)
        await pilot.press("home", "down", "x")  # #2, the anthropic tool call
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        field = dialog.query_one("#export-directory", Input)
        field.value = str(out)
        await pilot.click("#export-cassette")
        dialog.query_one("#export-run", Button).focus()
        await pilot.press("enter")
        outcome = dialog.query_one("#export-outcome", Static)
        await until(pilot, lambda: "Export" in plain(outcome)[:12], "the export's outcome")
        shown = plain(outcome)
    (capture,) = (p for p in out.glob("*.jsonl") if not p.name.endswith(".events.jsonl"))
    assert capture.name.startswith("00002-anthropic-")
    stem = capture.name.removesuffix(".jsonl")
    cassette = out / f"{stem}.yaml"
    assert "✓ Exported 4 files" in shown
    assert f"cassette  {cassette}" in shown
    assert "chunking and timing are not kept" in shown
    assert replay_cassette(cassette, "anthropic") == golden(out / f"{stem}.events.jsonl")


@pytest.mark.parametrize("size", [(80, 24), (120, 30), (200, 50)])
async def test_every_column_fits_the_terminal_and_a_cut_cell_ends_in_an_ellipsis(
    replay: ReplayServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    from inspector.tui.screens.flows import column_widths

    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await three_flows(app, pilot)
        widths = column_widths(size[0])
        table: DataTable[object] = screen.query_one(DataTable)
        assert table.virtual_size.width <= size[0], "nothing off the right edge"
        for column in table.columns.values():
            assert column.label.cell_len <= column.width, column.label
        for row in range(table.row_count):
            flow = screen.flows[screen.shown[row]]
            full = {"path": flow.path, "model": flow.model or "—"}
            cells = dict(zip([k for k, _, _ in COLUMNS], table.get_row_at(row), strict=True))
            for key, text in full.items():
                shown = cells[key].plain
                assert len(shown) <= widths[key]
                if len(text) > widths[key]:
                    assert shown.endswith("…") and text.startswith(shown[:-1]), (key, shown)
                else:
                    assert shown == text, (key, shown)


@given(st.integers(0, 400), st.integers(0, 40))
def test_the_flexible_columns_share_the_width_within_their_bounds(width: int, more: int) -> None:
    from inspector.tui.screens.flows import FLEXIBLE, column_widths

    widths, wider = column_widths(width), column_widths(width + more)
    used = sum(widths.values()) + 2 * len(COLUMNS) + 2
    least = all(widths[key] == low for key, low, _, _ in FLEXIBLE)
    assert used <= width or least, "over the width only at the least widths"
    for key, low, high, _ in FLEXIBLE:
        assert low <= widths[key] <= high
        assert widths[key] <= wider[key], "a wider screen never narrows a column"
    if all(widths[key] < high for key, _, high, _ in FLEXIBLE) and not least:
        assert used == width, "the width is used up while a column can grow"


async def test_while_the_filter_is_open_the_footer_lists_the_filters_keys(
    replay: ReplayServer, tmp_path: Path
) -> None:
    from .test_keys import footer_keys

    app = proxy_app(replay.url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.server.server.started, "the proxy listens")
        await pilot.pause()
        assert "/" in footer_keys(app)
        await pilot.press("slash")
        assert footer_keys(app) == ["⏎", "esc", "^p"]
        await pilot.press(*"tool", "enter")
        assert "/" in footer_keys(app) and "filter tool" in header(app.screen)  # type: ignore[arg-type]
        await pilot.press("slash", "escape")
        assert "/" in footer_keys(app)
