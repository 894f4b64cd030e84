"""The Frames pane: every decoded SSE frame, and the selected one in full."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll

from ...core.trace import Trace
from ...viewmodel.cursor import Cursor
from ...viewmodel.http import (
    error_body_text,
    headers_text,
    http_line,
    is_error,
    never_connected,
    response,
)
from ...viewmodel.index import TraceIndex
from ...viewmodel.previews import frame_preview
from ...viewmodel.rows import FRAME_MARKS, frame_columns, frame_header, frame_row, size_label
from ...viewmodel.textsafe import json_text, one_line, plain_value, safe_text
from .lines import LineList
from .textview import TextView

__all__ = ["FrameDetail", "FramesList", "FramesPane", "end_summary", "frame_problems"]


def end_summary(trace: Trace) -> Text:
    """How the bytes ended: transport end, undispatched tail, decoder error.

    An HTTP error response is not part of it: the end row puts
    :func:`~inspector.viewmodel.http.http_line` before it, the detail lists it.
    """
    text = Text(end="")
    end = trace.transport_end
    if end is None:
        text.append("no transport end recorded", "yellow")
    elif end.reason != "cancelled" and never_connected(trace):
        text.append("no connection", "bold red")
        if end.time is not None:
            text.append(f" after {end.time * 1000:.0f} ms", "dim")
    else:
        text.append(end.reason, "bold yellow" if end.reason != "eof" else "bold")
        if end.time is not None:
            text.append(f" at {end.time * 1000:.0f} ms", "dim")
    if end is not None and end.error:
        text.append(" · ")
        text.append_text(one_line(end.error, 200))
    tail = trace.tail
    if tail is not None and tail.unterminated:
        text.append(f" · {tail.pending_bytes} bytes never dispatched", "bold yellow")
    if trace.decoder_error:
        text.append(" · ", "dim")
        text.append_text(one_line(trace.decoder_error, 200, "red"))
    return text


def _json_error(data: str) -> str | None:
    # Only asked when the pretty-printer found no JSON: says where parsing stopped.
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return str(exc)
    return None


def _new_line(text: Text) -> None:
    if text:
        text.append("\n")


def frame_problems(index: TraceIndex, frame: int) -> Text:
    """What is wrong with a frame, named: errors it produced, violations, refusals.

    One line each, starting with the mark the Frames pane shows for it:
    ``✗ stream.error failed · protocol_error · code: message``, ``! rule 2 …``,
    ``⚑ refusal …``; for an ignored frame, the error it carries. Empty when
    nothing is wrong.
    """
    trace = index.trace
    text = Text(end="")
    for e in trace.events_of_frame(frame):
        event = trace.events[e]
        kind = event.get("type")
        if kind == "stream.error":
            found = event.get("error")
            error: dict[str, Any] = found if isinstance(found, dict) else {}
            symbol, style = FRAME_MARKS["error"]
            _new_line(text)
            text.append(f"{symbol} #{e + 1} stream.error ", style)
            for key in ("status", "category", "provider_code"):
                value = event.get(key) if key == "status" else error.get(key)
                text.append_text(one_line(plain_value(value), 60, "red"))
                text.append(" · ", "dim")
            text.append_text(one_line(plain_value(error.get("message", "")), 400))
        elif kind == "block.start" and isinstance(event.get("block"), dict):
            if event["block"].get("kind") == "refusal":
                symbol, style = FRAME_MARKS["refusal"]
                _new_line(text)
                text.append(f"{symbol} #{e + 1} a refusal block starts", style)
        elif kind == "stream.done" and event.get("finish_reason") in ("refusal", "content_filter"):
            symbol, style = FRAME_MARKS["refusal"]
            _new_line(text)
            text.append(f"{symbol} #{e + 1} finish_reason ", style)
            text.append_text(one_line(plain_value(event.get("finish_reason")), 40, style))
    for v in index.problems.violations:
        if v.frame == frame:
            symbol, style = FRAME_MARKS["violation"]
            _new_line(text)
            text.append(f"{symbol} rule {v.rule} ({v.source}): ", style)
            text.append_text(one_line(v.message, 400, "red"))
    if frame in index.problems.ignored and not text:
        # Ignored frames produce no event, but may still carry the provider's error.
        f = trace.frames[frame]
        if f.comment is None:
            preview = frame_preview(trace.provider, index.frame_label(frame), f.data)
            if preview.carries_error:
                symbol, style = FRAME_MARKS["error"]
                text.append(f"{symbol} carries an error, after the stream had ended: ", style)
                text.append_text(preview.text)
    return text


class FramesList(LineList):
    """One row per frame, plus an end-of-bytes row once the transport ended."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.cursor = cursor

    def row_text(self, row: int) -> Text:
        """A frame row, or the end row after the last frame."""
        if row >= self.index.n_frames:
            trace = self.index.trace
            http = http_line(trace)
            if http is not None:
                # An HTTP error instead of a stream: what the provider said comes first.
                text = Text("  ■ ", "bold", end="")
                text.append_text(http)
                text.append(" · end of bytes · ", "bold")
                text.append_text(end_summary(trace))
                return text
            text = Text("  ■ end of bytes · ", "bold", end="")
            text.append_text(end_summary(trace))
            return text
        return frame_row(self.index, row, self.cursor.hits_breakpoint(row))

    def row_key(self, row: int) -> Hashable:
        """Breakpoints and late-known facts (ignored frames, marks) change a row's look."""
        return (self.index.version, len(self.cursor.breakpoints), self.cursor.hits_breakpoint(row))

    def refresh_from(self, cursor: Cursor) -> None:
        """Show the rows and put the cursor row on the cursor's position."""
        rows = self.index.n_frames + (1 if self.index.has_end else 0)
        look = (self.index.version, frozenset(cursor.breakpoints), frame_columns(self.index))
        self.show(rows, cursor.position if cursor.position >= 0 else None, look)


class FrameDetail(TextView):
    """The selected frame's data in full: pretty JSON, or the raw text, escaped."""


class FramesPane(Vertical):
    """Title ``Frames``: the column header, the list, the selected frame below."""

    def __init__(self, index: TraceIndex, cursor: Cursor, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.index = index
        self.cursor = cursor
        self.border_title = "Frames"
        self._shown: tuple[int, int, int, int] | None = None

    def compose(self) -> ComposeResult:
        """Column header, list, data heading and the scrollable data."""
        yield TextView(classes="columns", id="frames-columns")
        yield FramesList(self.index, self.cursor, id="frames-list")
        yield TextView(id="frame-heading", classes="heading")
        with VerticalScroll(id="frame-data-scroll"):
            yield FrameDetail(id="frame-data")

    def refresh_from(self, cursor: Cursor) -> None:
        """Bring the list and the detail in step with the cursor."""
        index = self.index
        self.query_one(FramesList).refresh_from(cursor)
        self.query_one("#frames-columns", TextView).show(frame_header(index))
        # The detail depends only on the position, on what that frame produced,
        # and on late-known facts (violations found by the checker, marks).
        key = (cursor.position, index.n_frames, index.n_events, index.version)
        if key == self._shown:
            return
        self._shown = key
        heading, body = self._detail(cursor)
        self.query_one("#frame-heading", TextView).show(heading)
        self.query_one(FrameDetail).show(body)
        self.query_one("#frame-data-scroll", VerticalScroll).scroll_home(animate=False)

    def _detail(self, cursor: Cursor) -> tuple[Text, Text]:
        index = self.index
        trace = index.trace
        frame = cursor.frame
        if frame is None and cursor.position < 0:
            return (
                Text("before the first frame", "bold"),
                Text("Nothing has arrived yet. → or n steps to the first frame.", "dim"),
            )
        if frame is None:
            heading = Text("end of bytes · ", "bold", end="")
            heading.append_text(end_summary(index.trace))
            return heading, self._end_body()
        f = trace.frames[frame]
        heading = Text(f"frame {frame} · ", "bold", end="")
        heading.append_text(one_line(index.frame_label(frame), 60))
        when = index.frame_time(frame)
        heading.append(" · untimed" if when is None else f" · +{when * 1000:.0f} ms", "dim")
        chunks = trace.chunks_of_frame(frame)
        where = (
            f"chunk {chunks.start}"
            if len(chunks) == 1
            else f"chunks {chunks.start}–{chunks.stop - 1}"
        )
        heading.append(f"\nbytes {f.start}–{f.end} ({size_label(f.size)} B) · {where}", "dim")
        if f.id:
            heading.append(" · id ", "dim")
            heading.append_text(one_line(f.id, 60))
        if f.retry is not None:
            heading.append(f" · retry {f.retry}", "dim")
        produced = trace.events_of_frame(frame)
        if len(produced):
            seqs = ", ".join(f"#{e + 1}" for e in list(produced)[:8])
            heading.append(f"\n→ events {seqs}{' …' if len(produced) > 8 else ''}", "cyan")
        else:
            heading.append("\n→ no event", "dim")
        ignored = index.problems.ignored.get(frame)
        if ignored is not None:
            heading.append("\n⊘ ignored: ", "bold yellow")
            heading.append_text(one_line(ignored.reason, 200, "yellow"))
        # What is wrong comes first in the (scrollable) body: the heading has a fixed height.
        body = frame_problems(index, frame)
        headers = getattr(f, "headers", ())  # a binary framing's own (AWS event stream)
        for name, value in headers:
            _new_line(body)
            body.append_text(one_line(name, 60, "cyan"))
            body.append(" = ", "dim")
            body.append_text(one_line(value.hex() if isinstance(value, bytes) else str(value), 200))
        if f.comment is not None:
            body.append(": ", "dim")
            body.append_text(safe_text(f.comment))
        else:
            data, is_json = json_text(f.data)
            if not is_json and f.data.lstrip()[:1] in ("{", "["):
                problem = _json_error(f.data)
                if problem is not None:
                    _new_line(body)
                    body.append("✗ invalid JSON: ", "bold red")
                    body.append_text(one_line(problem, 200, "red"))
            if body:
                body.append("\n\n")
            body.append_text(data)
        return heading, body

    def _end_body(self) -> Text:
        trace = self.index.trace
        body = Text(end="")
        if is_error(trace):
            found = response(trace) or {}
            body.append(f"HTTP {plain_value(found.get('status'))}\n", "bold red")
            body.append_text(headers_text(found.get("headers")))
            body.append("body\n", "bold")
            body.append_text(error_body_text(trace))
            body.append("\n")
        if trace.tail is not None and trace.tail.unterminated:
            tail = trace.tail
            body.append(
                f"{tail.pending_bytes} bytes from byte {tail.start} had no blank line after "
                "them, so they were never dispatched",
                "yellow",
            )
            if tail.event:
                body.append(" (event ")
                body.append_text(one_line(tail.event, 60))
                body.append(")")
            body.append("\n")
        for problem in trace.problems:
            body.append_text(one_line(problem, 400, "yellow"))
            body.append("\n")
        k = self.index.events_at(self.index.n_frames)
        after = k - self.index.events_at(self.index.n_frames - 1)
        body.append(f"{after} event(s) produced by the end of the bytes", "dim")
        return body
