"""Reading what each pane of the running app shows, as plain text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.widgets import EventsList, FramesList, LineList, StatusLine, TransitionsList
from inspector.tui.widgets.blocks import BlockView

from ..conftest import ROOT

DATA = Path(__file__).resolve().parent / "data"
REAL = ROOT / "tests" / "fixtures" / "real"
ANTHROPIC_TOOL = REAL / "anthropic" / "tool-use-json-fragments.sse"
TEXT_THEN_TOOL = DATA / "anthropic-text-then-tool.jsonl"
VIOLATION = DATA / "tool-call-violation.jsonl"
UNTRUSTED = DATA / "untrusted-text.jsonl"


def app_for(path: Path, **kwargs: object) -> InspectorApp:
    """The app on one capture, as ``inspector open PATH`` builds it."""
    return InspectorApp(load_trace(path), **kwargs)  # type: ignore[arg-type]


def plain(widget: Static) -> str:
    """What a Static shows, as plain text."""
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


def rows(lines: LineList) -> list[str]:
    """Every row of a virtual list (rendered on demand, like the screen does)."""
    return [lines.row_text(i).plain for i in range(lines.rows)]


@dataclass
class Panes:
    """A snapshot of what the main screen shows, pane by pane."""

    status: str
    frames: list[str]
    frame_cursor: int | None
    frame_detail: str
    events: list[str]
    event_cursor: int | None
    event_source: str
    blocks: list[str]
    state: str
    transitions: list[str]


def panes(screen: MainScreen) -> Panes:
    """Read every pane of ``screen``."""
    frames = screen.query_one(FramesList)
    events = screen.query_one(EventsList)
    return Panes(
        status=plain(screen.query_one(StatusLine)),
        frames=rows(frames),
        frame_cursor=frames.cursor_row,
        frame_detail=plain(screen.query_one("#frame-heading", Static))
        + "\n"
        + plain(screen.query_one("#frame-data", Static)),
        events=rows(events),
        event_cursor=events.cursor_row,
        event_source=plain(screen.query_one("#event-source", Static)),
        blocks=[plain(v) for v in screen.query(BlockView) if v.display],
        state=plain(screen.query_one("#state-summary", Static)),
        transitions=rows(screen.query_one(TransitionsList)),
    )
