"""The main screen's keys and what they do to the cursor.

:class:`SteppingScreen` owns the cursor, the player and the bindings (each
with an ``id`` so a keymap can rebind it, and a tooltip the help screen
shows). Every action ends the same way: move the cursor, then
:meth:`SteppingScreen.refresh_view`, which :class:`~.main.MainScreen`
implements by asking each pane to show the state as of the cursor.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import orjson
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from ...core.trace import Trace
from ...viewmodel.cursor import Breakpoint, Cursor, Player
from ...viewmodel.http import error_body, is_error, status_of
from ...viewmodel.index import TraceIndex
from ...viewmodel.liveclock import LiveClock
from ...viewmodel.matches import Matches, find_matches
from ...viewmodel.playback import UNTIMED_RATE, FixedRatePlayer
from ...viewmodel.textsafe import quoted
from ..widgets.blocks import BlocksPane
from ..widgets.events import EventsList
from ..widgets.status import LiveState, StatusLine, source_label, status_segments

if TYPE_CHECKING:
    from ...feeds import Feed

__all__ = ["PLAY_RATE", "SteppingScreen"]

#: Repaints per second while playing.
PLAY_RATE = 30.0


class SteppingScreen(Screen[None]):
    """Cursor, player and every key of the main screen."""

    # Help and quit come first: the footer drops keys from its right end on a
    # narrow terminal, and these two must always show.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?", id="help.open",
                tooltip="All keys, grouped by task"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit"),
        Binding("right,n,j", "step(1)", "Next", key_display="→/n", id="step.next",
                tooltip="Next frame"),
        Binding("left,p,k", "step(-1)", "Prev", key_display="←/p", id="step.previous",
                tooltip="Previous frame"),
        Binding("right_square_bracket", "step_event(1)", "Event", key_display="[ ]",
                id="event.next", tooltip="Next normalized event"),
        Binding("left_square_bracket", "step_event(-1)", "Prev event", show=False,
                id="event.previous", tooltip="Previous normalized event"),
        Binding("home,g", "home", "Start", show=False, id="step.home",
                tooltip="Before the first frame"),
        Binding("end,G", "end", "End", show=False, id="step.end",
                tooltip="The last frame / the end of bytes"),
        Binding("space", "play", "Play", id="play.toggle",
                tooltip="Play / pause (recorded timing; a fixed rate when untimed)"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+", show=False,
                id="play.faster", tooltip="Play faster"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False,
                id="play.slower", tooltip="Play slower"),
        Binding("colon", "goto_prompt", "Go to", key_display=":", id="jump.frame",
                tooltip="Go to a frame by its number"),
        Binding("e", "next_problem", "Error", id="jump.error",
                tooltip="Next error or violation"),
        Binding("E", "previous_problem", "Prev error", show=False, id="jump.error_previous",
                tooltip="Previous error or violation"),
        Binding("b", "breakpoint", "Break", id="breakpoint.toggle",
                tooltip="Toggle a breakpoint on the selected frame's (or event's) type"),
        Binding("B", "breakpoints", "Breakpoints", show=False, id="breakpoint.list",
                tooltip="List the breakpoints: clear one, or all"),
        Binding("slash", "search", "Search", key_display="/", id="search.open",
                tooltip="Search frames and the assembled text; enter: next match"),
        Binding("ctrl+g", "search_step(1)", "Next match", show=False, id="search.next",
                tooltip="Next match of the search"),
        Binding("N", "search_step(-1)", "Prev match", show=False, id="search.previous",
                tooltip="Previous match of the search"),
        Binding("f", "follow", "Follow", id="live.follow",
                tooltip="Follow the newest frame (live)"),
        Binding("c", "cancel_feed", "Cancel", id="live.cancel",
                tooltip="Cancel the live stream"),
        Binding("d", "details", "Details", id="details.open",
                tooltip="The exchange: request, response, timings"),
        Binding("y", "copy", "Copy", show=False, id="view.copy",
                tooltip="Copy the selected frame's data, event or block to the clipboard"),
        Binding("m", "maximize_pane", "Maximize", show=False, id="view.maximize",
                tooltip="Maximize the focused pane (again, or escape: restore)"),
        Binding("tab", "pane(1)", "Next pane", show=False, id="pane.next",
                tooltip="Next pane (the one shown, when narrow)"),
        Binding("shift+tab", "pane(-1)", "Previous pane", show=False, id="pane.previous",
                tooltip="Previous pane"),
        Binding("escape", "back", "Back", show=False, id="back",
                tooltip="Restore a maximized pane / leave or close search / "
                        "stop marking a block / back to the picker"),
        Binding("x", "export", "Export", id="export.open",
                tooltip="Export an anonymized capture, its golden events and a report"),
    ]  # fmt: skip

    def __init__(
        self,
        trace: Trace,
        *,
        source: str,
        feed: Feed | None = None,
        from_picker: bool = False,
        position: int = 0,
    ) -> None:
        super().__init__()
        self.trace = trace
        self.source = source
        self.feed = feed
        self.feed_running = False
        self.feed_ended = False  # feed.run returned (or raised): nothing more will come
        self.from_picker = from_picker
        self.index = TraceIndex(trace)
        self.cursor = Cursor(self.index, position)
        #: Play rate (frames/s at 1×) of a capture without timing, else None.
        self.untimed_rate = (
            UNTIMED_RATE if feed is None and self.index.n_frames and not self.index.timed else None
        )
        self.player: Player = (
            FixedRatePlayer(self.cursor, self.untimed_rate)
            if self.untimed_rate is not None
            else Player(self.cursor)
        )
        self.chosen_block: int | None = None
        self.matches: Matches | None = None
        self._play_timer: Timer | None = None
        self._checking = False
        self.live_clock = LiveClock(time.monotonic())

    def refresh_view(self) -> None:
        """Every pane and the status line, as of the cursor (see MainScreen)."""
        raise NotImplementedError

    def refresh_status(self) -> None:
        """Only the status line (play state, breakpoints, search counter)."""
        segments = status_segments(
            self.index,
            self.cursor,
            self.player,
            self.status_source(),
            self.live_state(),
            rate=self.untimed_rate,
            search=self.search_counter(),
            clock=self.live_clock_words(),
        )
        self.query_one(StatusLine).show_segments(segments)

    def status_source(self) -> str:
        """Where the stream comes from, for the status line.

        A live session names the file it records to (the provider and the
        model have their own segments, so its description would say them
        twice); anything else, its source as given.
        """
        recorded = self.trace.source
        if self.feed is not None and recorded and "://" not in recorded:
            return source_label(recorded)
        return self.source

    def live_clock_words(self) -> str | None:
        """How long the live stream has gone without progress, and its deadline (None: fine)."""
        feed = self.feed
        if feed is None or self.feed_ended or self.index.finished:
            return None
        now = time.monotonic()
        trace = self.trace
        response = bool(feed.exchange.get("response"))
        self.live_clock.saw(now, trace.events, trace.bytes_received, response)
        live = self.live_state()
        phase = live if live in ("connecting", "waiting") else "receiving"
        return self.live_clock.words(
            phase,
            now,
            # A LiveFeed's clocks; a replay has none.
            progress_timeout=getattr(feed, "progress_timeout", None),
            transport_timeout=getattr(feed, "transport_timeout", None),
        )

    def live_state(self) -> LiveState | None:
        """What the live stream is doing (None: not live)."""
        if self.feed is None:
            return None
        if self.feed_ended:
            return "ended"
        if self.index.n_frames == 0 and not self.trace.bytes_received:
            has_response = bool(self.feed.exchange.get("response"))
            return "waiting" if has_response else "connecting"
        return "following" if self.cursor.follow else "live"

    def search_counter(self) -> str | None:
        """``2 of 5`` while a search is active (None otherwise)."""
        if self.matches is None:
            return None
        return self.matches.counter(self.cursor.position)

    def _move(self, move: Callable[[], bool]) -> bool:
        # A move by the user takes over from playing and from following.
        self.cursor.follow = False
        if self.player.playing:
            self._stop_playing(None)
        moved = move()
        if moved:
            self.refresh_view()
        else:
            self.refresh_status()
        return moved

    # -- actions --------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        """Next / previous frame."""
        self._move(lambda: self.cursor.step(delta))

    def action_step_event(self, delta: int) -> None:
        """Next / previous normalized event (and its frame)."""
        self._move(lambda: self.cursor.step_event(delta))

    def action_home(self) -> None:
        """Before the first frame."""
        self._move(self.cursor.home)

    def action_end(self) -> None:
        """The last position."""
        self._move(self.cursor.end)

    def action_goto_position(self, position: int) -> None:
        """Jump to a position (violation links in the State pane)."""
        self._move(lambda: self.cursor.goto(position))

    def action_next_problem(self) -> None:
        """Jump to the next stream.error or violation."""
        if not self._move(self.cursor.next_problem):
            self.notify("No error or violation after this point.", severity="warning")

    def action_previous_problem(self) -> None:
        """Jump to the previous stream.error or violation."""
        events = self.index.problems.events
        before = self.cursor.event if self.cursor.event is not None else 0
        j = bisect_left(events, before)
        if not j or not self._move(lambda: self.cursor.select_event(events[j - 1])):
            self.notify("No error or violation before this point.", severity="warning")

    def action_goto_frame(self, frame: int) -> bool:
        """Go to frame number ``frame`` (as the Frames pane counts); False when there is none."""
        if not 0 <= frame < self.index.n_frames:
            last = self.index.n_frames - 1
            where = f"0–{last}" if last >= 0 else "none yet"
            self.notify(f"No frame {frame} (frames: {where}).", severity="warning")
            return False
        self._move(lambda: self.cursor.goto(frame))
        return True

    def action_search_step(self, direction: int) -> None:
        """The next (``1``) or previous (``-1``) match of the active search."""
        matches = self.current_matches()
        if matches is None:
            self.notify("No search yet: / searches.", severity="warning")
            return
        position = self.cursor.position
        hit = matches.next_after(position) if direction > 0 else matches.previous_before(position)
        if hit is None:
            self.notify(
                f"Nothing matches {quoted(matches.query).plain}", severity="warning", markup=False
            )
            self.refresh_status()
            return
        if hit.wrapped:
            where = "start" if direction > 0 else "end"
            self.notify(f"Search wrapped to the {where}", timeout=1.5)
        if not self._move(lambda: self.cursor.goto(hit.position)):
            self.refresh_status()

    def current_matches(self) -> Matches | None:
        """The active search's matches, found again if a live trace grew since."""
        matches = self.matches
        if matches is not None and matches.extent != (self.index.n_frames, self.index.n_events):
            matches = self.matches = find_matches(self.index, matches.query)
        return matches

    def start_search(self, query: str) -> None:
        """Find every match of ``query`` (once) and go to the first after the cursor."""
        if self.matches is None or self.matches.query != query:
            self.matches = find_matches(self.index, query) if query else None
            self.search_changed()
        if self.matches is not None:
            self.action_search_step(1)

    def search_changed(self) -> None:
        """The search (and so what rows highlight) changed: see MainScreen."""

    def copy_target(self) -> tuple[str, str] | None:
        """(what, text) ``y`` copies: the focused pane's selection, else the frame's data."""
        focused = self.focused
        trace = self.trace
        if isinstance(focused, EventsList) and self.cursor.event is not None:
            event = trace.events[self.cursor.event]
            what = f"event #{self.cursor.event + 1} ({event.get('type')})"
            return what, orjson.dumps(event, option=orjson.OPT_INDENT_2).decode()
        if isinstance(focused, BlocksPane):
            k = self.cursor.k
            started = self.index.blocks_at(k)
            if started:
                block = self.index.block_at_order(focused.anchor_order(self.cursor, started))
                text, _ = block.text.text_at(k)
                return f"block {block.id} ({block.kind})", text
        frame = self.cursor.frame
        if frame is None:
            if is_error(trace) and trace.bytes_received:
                # An HTTP error has no frames: its body is what there is to copy.
                return f"the HTTP {status_of(trace)} body", error_body(trace)
            return None
        record = trace.frames[frame]
        if record.data:
            return f"frame {frame}'s data", record.data
        raw = trace.chunks.span(*trace.frames.span_of(frame))
        return f"frame {frame}", raw.decode("utf-8", "replace")

    def action_copy(self) -> None:
        """Copy the selection to the clipboard (OSC 52: works over ssh, in most terminals)."""
        target = self.copy_target()
        if target is None:
            self.notify("Nothing selected to copy: step to a frame first.", severity="warning")
            return
        what, text = target
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what}: {len(text.encode()):,} bytes", timeout=2, markup=False)

    def action_play(self) -> None:
        """Play or pause with the recorded timing."""
        if self.player.playing:
            self._stop_playing(None)
            return
        self.cursor.follow = False
        self.player.start(time.monotonic())
        self._play_timer = self.set_interval(1 / PLAY_RATE, self._play_tick)
        self.refresh_view()

    def _play_tick(self) -> None:
        moved = self.player.tick(time.monotonic())
        if not self.player.playing:
            self._stop_playing(self.player.stopped_by)
        if moved:
            self.refresh_view()

    def _stop_playing(self, reason: str | None) -> None:
        self.player.stop(reason)
        if self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None
        self.refresh_status()

    def action_speed(self, steps: int) -> None:
        """Play faster / slower."""
        speed = self.player.change_speed(steps, time.monotonic())
        rate = self.untimed_rate
        said = f"{rate * speed:g} frames/s" if rate is not None else f"{speed:g}×"
        self.notify(f"Playback speed {said}", timeout=1.5)
        self.refresh_status()

    def breakpoint_target(self) -> Breakpoint | None:
        """What ``b`` toggles: the event's type in the Events pane, else the frame's."""
        focused = self.focused
        if isinstance(focused, EventsList) and self.cursor.event is not None:
            return ("event", str(self.trace.events[self.cursor.event].get("type")))
        return self.cursor.frame_breakpoint()

    def action_breakpoint(self) -> None:
        """Toggle a breakpoint on the selected frame's (or event's) type."""
        target = self.breakpoint_target()
        if target is None:
            self.notify("Select a frame first.", severity="warning")
            return
        now_set = self.cursor.toggle(target)
        what = "frames" if target[0] == "frame" else "events"
        verb = "Breakpoint on" if now_set else "Cleared the breakpoint on"
        self.notify(f"{verb} {what} of type {quoted(target[1]).plain}", markup=False, timeout=2)
        self.refresh_view()

    def action_breakpoints(self) -> None:
        """List the breakpoints, to clear one or all."""
        from .breakpoints import BreakpointsScreen

        self.app.push_screen(
            BreakpointsScreen(self.cursor.breakpoints), lambda _: self.refresh_view()
        )

    def clear_breakpoints(self) -> None:
        """Remove every breakpoint."""
        self.cursor.breakpoints.clear()
        self.refresh_view()

    def action_follow(self) -> None:
        """Follow the newest frame until the user moves."""
        self.cursor.follow = True
        self.cursor.end()
        self.refresh_view()

    def action_cancel_feed(self) -> None:
        """Cancel the live stream (it ends ``interrupted`` / ``cancelled``)."""
        if self.feed is not None and self.feed_running:
            self.feed.cancel()
            self.notify("Cancelling the stream…", timeout=2)

    def action_details(self) -> None:
        """The exchange: request as sent, response status and headers, timings."""
        from .details import DetailsScreen

        exchange: dict[str, Any]
        if self.feed is not None:
            exchange = dict(self.feed.exchange)
        else:
            header = self.trace.header or {}
            exchange = {"request": header.get("request"), "response": header.get("response")}
        self.app.push_screen(DetailsScreen(self.trace, exchange, self.source))

    def can_export(self) -> bool:
        """Whether the trace can be exported now: not while a live stream still arrives.

        The export reads the trace in a thread, and a running feed appends to
        it on the UI thread; a half-received stream is no transcript anyway.
        """
        return not (self.feed is not None and self.feed_running)

    def action_export(self) -> None:
        """The export dialog: options, then the files written and the report."""
        from .export import ExportDialog

        if not self.can_export():
            # Name the cancel key as bound now: a keymap may have moved it.
            cancel = next(
                (
                    self.app.get_key_display(active.binding.with_key(key))
                    for key, active in self.active_bindings.items()
                    if active.binding.id == "live.cancel"
                ),
                "c",
            )
            self.notify(
                f"The stream is still arriving: export it once it has ended, "
                f"or cancel it with {cancel} first.",
                severity="warning",
                markup=False,
            )
            return
        self.app.push_screen(
            ExportDialog(self.trace, source=self.source, live=self.feed is not None)
        )

    def action_help(self) -> None:
        """Every key, as bound now (remapped keys included)."""
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.active_bindings))

    def action_quit(self) -> None:
        """Leave the application."""
        self.app.exit(0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide live-only keys when there is no live feed."""
        if action == "follow":
            return self.feed is not None
        if action == "cancel_feed":
            return self.feed is not None and self.feed_running
        return True
