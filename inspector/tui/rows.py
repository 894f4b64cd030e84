"""One row of a list pane as a :class:`Text`: frames, events, transitions.

Pure functions of the index, so every list renders a row the same way and
tests can read a row without a terminal. Provider strings go through
:mod:`.textsafe`; our own words are plain literals.
"""

from __future__ import annotations

import re
from typing import Any, Final

from rich.text import Text

from ..core.trace import Transition
from .index import LONG_GAP, TraceIndex
from .textsafe import one_line, safe_text

__all__ = [
    "EVENT_STYLES",
    "STATE_STYLES",
    "event_row",
    "event_summary",
    "frame_columns",
    "frame_header",
    "frame_row",
    "short_type",
    "size_label",
    "state_text",
    "time_label",
    "transition_row",
]

STATE_STYLES: Final[dict[str, str]] = {
    "idle": "dim",
    "new": "dim",
    "open": "bold blue",
    "receiving": "bold cyan",
    "closed": "green",
    "completed": "bold green",
    "failed": "bold red",
    "interrupted": "bold yellow",
}

EVENT_STYLES: Final[dict[str, str]] = {
    "stream.start": "bold blue",
    "block.start": "cyan",
    "block.delta": "",
    "block.stop": "cyan",
    "stream.done": "bold green",
    "stream.error": "bold red",
    "stream.heartbeat": "dim",
    "stream.warning": "yellow",
}

_TYPE_PREFIX: Final = re.compile(r'\{\s*"type"\s*:\s*"([^"\\]*)"\s*,?\s*')
_SHORT_TYPES: Final = {"stream.heartbeat": "heartbeat", "stream.warning": "warning"}
_KIND_ABBREV: Final = {
    "text": "text",
    "tool_call": "tool",
    "reasoning": "reas",
    "refusal": "refu",
    "opaque": "opaq",
    "json_text": "json",
    "signature": "sig",
    "citation": "cite",
}


def state_text(state: str) -> Text:
    """A state name in its colour."""
    return Text(state, STATE_STYLES.get(state, ""))


def short_type(event_type: str) -> str:
    """The event type as the Events pane shows it (heartbeat/warning shortened)."""
    return _SHORT_TYPES.get(event_type, event_type)


def time_label(seconds: float) -> str:
    """Milliseconds below 100 s, else seconds: always at most 6 characters."""
    ms = seconds * 1000
    return f"{ms:.0f}" if ms < 100_000 else f"{seconds:.0f}s"


def size_label(size: int) -> str:
    """Bytes, or KiB/MiB past 99,999."""
    if size < 100_000:
        return str(size)
    if size < 100 * 1024 * 1024:
        return f"{size / 1024:.0f}K"
    return f"{size / 1024 / 1024:.0f}M"


def frame_columns(index: TraceIndex) -> tuple[int, bool]:
    """(width of the index column, whether to show the id column)."""
    return max(3, len(str(max(0, index.n_frames - 1)))), index.any_frame_id


def frame_header(index: TraceIndex) -> Text:
    """The column titles above the frame rows."""
    width, with_id = frame_columns(index)
    head = f"  {'#':>{width}} {'+ms':>6} {'gap':>5} {'event':<16} "
    if with_id:
        head += f"{'id':<6} "
    return Text(head + f"{'bytes':>5} data", "bold")


def frame_row(index: TraceIndex, frame: int, breakpoint: bool) -> Text:
    """One frame: markers, index, time, gap, event name, id, size, data preview."""
    trace = index.trace
    f = trace.frames[frame]
    width, with_id = frame_columns(index)
    ignored = index.problems.ignored.get(frame)
    quiet = f.comment is not None or frame in index.heartbeat_frames
    text = Text(no_wrap=True, end="", style="dim" if quiet else "")
    text.append("●" if breakpoint else " ", "bold red")
    if ignored is not None:
        text.append("⊘", "bold yellow")
    else:
        text.append("·" if quiet else " ")
    text.append(f"{frame:>{width}} {time_label(f.time):>6} ")
    gap = index.frame_gap(frame)
    if gap is None:
        text.append(f"{'—':>5} ", "dim")
    else:
        style = "bold red" if gap >= 1.0 else "bold yellow" if gap >= LONG_GAP else "dim"
        text.append(f"{time_label(gap):>5}", style)
        text.append(" ")
    label = index.frame_label(frame)
    label_style = "yellow italic" if ignored is not None else "bold" if not quiet else ""
    label_text = one_line(label, 15, label_style)
    label_text.truncate(16, overflow="ellipsis", pad=True)
    text.append_text(label_text)
    text.append(" ")
    if with_id:
        id_text = one_line(f.id, 6)
        id_text.truncate(6, overflow="ellipsis", pad=True)
        text.append_text(id_text)
        text.append(" ")
    text.append(f"{size_label(f.size):>5} ")
    if f.comment is not None:
        text.append_text(one_line(": " + f.comment, 300))
    else:
        text.append_text(one_line(_without_type(f.data, label), 300))
    return text


def _without_type(data: str, label: str) -> str:
    # The event column already says the JSON "type": the preview starts after it.
    match = _TYPE_PREFIX.match(data)
    if match is None or match.group(1) != label:
        return data
    return "{…" + data[match.end() :]


def _quote(value: str, limit: int = 120) -> Text:
    text = Text('"', "dim", end="")
    text.append_text(one_line(value, limit, "green"))
    text.append('"', "dim")
    return text


def event_summary(event: dict[str, Any]) -> Text:
    """The short description of an event shown after its type."""
    kind = event.get("type")
    text = Text(end="")
    if kind == "stream.start":
        text.append_text(one_line(str(event.get("provider", "")), 40))
        if event.get("model"):
            text.append(" · ", "dim")
            text.append_text(one_line(str(event["model"]), 60))
    elif kind == "block.start":
        if event.get("block", {}).get("kind") == "tool_call":
            text.append_text(one_line(str(event.get("name")), 40, "bold"))
            text.append(" · ", "dim")
            text.append_text(one_line(str(event.get("call_id")), 40))
        elif event.get("visibility") == "internal":
            text.append("internal", "magenta")
        elif event.get("provider_type") != event.get("block", {}).get("kind"):
            text.append_text(one_line(str(event.get("provider_type", "")), 40, "dim"))
    elif kind == "block.delta":
        delta = event.get("delta") or {}
        if delta.get("kind") == "citation":
            text.append("citation ", "dim")
            text.append_text(one_line(str(delta.get("citation")), 100))
        elif delta.get("kind") == "signature":
            text.append_text(one_line(str(delta.get("text", "")), 24, "magenta"))
        else:
            text.append_text(_quote(str(delta.get("text", ""))))
    elif kind == "stream.done":
        text.append(f"{event.get('finish_reason')}", "green")
        usage = event.get("usage") or {}
        if isinstance(usage, dict) and usage.get("output_tokens") is not None:
            text.append(f" · in {usage.get('input_tokens')} out {usage['output_tokens']}", "dim")
    elif kind == "stream.error":
        error = event.get("error") or {}
        text.append(f"{event.get('status')} · {error.get('category')} ", "red")
        text.append_text(one_line(str(error.get("message", "")), 160))
    elif kind == "stream.heartbeat":
        text.append(str(event.get("source", "")))
    elif kind == "stream.warning":
        text.append_text(one_line(f"{event.get('code')}: {event.get('message')}", 160))
    return text


def event_row(index: TraceIndex, event: int, rules: list[int], breakpoint: bool) -> Text:
    """One event: seq, type, block and kind (block events only), summary; errors in red."""
    e = index.trace.events[event]
    kind = str(e.get("type"))
    width = max(2, len(str(index.n_events)))
    failed = kind == "stream.error" or bool(rules)
    text = Text(no_wrap=True, end="", style="red" if failed else "")
    text.append("●" if breakpoint else " ", "bold red")
    text.append(f"{e.get('seq', event + 1)!s:>{width}} ")
    block = e.get("block")
    if isinstance(block, dict):
        text.append(f"{short_type(kind):<11}", EVENT_STYLES.get(kind, ""))
        text.append(f" {block.get('index', ''):>2} ")
        delta = e.get("delta")
        sub = delta.get("kind") if isinstance(delta, dict) else block.get("kind")
        text.append(f"{_KIND_ABBREV.get(str(sub), str(sub)[:4]):<5}", "dim")
    else:
        # Stream events have no block: their summary starts right after the type.
        text.append(f"{short_type(kind)} ", EVENT_STYLES.get(kind, ""))
    for rule in rules:
        text.append(f"✗ rule {rule}", "bold red reverse")
        text.append(" ")
    text.append_text(event_summary(e))
    return text


def transition_row(index: TraceIndex, transition: Transition) -> Text:
    """The frame that caused it, then ``subject before → after``."""
    text = Text(no_wrap=True, end="")
    where = f"f{transition.frame}" if transition.frame >= 0 else "end"
    text.append(f"{where:>{len(str(index.n_frames)) + 1}} ", "dim")
    stream = transition.subject == "stream"
    text.append_text(safe_text(f"{transition.subject:<6} ", "bold" if stream else ""))
    text.append(transition.before, STATE_STYLES.get(transition.before, ""))
    text.append(" → ", "dim")
    text.append(transition.after, STATE_STYLES.get(transition.after, ""))
    return text
