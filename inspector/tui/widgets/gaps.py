"""The timeline strip: every inter-frame gap as a bar, stalls and heartbeat-only stretches marked.

The frames are cut into as many buckets as the strip has columns; each
column's bar is the longest gap in its bucket (square-root scale, so a
single 5 s stall does not flatten everything else). Red bars are stalls
(≥ :data:`STALL`), yellow long gaps (≥ ``LONG_GAP``), blue columns hold only
heartbeats — pings and comments, frames that produced nothing but a
``stream.heartbeat`` or nothing at all without being ignored. The line
below labels time to first token and the longest gap under their columns.
A click (or a drag) moves the cursor to the frame with the longest gap
under the pointer.

Cheap on any capture: per-frame gaps and heartbeat flags are kept in flat
arrays grown only by the frames added since the last paint, with the
longest gap of every :data:`BLOCK` frames beside them: a bucket's bar is a
``max`` over the whole blocks it covers plus its two ragged ends. A live
stream cuts its columns again on every repaint (each column's frames move
as frames arrive), so this keeps that work near the strip's width times
``BLOCK``, not the capture's length.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from math import sqrt
from operator import eq, sub
from typing import Final

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ...viewmodel.http import never_connected
from ...viewmodel.index import LONG_GAP, TraceIndex

__all__ = ["BLOCK", "STALL", "GapBuckets", "GapStrip", "block_peaks", "bucket_gaps"]

#: Gaps from this long (seconds) are stalls, drawn red.
STALL: Final = 1.0

_BARS: Final = "▁▂▃▄▅▆▇█"
_STYLES: Final = {
    "stall": Style(color="red", bold=True),
    "long": Style(color="yellow"),
    "heartbeat": Style(color="blue"),
    "normal": Style(color="green"),
}
_CURSOR: Final = Style(reverse=True)
#: At most this many cells per column: a short capture still reads as a strip.
MAX_SCALE: Final = 8
#: Frames per precomputed peak (see the module docstring).
BLOCK: Final = 64


@dataclass(frozen=True, slots=True)
class GapBuckets:
    """The strip's columns: frame ranges, the longest gap in each, and their kind."""

    starts: list[int]  # first frame of each column (the last column ends at ``n``)
    n: int
    peaks: list[float]  # the longest gap in the column (seconds)
    kinds: list[str]  # "stall" | "long" | "heartbeat" | "normal"

    def column_of(self, position: int) -> int | None:
        """The column showing frame ``position`` (None: outside the frames)."""
        if not self.starts or not 0 <= position < self.n:
            return None
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:  # the last column whose start is <= position
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= position:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def frames_of(self, column: int) -> range:
        """The frames column ``column`` stands for."""
        end = self.starts[column + 1] if column + 1 < len(self.starts) else self.n
        return range(self.starts[column], end)


def block_peaks(gaps: array[float], peaks: array[float]) -> None:
    """Append to ``peaks`` the longest gap of each whole :data:`BLOCK` of ``gaps`` it lacks."""
    for b in range(len(peaks), len(gaps) // BLOCK):
        peaks.append(max(gaps[b * BLOCK : (b + 1) * BLOCK]))


def _longest(gaps: array[float], peaks: array[float] | None, lo: int, hi: int) -> float:
    """``max(gaps[lo:hi])``, reading whole blocks from ``peaks`` (when given)."""
    first, last = -(-lo // BLOCK), hi // BLOCK  # the whole blocks inside [lo, hi)
    if peaks is None or first >= last:
        return max(gaps[lo:hi])
    longest = max(peaks[first:last])
    if lo < first * BLOCK:
        longest = max(longest, max(gaps[lo : first * BLOCK]))
    if last * BLOCK < hi:
        longest = max(longest, max(gaps[last * BLOCK : hi]))
    return longest


def bucket_gaps(
    gaps: array[float], heartbeat: bytearray, width: int, blocks: array[float] | None = None
) -> GapBuckets:
    """Cut ``len(gaps)`` frames into at most ``width`` columns (gap of frame 0 is 0).

    ``blocks`` (from :func:`block_peaks`) makes each column's longest gap cost
    its length in blocks instead of in frames; the result is the same.
    """
    n = len(gaps)
    columns = min(n, max(width, 0))
    starts = [c * n // columns for c in range(columns)] if columns else []
    peaks: list[float] = []
    kinds: list[str] = []
    for c, lo in enumerate(starts):
        hi = starts[c + 1] if c + 1 < columns else n
        peak = _longest(gaps, blocks, lo, hi)
        peaks.append(peak)
        if peak >= STALL:
            kinds.append("stall")
        elif peak >= LONG_GAP:
            kinds.append("long")
        elif heartbeat.find(0, lo, hi) == -1:
            kinds.append("heartbeat")
        else:
            kinds.append("normal")
    return GapBuckets(starts, n, peaks, kinds)


def _no_frames(index: TraceIndex) -> str:
    """Why the strip is empty: not yet, no connection, or a response without a stream."""
    trace = index.trace
    if trace.transport_end is None:
        return "no frames yet"
    if never_connected(trace):
        return "no frames: no connection was made"
    if trace.bytes_received:
        return "no frames: the response had no stream"
    return "no frames: the stream ended before any"


class GapStrip(Widget):
    """Two lines: the bars, then the TTFT and longest-gap labels (see the module docstring)."""

    DEFAULT_CSS = """
    GapStrip {
        height: 2;
    }
    """

    class Picked(Message):
        """The user clicked (or dragged over) the strip: go to frame ``position``."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, index: TraceIndex, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.gaps = array("d")
        self.heartbeat = bytearray()
        self.peaks = array("d")  # the longest gap of each whole BLOCK of frames
        self._ignored_seen = 0
        self._buckets: GapBuckets | None = None
        self._buckets_for: tuple[int, int] = (-1, -1)  # (width, frames) they were cut for
        self.cursor_column: int | None = None

    # -- data -----------------------------------------------------------------

    def _grow(self) -> None:
        """Take in the frames added since the last call (all of them, the first time)."""
        index = self.index
        trace = index.trace
        have, n = len(self.gaps), index.n_frames
        if n > have:
            # Column-wise, not frame by frame: the first paint of 100,000 frames does this.
            time_of = trace.frames.time_of
            times = [time_of(i) for i in range(max(have - 1, 0), n)]
            if not have:
                self.gaps.append(0.0)
            steps = list(map(sub, times[1:], times))
            if steps and min(steps) < 0:  # a capture whose clock went back
                steps = [max(0.0, step) for step in steps]
            self.gaps.extend(steps)
            block_peaks(self.gaps, self.peaks)
            # A frame that produced no event (a comment; a ping when the adapter keeps
            # none), unless it was ignored, or one that produced only a heartbeat.
            starts = trace.frame_event_start
            quiet = bytearray(map(eq, starts[have : n - 1], starts[have + 1 : n]))
            quiet.append(not trace.events_of_frame(n - 1))
            for frame in index.heartbeat_frames:
                if have <= frame < n:
                    quiet[frame - have] = 1
            self.heartbeat.extend(quiet)
        # Ignored frames produce nothing but are no heartbeat (live: they come later).
        ignored = index.problems.ignored
        if len(ignored) != self._ignored_seen:
            self._ignored_seen = len(ignored)
            for frame in ignored:
                if frame < len(self.heartbeat):
                    self.heartbeat[frame] = 0

    def buckets(self) -> GapBuckets:
        """The columns for the current width (cut again only when width or frames changed)."""
        self._grow()
        key = (self.size.width, len(self.gaps))
        if self._buckets is None or key != self._buckets_for:
            self._buckets = bucket_gaps(self.gaps, self.heartbeat, self.size.width, self.peaks)
            self._buckets_for = key
        return self._buckets

    def show(self, position: int) -> None:
        """Mark the cursor's column; repaint when the cursor or the frames changed."""
        before = (self.cursor_column, self._buckets_for)
        buckets = self.buckets()
        self.cursor_column = buckets.column_of(position)
        if (self.cursor_column, self._buckets_for) != before:
            self.refresh()

    # -- rendering ------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Always two lines."""
        return 2

    def render_line(self, y: int) -> Strip:
        """Line 0: the bars; line 1: the labels."""
        width = self.size.width
        buckets = self.buckets()
        if y == 0:
            return self._bars(buckets, width)
        if y == 1:
            # Padded to the width, not merely said to be that wide: cells a strip does
            # not cover are never written, so the previous screen's text stays there.
            labels = self.labels(buckets, width).render(self.app.console)
            return Strip(list(labels)).adjust_cell_length(width)
        return Strip.blank(width)

    def scale(self, buckets: GapBuckets, width: int) -> int:
        """Cells per column: a short capture's frames get several, up to :data:`MAX_SCALE`."""
        return max(1, min(MAX_SCALE, width // max(1, len(buckets.starts))))

    def _bars(self, buckets: GapBuckets, width: int) -> Strip:
        top = self.index.max_gap
        scale = self.scale(buckets, width)
        segments = []
        for c, (peak, kind) in enumerate(zip(buckets.peaks, buckets.kinds, strict=True)):
            level = 0 if top <= 0 else min(7, int(sqrt(peak / top) * 7.999))
            style = _STYLES[kind]
            if c == self.cursor_column:
                style = style + _CURSOR
            segments.append(Segment(_BARS[level] * scale, style))
        used = len(buckets.peaks) * scale
        if used < width:
            segments.append(Segment(" " * (width - used)))
        return Strip(segments, width)

    def labels(self, buckets: GapBuckets, width: int) -> Text:
        """``▲ TTFT 457 ms`` and ``▲ longest gap 630 ms · f6`` under their columns."""
        index = self.index
        line = Text(no_wrap=True, overflow="crop", end="")
        if not buckets.starts:
            line.append(_no_frames(index), "dim")
            return line
        if not index.timed:
            line.append("no timing recorded: every gap is unknown", "dim")
            return line
        marks: list[tuple[int, str, str]] = []
        ttft = index.time_to_first_content()
        first = index.first_content_event
        if ttft is not None and first is not None:
            column = buckets.column_of(index.trace.frame_of_event(first))
            if column is not None:
                marks.append((column, f"▲ TTFT {ttft * 1000:.0f} ms", "bold cyan"))
        if index.max_gap_frame is not None and index.max_gap > 0:
            column = buckets.column_of(index.max_gap_frame)
            if column is not None:
                label = f"▲ longest gap {index.max_gap * 1000:.0f} ms · f{index.max_gap_frame}"
                style = "bold red" if index.max_gap >= STALL else "bold yellow"
                marks.append((column, label, style))
        at = 0
        scale = self.scale(buckets, width)
        for column, label, style in sorted(marks):
            start = max(column * scale, at + 1 if at else 0)
            if start + len(label) > width:  # keep the label whole: shift it left
                start = max(at + 1 if at else 0, width - len(label))
            line.append(" " * (start - at))
            line.append(label, style)
            at = start + len(label)
        return line

    # -- pointing ---------------------------------------------------------------

    def _pick(self, x: int) -> None:
        buckets = self.buckets()
        x //= self.scale(buckets, self.size.width)
        if not 0 <= x < len(buckets.starts):
            return
        frames = buckets.frames_of(x)
        gaps = self.gaps[frames.start : frames.stop]
        self.post_message(self.Picked(frames.start + gaps.index(max(gaps))))

    def on_click(self, event: events.Click) -> None:
        """Go to the frame with the longest gap in the clicked column."""
        offset = event.get_content_offset(self)
        if offset is not None:
            self._pick(offset.x)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Dragging along the strip scrubs through the stream."""
        offset = event.get_content_offset(self)
        if event.button and offset is not None:
            self._pick(offset.x)
