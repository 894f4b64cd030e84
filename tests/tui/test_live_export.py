"""Exporting a live session from the TUI: ``x`` then enter, against ``inspector serve``.

A real :class:`~inspector.live.LiveFeed` streams from the replay server on a
loopback port while the app shows it, as ``inspector live --base-url`` runs
it. The live recorder writes the capture's header record itself, so the
trace's header has no record keys (``type``, ``format``, ``version``); the
export must still write a capture that normalizes like the session, for
every provider, whether the stream completed or was cancelled.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.export import ExportOptions, export_capture, export_trace
from inspector.live import LiveFeed, build_request
from inspector.serve import ReplayServer, load_catalog
from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen

from ..conftest import ROOT
from .test_export_dialog import dialog_of, shown

CAPTURES = ROOT / "captures"
SIZE = (160, 44)
#: One capture per provider, each served on its own path.
STREAMS = [
    ("anthropic", "text-simple"),
    ("openai-chat", "tool-call-fragmented"),
    ("openai-responses", "text-then-tool"),
    ("gemini", "tool-call-fragmented-args"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer(load_catalog([CAPTURES]), speed=0.0) as running:
        yield running


@pytest.fixture(autouse=True)
def working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def live_feed(url: str, provider: str, model: str, capture: Path) -> LiveFeed:
    request = build_request(provider, model=model, prompt="hi", base_url=url)
    return LiveFeed(request, capture=capture, progress_timeout=30)


async def export_with_x_enter(app: InspectorApp) -> str:
    """Press ``x``, then enter (the dialog's Export button has focus); the outcome shown."""
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await pilot.press("x")
        dialog = dialog_of(app)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        return shown(dialog)


@pytest.mark.parametrize(("provider", "model"), STREAMS)
async def test_x_enter_exports_a_completed_live_session_that_normalizes_like_it(
    server: ReplayServer, working_directory: Path, provider: str, model: str
) -> None:
    capture = working_directory / "live.jsonl"
    feed = live_feed(server.url, provider, model, capture)
    outcome = await export_with_x_enter(InspectorApp(feed))
    assert outcome.startswith("✓ Exported 3 files into exports/live"), outcome
    assert "verified: skeleton identical, chunking identical" in outcome
    exported = working_directory / "exports" / "live" / "live.jsonl"
    assert load_recording(exported).kind == "capture"
    # Anonymized (ids pseudonymized, secrets removed), yet the same skeleton.
    again = load_trace(exported)
    assert [e["type"] for e in again.events] == [e["type"] for e in feed.trace.events]
    assert again.state == feed.trace.state
    # The command exporting the recorded file agrees on the skeleton.
    direct = load_trace(export_capture(capture, working_directory / "direct").files["capture"])
    assert [e["type"] for e in direct.events] == [e["type"] for e in again.events]


async def test_x_enter_exports_a_cancelled_live_session(
    server: ReplayServer, working_directory: Path
) -> None:
    capture = working_directory / "stalled.jsonl"
    url = f"{server.url}?stall=60&stall_at=400&ping_every=0.05"
    feed = live_feed(url, "openai-chat", "text-simple", capture)
    app = InspectorApp(feed)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(600):  # bounded: the stall starts within the first frames
            if any(e["type"] == "stream.heartbeat" for e in feed.trace.events):
                break
            await pilot.pause(0.01)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("x")
        dialog = dialog_of(app)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        outcome = shown(dialog)
    assert outcome.startswith("✓ Exported 3 files"), outcome
    exported = load_trace(working_directory / "exports" / "stalled" / "stalled.jsonl")
    assert exported.terminal_event is not None
    assert exported.terminal_event["error"]["category"] == "cancelled"


async def test_a_trace_whose_header_has_no_record_keys_exports_as_a_capture(
    server: ReplayServer, tmp_path: Path
) -> None:
    feed = live_feed(server.url, "anthropic", "several-blocks", tmp_path / "c.jsonl")
    await feed.run(lambda: None)
    assert feed.trace.header is not None and "type" not in feed.trace.header
    result = export_trace(feed.trace, tmp_path / "out", ExportOptions(provider="anthropic"))
    rec = load_recording(result.files["capture"])
    assert rec.kind == "capture" and rec.header is not None
    assert rec.header["model"] == "several-blocks"
    assert [len(d) for _, d in rec.chunks] == [len(c.data) for c in feed.trace.chunks]


async def test_a_live_session_names_its_recording_once_and_its_provider_and_model_once(
    server: ReplayServer, working_directory: Path
) -> None:
    from inspector.tui.widgets import StatusLine

    from .helpers import plain

    feed = live_feed(server.url, "anthropic", "text-simple", working_directory / "rec.jsonl")
    app = InspectorApp(feed)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = plain(app.screen.query_one(StatusLine))
    assert "rec.jsonl" in status
    assert status.count("anthropic") == 1, status
