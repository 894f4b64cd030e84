"""The status line: where the cursor is, what the stream did, what is open.

The line is built from *segments*, each with a priority; :func:`fit` keeps
the line on one row by dropping the least important segments that do not
fit (the source file first, then the model, the timings ...). The cursor's
place and the stream state are never dropped.

The violation counts use the words ``inspector check`` prints:
``violations`` are broken invariants the independent checker found in our
own output, ``rejected`` the provider's stream the machine refused; each
names its rule numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

from rich.text import Text
from textual import events

from ...viewmodel.cursor import Cursor, Player
from ...viewmodel.index import LONG_GAP, TraceIndex
from ...viewmodel.problems import ViolationInfo
from ...viewmodel.rows import state_text
from ...viewmodel.textsafe import one_line
from .textview import TextView

__all__ = [
    "LiveState",
    "Segment",
    "StatusLine",
    "fit",
    "source_label",
    "status_segments",
]

#: What a live stream is doing, as the status line says it.
LiveState = str  # "connecting" | "waiting" | "following" | "live" | "ended"

_LIVE_WORDS: Final[dict[str, tuple[str, str]]] = {
    "connecting": ("◌ connecting…", "bold magenta"),
    "waiting": ("◌ waiting for the first byte…", "bold magenta"),
    "following": ("◉ live · following", "bold magenta"),
    "live": ("◉ live · not following", "magenta"),
    "ended": ("◉ live · ended", "dim magenta"),
}

_SEP: Final = "  "
#: Segments from this priority on are shortened (all at once) before one is dropped.
SHORTEN_FROM: Final = 90


@dataclass(frozen=True, slots=True)
class Segment:
    """One part of the status line; the lowest ``priority`` is dropped first."""

    priority: int
    text: Text
    #: A shorter form, used (for every segment that has one) before any is dropped.
    short: Text | None = None


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


def _source_without_provider(source: str, provider: str | None) -> str:
    # The library keeps captures in a folder per provider: "anthropic/x.jsonl"
    # would say the provider twice.
    if provider and source.startswith(f"{provider}/"):
        return source[len(provider) + 1 :]
    return source


def _rules(violations: Sequence[ViolationInfo]) -> str:
    rules = sorted({v.rule for v in violations})
    return " (rule " + ", ".join(str(r) for r in rules) + ")" if rules else ""


def _problems(index: TraceIndex) -> Text:
    """``violations N · rejected M · ignored K``: the words ``inspector check`` uses."""
    every = index.problems.violations
    output = [v for v in every if v.source == "output"]
    rejected = [v for v in every if v.source != "output"]
    text = Text(end="")
    text.append("violations ", "dim")
    if index.output_checked:
        text.append(str(len(output)) + _rules(output), "bold red" if output else "green")
    else:
        text.append("…", "dim")  # the checker runs once the stream has ended
    text.append(" · rejected ", "dim")
    text.append(str(len(rejected)) + _rules(rejected), "bold red" if rejected else "green")
    ignored = len(index.problems.ignored)
    text.append(" · ignored ", "dim")
    text.append(str(ignored), "yellow" if ignored else "")
    return text


def _where(index: TraceIndex, cursor: Cursor) -> Text:
    """``frame 3 of 0–11 · event 5 of 12``: frames by their index (as the Frames pane
    numbers them), events by their ``seq`` (which starts at 1)."""
    n = index.n_frames
    frames = f"0–{n - 1}" if n > 1 else "0" if n else ""
    if not n:
        where = "end · no frames" if cursor.on_end_row else "no frames yet"
    elif cursor.position < 0:
        where = f"before frame 0 of {frames}"
    elif cursor.on_end_row:
        where = f"end · after frame {n - 1}"
    else:
        where = f"frame {cursor.position} of {frames}"
    event = "—" if cursor.event is None else str(cursor.event + 1)
    return Text(f"{where} · event {event} of {index.n_events}", "bold", end="")


def _timings(index: TraceIndex) -> Text:
    text = Text(end="")
    if not index.timed:
        text.append("untimed", "dim")  # a raw SSE body: no time to show
        return text
    ttft = index.time_to_first_content()
    text.append("TTFT ", "dim")
    text.append("—" if ttft is None else f"{ttft * 1000:.0f} ms")
    text.append(" · max gap ", "dim")
    gap = index.max_gap_or_none  # None: fewer than two frames, no gap to measure
    if gap is None:
        text.append("—")
    else:
        text.append(f"{gap * 1000:.0f} ms", "bold yellow" if gap >= LONG_GAP else "")
    return text


def _playing(player: Player, rate: float | None) -> Text | None:
    """``▶ 2×`` (or ``▶ 20 frames/s`` for an untimed capture), ``⏸`` when paused off 1×."""
    speed = f"{rate * player.speed:g} frames/s" if rate is not None else f"{player.speed:g}×"
    if player.playing:
        return Text(f"▶ {speed}", "bold green", end="")
    if player.stopped_here("breakpoint"):
        # Only while the cursor stays on the frame it stopped at: once moved, it is past.
        return Text("● stopped at a breakpoint", "bold red", end="")
    if player.speed != 1.0 or rate is not None:
        return Text(f"⏸ {speed}", "dim", end="")
    return None


def status_segments(
    index: TraceIndex,
    cursor: Cursor,
    player: Player,
    source: str,
    live: LiveState | None = None,
    *,
    rate: float | None = None,
    search: str | None = None,
    clock: str | None = None,
) -> list[Segment]:
    """Every segment of the status line as of the cursor, in display order.

    ``rate`` is the play rate of an untimed capture (frames a second at 1×),
    ``search`` the search counter ("2 of 5") while a search is active,
    ``clock`` the live clock's words (:class:`~inspector.viewmodel.liveclock.LiveClock`).
    """
    trace = index.trace
    out: list[Segment] = []
    add = out.append
    state = Text("● ", "bold", end="")
    state.append_text(state_text(index.stream_state_at(cursor.k)))
    add(Segment(100, state))
    add(Segment(100, _where(index, cursor)))
    if live is not None:
        words, style = _LIVE_WORDS[live]
        if clock is not None and live in ("connecting", "waiting"):
            words = f"{words} {clock}"
        add(Segment(95, Text(words, style, end="")))
        waiting = live in ("connecting", "waiting")
        short = Text(_short_clock(words) if waiting else "◉ live", style, end="")
        out[-1] = Segment(95, out[-1].text, short)
        if clock is not None and live in ("following", "live"):
            # Above the live words: in a narrow terminal the countdown is what matters.
            add(
                Segment(
                    97,
                    Text(f"⚠ {clock}", "bold yellow", end=""),
                    Text(f"⚠ {_short_clock(clock)}", "bold yellow", end=""),
                )
            )
    playing = _playing(player, rate)
    if playing is not None:
        add(Segment(90, playing))
    if cursor.breakpoints:
        count = len(cursor.breakpoints)
        words = f"● {count} breakpoint{'s' if count != 1 else ''}"
        add(Segment(80, Text(words, "red", end="")))
    if search is not None:
        add(Segment(85, Text(f"/ {search}", "bold yellow", end="")))
    add(Segment(70, _problems(index)))
    add(Segment(60, _timings(index)))
    provider = trace.provider or "?"
    add(Segment(50, one_line(provider, 40, "bold cyan")))
    # Model and source follow the provider, which outranks them: "· " joins them to it.
    model = _model(index)
    if model:
        add(Segment(30, Text("· ", "dim", end="").append_text(one_line(model, 60))))
    where = one_line(_source_without_provider(source, trace.provider), 80, "italic")
    # Live, the file it records to outranks the model: it is where the stream will be.
    add(Segment(40 if live is not None else 20, Text("· ", "dim", end="").append_text(where)))
    return out


def _short_clock(words: str) -> str:
    """The live clock's words in a narrow terminal: ``pings 12 s · ends in 108 s``."""
    for long, short in _CLOCK_SHORT:
        words = words.replace(long, short)
    return words


_CLOCK_SHORT: Final = (
    ("pings only: no progress for ", "pings "),
    ("nothing received for ", "silent "),
    (" · progress timeout in ", " · ends in "),
    (" · gives up in ", " · ends in "),
    (" · no progress timeout", ""),
)


def fit(segments: Sequence[Segment], width: int | None) -> Text:
    """The segments on one line of ``width`` cells.

    The least important are dropped first; before one from :data:`SHORTEN_FROM`
    on would go, every segment with a short form takes it.
    """
    kept = list(segments)
    if width is not None and width > 0:
        budget = width - 1  # the leading space
        order = sorted(range(len(kept)), key=lambda i: kept[i].priority)
        dropped: set[int] = set()
        shortened = False

        def length() -> int:
            parts = [s.text.cell_len for i, s in enumerate(kept) if i not in dropped]
            return sum(parts) + len(_SEP) * len(parts)  # a bound: joiners are 1 or 2 cells

        for i in order:
            if length() <= budget or kept[i].priority >= 100:
                break
            if kept[i].priority >= SHORTEN_FROM and not shortened:
                # Before any of the important segments goes, every one that has a
                # short form takes it.
                shortened = True
                kept = [Segment(s.priority, s.short or s.text) for s in kept]
                if length() <= budget:
                    break
            dropped.add(i)
        kept = [s for i, s in enumerate(kept) if i not in dropped]
    line = Text(" ", end="", no_wrap=True, overflow="ellipsis")
    for i, segment in enumerate(kept):
        if i:
            # A segment that continues the previous one starts with its own "· ".
            line.append(" " if segment.text.plain.startswith("· ") else _SEP)
        line.append_text(segment.text)
    return line


class StatusLine(TextView):
    """The line at the top of the main screen: :func:`status_segments`, fitted to its width."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._segments: list[Segment] = []

    def show_segments(self, segments: list[Segment]) -> None:
        """Show ``segments``, fitted to the current width (repaint only on a change)."""
        self._segments = segments
        self._paint()

    def _paint(self) -> None:
        self.show(fit(self._segments, self.size.width or None))

    def on_resize(self, event: events.Resize) -> None:
        """A new width keeps or drops different segments."""
        self._paint()
