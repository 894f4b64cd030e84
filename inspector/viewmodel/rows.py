"""One row of a list pane as a :class:`Text`: frames, events, transitions.

Pure functions of the index, so every list renders a row the same way and
tests can read a row without a terminal. Provider strings go through
:mod:`.textsafe`; our own words are plain literals.
"""

from __future__ import annotations

from typing import Any, Final

from rich.text import Text

from ..core.trace import Transition
from .index import LONG_GAP, TraceIndex
from .labels import LABEL_WIDTH, short_label
from .previews import Preview, frame_preview
from .textsafe import one_line, plain_value, quoted, safe_text

__all__ = [
    "EVENT_STYLES",
    "FRAME_MARKS",
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
    "aborted": "bold red",  # a block the stream's end closed: it never got its stop
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

#: How a frame that carries a problem is marked in the Frames pane (symbol, style).
FRAME_MARKS: Final[dict[str, tuple[str, str]]] = {
    "error": ("✗", "bold red"),
    "violation": ("!", "bold red"),
    "refusal": ("⚑", "bold magenta"),
}
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


def time_label(seconds: float | None) -> str:
    """Milliseconds below 100 s, else seconds: at most 6 characters; ``—`` when unknown."""
    if seconds is None:
        return "—"
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
    head = f"  {'#':>{width}} {'+ms':>6} {'gap':>5} {'event':<{LABEL_WIDTH}} "
    if with_id:
        head += f"{'id':<6} "
    return Text(head + f"{'bytes':>5} data", "bold")


def _frame_marker(mark: str | None, ignored: bool, quiet: bool) -> Text:
    # One column: a problem outranks "ignored", which outranks "quiet".
    if mark is not None:
        symbol, style = FRAME_MARKS[mark]
        return Text(symbol, style, end="")
    if ignored:
        return Text("⊘", "bold yellow", end="")
    return Text("·" if quiet else " ", end="")


def frame_row(index: TraceIndex, frame: int, breakpoint: bool) -> Text:
    """One frame: markers, index, time, gap, event name, id, size, what it carries.

    The marker column shows ``✗`` (the frame produced a ``stream.error``, or
    carries an error the stream had already ended before, or is not JSON),
    ``!`` (a violation), ``⚑`` (a refusal), ``⊘`` (ignored) or ``·`` (a
    comment or ping). The event name is abbreviated per provider
    (:func:`.labels.short_label`), and the preview shows the field that
    matters (:func:`.previews.frame_preview`).
    """
    trace = index.trace
    f = trace.frames[frame]
    width, with_id = frame_columns(index)
    ignored = index.problems.ignored.get(frame)
    quiet = f.comment is not None or frame in index.heartbeat_frames
    if f.comment is not None:
        preview = Preview(one_line(": " + f.comment, 300))
    else:
        preview = frame_preview(trace.provider, index.frame_label(frame), f.data)
    # A frame can carry an error that produced no event (ignored after the end).
    mark = index.frame_marks.get(frame) or ("error" if preview.carries_error else None)
    text = Text(no_wrap=True, end="", style="dim" if quiet else "")
    text.append("●" if breakpoint else " ", "bold red")
    text.append_text(_frame_marker(mark, ignored is not None, quiet))
    text.append(f"{frame:>{width}} ")
    when = index.frame_time(frame)
    text.append(f"{time_label(when):>6} ", "dim" if when is None else "")
    gap = index.frame_gap(frame)
    if gap is None:
        text.append(f"{'—':>5} ", "dim")
    else:
        style = "bold red" if gap >= 1.0 else "bold yellow" if gap >= LONG_GAP else "dim"
        text.append(f"{time_label(gap):>5}", style)
        text.append(" ")
    label = short_label(trace.provider, index.frame_label(frame))
    if mark is not None:
        label_style = FRAME_MARKS[mark][1]
    elif ignored is not None:
        label_style = "yellow italic"
    else:
        label_style = "bold" if not quiet else ""
    label_text = safe_text(label, label_style)
    label_text.truncate(LABEL_WIDTH, overflow="ellipsis", pad=True)
    text.append_text(label_text)
    text.append(" ")
    if with_id:
        id_text = one_line(f.id, 6)
        id_text.truncate(6, overflow="ellipsis", pad=True)
        text.append_text(id_text)
        text.append(" ")
    text.append(f"{size_label(f.size):>5} ")
    text.append_text(preview.text)
    return text


def _value(value: object, limit: int, style: str = "") -> Text:
    # Provider values in JSON notation (null, not None), escaped, cut at ``limit``.
    return one_line(plain_value(value), limit, style)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def event_summary(event: dict[str, Any]) -> Text:
    """The short description of an event shown after its type.

    Provider values appear in JSON notation (``null``, ``"text"`` quoted with
    escapes), never as Python reprs; whitespace-only text says so.
    """
    kind = event.get("type")
    text = Text(end="")
    block = _dict(event.get("block"))
    if kind == "stream.start":
        text.append_text(_value(event.get("provider", ""), 40))
        if event.get("model"):
            text.append(" · ", "dim")
            text.append_text(_value(event["model"], 60))
    elif kind == "block.start":
        if block.get("kind") == "tool_call":
            text.append_text(_value(event.get("name"), 40, "bold"))
            text.append(" · ", "dim")
            if event.get("call_id") is None:
                text.append("no call id", "dim italic")
            else:
                text.append_text(_value(event["call_id"], 40))
        elif event.get("visibility") == "internal":
            text.append("internal", "magenta")
        if event.get("provider_type") not in (None, block.get("kind")):
            if text:
                text.append(" · ", "dim")
            text.append_text(_value(event["provider_type"], 40, "dim"))
    elif kind == "block.delta":
        delta = _dict(event.get("delta"))
        if delta.get("kind") == "citation":
            citation = _dict(delta.get("citation"))
            text.append("citation ", "dim")
            title = citation.get("title") or citation.get("url") or citation.get("type")
            text.append_text(_value(title if title is not None else delta.get("citation"), 100))
        elif delta.get("kind") == "signature":
            signature = plain_value(delta.get("text", ""))
            text.append_text(one_line(signature, 24, "magenta"))
            text.append(f" ({len(signature):,} chars)", "dim")
        else:
            text.append_text(quoted(plain_value(delta.get("text", ""))))
    elif kind == "stream.done":
        text.append_text(_value(event.get("finish_reason"), 30, "green"))
        usage = _dict(event.get("usage"))
        if usage.get("output_tokens") is not None:
            counts = f" · in {plain_value(usage.get('input_tokens'))}"
            text.append(counts + f" out {plain_value(usage['output_tokens'])}", "dim")
    elif kind == "stream.error":
        error = _dict(event.get("error"))
        text.append_text(_value(event.get("status"), 20, "red"))
        text.append(" · ", "dim")
        text.append_text(_value(error.get("category"), 30, "red"))
        text.append(" ")
        text.append_text(_value(error.get("message", ""), 160))
    elif kind == "stream.heartbeat":
        text.append_text(_value(event.get("source", ""), 40))
    elif kind == "stream.warning":
        text.append_text(_value(event.get("code"), 40, "yellow"))
        text.append(": ", "dim")
        text.append_text(_value(event.get("message"), 160))
    return text


def event_row(index: TraceIndex, event: int, rules: list[int], breakpoint: bool) -> Text:
    """One event: seq, type, block and kind (block events only), summary; errors in red."""
    e = index.trace.events[event]
    kind = str(e.get("type"))
    width = max(2, len(str(index.n_events)))
    failed = kind == "stream.error" or bool(rules)
    text = Text(no_wrap=True, end="", style="red" if failed else "")
    text.append("●" if breakpoint else " ", "bold red")
    text.append(f"{plain_value(e.get('seq', event + 1)):>{width}} ")
    block = e.get("block")
    if isinstance(block, dict):
        text.append(f"{short_type(kind):<11}", EVENT_STYLES.get(kind, ""))
        # Several choices (contract v1.1): the block's place within its choice, named.
        where = block.get("index", "")
        if "choice" in block:
            where = f"c{plain_value(block['choice'])}.{plain_value(where)}"
        text.append(f" {plain_value(where):>2} ")
        delta = e.get("delta")
        sub = plain_value(delta.get("kind") if isinstance(delta, dict) else block.get("kind"))
        text.append(f"{_KIND_ABBREV.get(sub, sub[:4]):<5}", "dim")
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
