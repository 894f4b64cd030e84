"""A growing trace: the app runs a Feed, coalesces repaints, follows, cancels."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson

from inspector.capture import Recording, load_recording
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace, TransportEnd
from inspector.feeds import ReplayFeed
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen

from .helpers import TEXT_THEN_TOOL, panes

SIZE = (160, 40)


def many_chunks(frames: int) -> Recording:
    """An OpenAI Chat recording of ``frames`` text fragments, one per chunk, 1 ms apart."""
    chunks = []
    for i in range(frames):
        delta = {"content": f"w{i} "} if i else {"role": "assistant", "content": ""}
        body = {"object": "chat.completion.chunk", "model": "gpt-live",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}  # fmt: skip
        chunks.append((i * 0.001, b"data: " + orjson.dumps(body) + b"\n\n"))
    done = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {},
            "finish_reason": "stop"}]}  # fmt: skip
    chunks.append((frames * 0.001, b"data: " + orjson.dumps(done) + b"\n\ndata: [DONE]\n\n"))
    return Recording("live/many.jsonl", "capture", {"provider": "openai-chat"}, chunks,
                     TransportEnd("eof", frames * 0.001))  # fmt: skip


async def test_a_fast_replay_fills_every_pane_and_repaints_far_less_than_it_notifies() -> None:
    feed = ReplayFeed(many_chunks(2000), speed=1e9)
    app = InspectorApp(feed)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        throttle = app.throttle
        assert throttle is not None
        assert throttle.notifications == 2002  # every chunk, then the end
        assert throttle.repaints * 20 < throttle.notifications
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.cursor.follow and screen.cursor.at_end
        view = panes(screen)
        assert "● completed" in view.status and "◉ live · ended" in view.status
        assert len(view.frames) == 2003  # 2,001 frames and the end row
        assert view.blocks[0].splitlines()[-1].endswith("w1998 w1999 ")


class StepFeed:
    """A feed the test releases one chunk at a time (nothing timed)."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.normalizer = Normalizer("anthropic", "st_steps", source=recording.path)
        self.trace: Trace = self.normalizer.trace
        self.description = "live · https://api.example.test/v1/messages"
        self.exchange: dict[str, Any] = {
            "request": {"method": "POST", "url": "https://api.example.test/v1/messages"},
            "response": {"status": 200, "headers": {"content-type": "text/event-stream"}},
            "timings": {"connect": 0.05, "first_byte": 0.2},
        }
        self.release = asyncio.Semaphore(0)
        self.cancelled = False

    async def run(self, notify: Callable[[], None]) -> None:
        for time, data in self.recording.chunks:
            await self.release.acquire()
            if self.cancelled:
                break
            self.normalizer.feed(data, time)
            notify()
        end = TransportEnd("cancelled", None, "cancelled by the user") if self.cancelled else None
        self.normalizer.finish(end or self.recording.end)
        notify()

    def cancel(self) -> None:
        self.cancelled = True
        self.release.release()


async def settle(pilot: Any, screen: MainScreen, frames: int) -> None:
    """Wait (bounded) until the screen has indexed ``frames`` frames."""
    for _ in range(200):
        await pilot.pause(0.01)
        if screen.index.n_frames >= frames:
            return
    raise AssertionError(f"never saw {frames} frames")


async def test_follow_stops_when_the_user_steps_away_f_resumes_and_c_cancels() -> None:
    feed = StepFeed(load_recording(TEXT_THEN_TOOL))
    app = InspectorApp(feed)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert {"c", "f"} <= set(screen.active_bindings), "live keys are on while it runs"
        for _ in range(4):
            feed.release.release()
        await settle(pilot, screen, 4)
        assert screen.cursor.follow and screen.cursor.position == 3
        await pilot.press("p")
        assert not screen.cursor.follow and screen.cursor.position == 2
        feed.release.release()
        await settle(pilot, screen, 5)
        assert screen.cursor.position == 2, "not following: the cursor stays"
        await pilot.press("f")
        assert screen.cursor.follow and screen.cursor.position == 4
        await pilot.press("d")
        details = app.screen.query_one("#details-text").content.plain  # type: ignore[attr-defined]
        assert "first_byte    200 ms" in details and "live · https://api.example.test" in details
        await pilot.press("escape", "c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = panes(screen)
        assert "● interrupted" in view.status
        assert view.events[-1].split()[1:5] == ["stream.error", "interrupted", "·", "cancelled"]
        assert screen.cursor.at_end
        assert "c" not in screen.active_bindings, "nothing left to cancel"
