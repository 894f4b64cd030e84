"""The status line: what is open, where the cursor is, what the stream did."""

from __future__ import annotations

from pathlib import PurePath

from rich.text import Text

from ..cursor import Cursor, Player
from ..index import LONG_GAP, TraceIndex
from ..rows import state_text
from ..textsafe import one_line
from .textview import TextView

__all__ = ["StatusLine", "source_label", "status_text"]


def source_label(source: str | None) -> str:
    """A file shown as its folder and name (stable across machines); anything else as is."""
    if not source:
        return "(no source)"
    if "://" in source or source.startswith(("replay ·", "live ·")):
        return source
    parts = PurePath(source).parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else source


def _model(index: TraceIndex) -> str | None:
    trace = index.trace
    if index.n_events:
        first = trace.events[0]
        if first.get("type") == "stream.start" and isinstance(first.get("model"), str):
            return str(first["model"])
    header = trace.header or {}
    model = header.get("model")
    return model if isinstance(model, str) else None


def status_text(
    index: TraceIndex,
    cursor: Cursor,
    player: Player,
    source: str,
    live: bool,
) -> Text:
    """The whole status line as of the cursor (stream-wide figures on the right)."""
    trace = index.trace
    text = Text(no_wrap=False, end="")
    text.append(" inspector", "bold")
    text.append(" · ", "dim")
    text.append_text(one_line(trace.provider or "?", 40, "bold cyan"))
    model = _model(index)
    if model:
        text.append(" · ", "dim")
        text.append_text(one_line(model, 60))
    text.append(" · ", "dim")
    text.append_text(one_line(source, 80, "italic"))
    text.append("  ● ", "bold")
    text.append_text(state_text(index.stream_state_at(cursor.k)))
    n = index.n_frames
    if cursor.position < 0:
        where = f"frame –/{n}"
    elif cursor.on_end_row:
        where = f"end/{n}"
    else:
        where = f"frame {cursor.position}/{n}"
    selected = 0 if cursor.event is None else cursor.event + 1
    text.append(f"  {where} · event {selected}/{index.n_events}", "bold")
    ttfc = index.time_to_first_content()
    text.append("  TTFC ", "dim")
    text.append("—" if ttfc is None else f"{ttfc * 1000:.0f} ms")
    text.append(" · max gap ", "dim")
    text.append(
        f"{index.max_gap * 1000:.0f} ms", "bold yellow" if index.max_gap >= LONG_GAP else ""
    )
    text.append(" · ignored ", "dim")
    ignored = index.problems.ignored
    text.append(str(len(ignored)), "yellow" if ignored else "")
    text.append(" · violations ", "dim")
    violations = index.problems.violations
    text.append(str(len(violations)), "bold red" if violations else "green")
    if player.playing:
        text.append(f"   ▶ playing {player.speed:g}×", "bold green")
    elif player.speed != 1.0:
        text.append(f"   ⏸ {player.speed:g}×", "dim")
    if player.stopped_by == "breakpoint" and not player.playing:
        text.append("   ● stopped at a breakpoint", "bold red")
    if cursor.breakpoints:
        text.append(f"   ● {len(cursor.breakpoints)} breakpoint(s)", "red")
    if live:
        text.append("   ◉ live", "bold magenta")
        if cursor.follow:
            text.append(" · following", "magenta")
    return text


class StatusLine(TextView):
    """The line at the top of the main screen (see :func:`status_text`)."""
