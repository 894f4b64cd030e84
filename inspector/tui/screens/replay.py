"""The replay dialog (``r`` on the proxy's list): send a recorded request again, and follow it.

The request is rebuilt from the flow's capture (:mod:`~inspector.viewmodel.replay`)
and sent to the base URL in the first field — by default the one it went to
(the proxy's upstream), or ``inspector serve`` — with ``inspector serve``'s
fault parameters from the second field (``stall=3&stall_at=500``,
``status=429``, ``cut=800``: the serve query syntax). The replay is a live
session on the four panes, recorded beside the proxy's captures as
``replay-of-NNNNN-TIME.jsonl``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from ...core.trace import Trace
from ...feeds import Feed
from ...live import LiveFeed
from ...viewmodel.replay import ReplayError, replay_request, replay_target
from ...viewmodel.textsafe import one_line
from .following import follow_on_screen
from .main import MainScreen

__all__ = ["ReplayDialog", "replay_capture_path"]


def replay_capture_path(directory: Path | None, number: int) -> Path | None:
    """Where a replay of flow ``number`` is recorded (None: the proxy records nowhere)."""
    if directory is None:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return directory / f"replay-of-{number:05d}-{stamp}.jsonl"


class ReplayDialog(ModalScreen[None]):
    """Base URL and faults; enter replays, escape closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="replay.close", tooltip="Close without replaying"),
    ]

    def __init__(
        self, number: int, header: dict[str, Any], default: str, directory: Path | None
    ) -> None:
        super().__init__()
        self.number = number
        self.header = header
        self.default = replay_target(header) or default
        self.directory = directory

    def compose(self) -> ComposeResult:
        """The two fields and what they mean."""
        with Vertical(id="replay-box") as box:
            box.border_title = f"Replay #{self.number}"
            box.border_subtitle = "enter: replay · esc: close"
            request = self.header.get("request") or {}
            what = f"{request.get('method', '?')} {request.get('url', '?')}"
            yield Static(one_line(what, 300, "bold"), id="replay-what")
            with Horizontal(classes="export-row"):
                yield Label("Send to", classes="export-label")
                yield Input(self.default, id="replay-target", compact=True)
            with Horizontal(classes="export-row"):
                yield Label("Faults", classes="export-label")
                yield Input(placeholder="e.g. stall=3&stall_at=500 (inspector serve)",
                            id="replay-faults", compact=True)  # fmt: skip
            yield Static(Text("", "dim"), id="replay-outcome")

    def on_mount(self) -> None:
        """The target first: enter replays to where the request went."""
        self.query_one("#replay-target", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.replay()

    def replay(self) -> None:
        """Build the request from the fields and follow it on the four panes."""
        target = self.query_one("#replay-target", Input).value
        faults = self.query_one("#replay-faults", Input).value
        try:
            request = replay_request(self.header, target, faults)
        except ReplayError as exc:
            self.query_one("#replay-outcome", Static).update(one_line(str(exc), 300, "bold red"))
            return
        feed = LiveFeed(request, capture=replay_capture_path(self.directory, self.number))
        trace = feed.trace
        # A feed built with history (the default) records a full Trace, which the panes read.
        assert isinstance(trace, Trace)
        screen = MainScreen(
            trace, source=feed.description, feed=cast(Feed, feed), from_picker=True, position=-1
        )
        screen.cursor.follow = True
        self.dismiss(None)
        self.app.push_screen(screen)
        follow_on_screen(screen, feed, _schedule_on(screen))

    def action_close(self) -> None:
        """Back to the list."""
        self.dismiss(None)


def _schedule_on(screen: Any) -> Any:
    def schedule(delay: float, callback: Any) -> None:
        if delay <= 0:
            screen.call_later(callback)
        else:
            screen.set_timer(delay, callback)

    return schedule
