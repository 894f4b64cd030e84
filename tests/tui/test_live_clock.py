"""The live clock: time without progress and what is left before a timeout gives up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.live import LiveFeed, build_request
from inspector.serve import ReplayServer, load_catalog
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import StatusLine
from inspector.viewmodel.liveclock import QUIET, LiveClock

from ..conftest import ROOT
from .helpers import plain

DELTA = {"type": "block.delta"}
PING = {"type": "stream.heartbeat"}


def test_connecting_and_waiting_count_from_their_start_against_the_transport_timeout() -> None:
    clock = LiveClock(started=100.0)
    clock.saw(103.0, [], 0, response=False)
    assert clock.words("connecting", 103.0, progress_timeout=120, transport_timeout=60) == (
        "3 s · gives up in 57 s"
    )
    clock.saw(104.0, [], 0, response=True)
    assert clock.words("waiting", 109.0, progress_timeout=120, transport_timeout=60) == (
        "5 s · gives up in 55 s"
    )


def test_receiving_says_nothing_until_progress_stops_for_a_while() -> None:
    clock = LiveClock(started=0.0)
    clock.saw(1.0, [DELTA], 10, response=True)
    assert clock.words("receiving", 1.0 + QUIET - 0.1, progress_timeout=20,
                       transport_timeout=60) is None  # fmt: skip


@pytest.mark.parametrize("pings", [3, 10, 17])
def test_pings_do_not_reset_the_progress_clock_and_the_countdown_says_so(pings: int) -> None:
    clock = LiveClock(started=0.0)
    events: list[dict[str, str]] = [DELTA]
    clock.saw(1.0, events, 10, response=True)
    for second in range(2, 2 + pings):
        events.append(PING)
        clock.saw(float(second), events, 10 + second, response=True)
    now = 1.0 + pings + 0.5
    words = clock.words("receiving", now, progress_timeout=20, transport_timeout=60)
    assert (
        words
        == f"pings only: no progress for {now - 1:.0f} s · progress timeout in {21 - now:.0f} s"
    )
    # A meaningful event resets it.
    events.append(DELTA)
    clock.saw(now, events, 999, response=True)
    assert clock.words("receiving", now + 1, progress_timeout=20, transport_timeout=60) is None


def test_a_silent_line_counts_to_the_nearer_of_the_two_timeouts() -> None:
    clock = LiveClock(started=0.0)
    clock.saw(1.0, [DELTA], 10, response=True)
    assert clock.words("receiving", 6.0, progress_timeout=120, transport_timeout=30) == (
        "nothing received for 5 s · gives up in 25 s"
    )
    assert clock.words("receiving", 6.0, progress_timeout=8, transport_timeout=30) == (
        "nothing received for 5 s · gives up in 3 s"
    )
    assert clock.words("receiving", 6.0, progress_timeout=None, transport_timeout=None) == (
        "nothing received for 5 s"
    )


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer(load_catalog([ROOT / "captures"]), speed=0.0) as running:
        yield running


async def test_a_stall_behind_pings_shows_its_countdown_in_the_status_line(
    server: ReplayServer, tmp_path: Path
) -> None:
    url = f"{server.url}?stall=30&stall_at=800&ping_every=0.2"
    request = build_request("openai-chat", model="text-simple", prompt="hi", base_url=url)
    feed = LiveFeed(request, capture=tmp_path / "c.jsonl", progress_timeout=40)
    app = InspectorApp(feed)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        status = ""
        for _ in range(100):  # bounded: QUIET seconds and a few repaints
            await pilot.pause(0.1)
            status = plain(screen.query_one(StatusLine))
            if "pings only" in status:
                break
        assert "● receiving" in status
        assert "⚠ pings only: no progress for " in status and " · progress timeout in " in status
        left = int(status.split("progress timeout in ")[1].split()[0])
        assert 30 <= left < 40
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "pings only" not in plain(screen.query_one(StatusLine))


def test_in_80_columns_the_countdown_stays_in_its_short_form() -> None:
    from rich.text import Text

    from inspector.tui.widgets.status import Segment, _short_clock, fit

    clock = "pings only: no progress for 12 s · progress timeout in 18 s"
    assert _short_clock(clock) == "pings 12 s · ends in 18 s"
    segments = [
        Segment(100, Text("● receiving")),
        Segment(100, Text("frame 9 of 0–9 · event 11 of 11")),
        Segment(95, Text("◉ live · following"), Text("◉ live")),
        Segment(97, Text(f"⚠ {clock}"), Text(f"⚠ {_short_clock(clock)}")),
        Segment(70, Text("violations 0 · rejected 0 · ignored 0")),
        Segment(20, Text("· rec.jsonl")),
    ]
    line = fit(segments, 80).plain
    assert "⚠ pings 12 s · ends in 18 s" in line and len(line) <= 80
    wide = fit(segments, 200).plain
    assert f"⚠ {clock}" in wide and "◉ live · following" in wide
