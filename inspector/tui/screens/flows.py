"""The proxy's live flow list: every exchange as it happens, each opening the four panes.

:class:`FlowsScreen` is a table of the proxy's :class:`~inspector.proxy.Flow`
objects — method, path, model, status, terminal state, duration, bytes —
updated while they stream. The log calls back on every change; the screen
only marks the row as changed and repaints the changed rows at most
``repaint_rate`` times a second (:class:`~..throttle.RepaintThrottle`), so a
stream of thousands of chunks a second costs a few table updates.

Enter opens a flow on a :class:`~.main.MainScreen`: a flow still streaming
is shown as a live feed (the cursor follows the newest frame, ``c`` stops
the exchange; its whole trace is rebuilt from the capture so far, as a flow
nobody follows keeps only counts: :meth:`~inspector.proxy.Flow.follow`); a
finished one is read back from its capture (the proxy keeps no finished trace
in memory). Escape comes back to the list.

The header always says where the proxy listens, its upstream, where it
records, and how to point an app at it. As mitmproxy's list does, ``/``
filters (:mod:`~inspector.viewmodel.flowfilter`: words, or ``provider:``,
``model:``, ``status:4xx``, ``state:``, ``path:``), ``s`` cycles the sort,
``delete`` takes a flow off the list (its capture stays), ``r`` replays a
recorded request against its upstream or ``inspector serve`` with faults
(:mod:`~inspector.viewmodel.replay`), ``y`` copies it as a curl command, ``x``
exports it (the export dialog), and ``space`` marks two flows that ``D``
diffs side by side.

:class:`ProxyApp` is the application ``inspector proxy`` runs: the flow list,
with the proxy serving in the app's own event loop, so a flow's trace is
only ever changed on the thread that renders it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Mount
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from ...core.trace import Trace
from ...proxy.routes import recipe
from ...session import ProviderUnknown, load_trace
from ...terminal import escape_controls, safe_path
from ...viewmodel.flowfilter import SORTS, FlowFilter, parse_filter, row_of
from ...viewmodel.flowrows import COLUMNS, FLEXIBLE, column_widths, curl_command, flow_cells
from ...viewmodel.throttle import RepaintThrottle
from ..app import InspectorApp
from ..widgets.footer import KeysFooter
from ..widgets.rowtable import RowTable
from ..widgets.status import source_label
from .following import follow_on_screen
from .main import MainScreen

if TYPE_CHECKING:
    from ...proxy import Flow, FlowLog, ProxyServer

__all__ = [
    "COLUMNS",
    "FLEXIBLE",
    "FlowFeed",
    "FlowsScreen",
    "ProxyApp",
    "column_widths",
    "curl_command",
    "flow_cells",
    "recipe",
]


class FilterBar(Input):
    """The flow list's filter prompt; while it has the focus the footer lists its keys."""

    # (fmt: skip: one binding per two lines, as every BINDINGS list of the TUI.)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Keep the filter", id="flows.bar_keep",
                tooltip="Keep the filter and go back to the list"),
        Binding("escape", "screen.clear_filter", "Leave", id="flows.bar_leave",
                tooltip="Back to the list (an empty filter closes the bar)"),
    ]  # fmt: skip


class FlowFeed:
    """A :class:`~inspector.feeds.Feed` over one live flow (the flow drops its trace at the end)."""

    def __init__(self, flow: Flow, trace: Trace) -> None:
        self.flow = flow
        self.trace = trace
        self.description = flow.description
        #: The flow's own dict, filled in as the exchange goes.
        self.exchange: dict[str, Any] = flow.exchange

    async def run(self, notify: Callable[[], None]) -> None:
        """Notify on every change until the exchange ends."""
        await self.flow.run(notify)

    def cancel(self) -> None:
        """Stop the exchange (the app's connection is reset)."""
        self.flow.cancel()


class FlowsScreen(Screen[None]):
    """Every exchange through the proxy; enter opens one (see the module docstring)."""

    DEFAULT_CSS = """
    FlowsScreen #flows-header { height: auto; padding: 0 1; background: $boost; }
    FlowsScreen #flows-filter { display: none; }
    FlowsScreen #flows-filter.-open { display: block; }
    FlowsScreen #flows { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="flows.open", tooltip="Open the exchange"),
        Binding("slash", "filter", "Filter", key_display="/", id="flows.filter",
                tooltip="Filter: words, or provider: model: status:4xx state: path:"),
        Binding("s", "sort", "Sort", id="flows.sort", tooltip="Sort by the next column"),
        Binding("r", "replay", "Replay", id="flows.replay",
                tooltip="Send the recorded request again: to its upstream or inspector serve"),
        Binding("space", "mark", "Mark", id="flows.mark",
                tooltip="Mark the exchange (two marked: D diffs them)"),
        Binding("D", "diff", "Diff", id="flows.diff", tooltip="Diff the two marked exchanges"),
        Binding("y", "copy_curl", "curl", show=False, id="flows.copy_curl",
                tooltip="Copy the recorded request as a curl command"),
        Binding("x", "export", "Export", show=False, id="flows.export",
                tooltip="Export the exchange's capture (anonymized), golden events, pytest"),
        Binding("delete", "remove", "Remove", show=False, id="flows.remove",
                tooltip="Take the exchange off the list (its capture stays)"),
        Binding("c", "cancel_flow", "Cancel", id="flows.cancel",
                tooltip="Stop the highlighted exchange (the app's connection is reset)"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="flows.clear_filter",
                tooltip="Close the filter bar, or clear the filter"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit (stops the proxy)"),
    ]  # fmt: skip

    def __init__(self, log: FlowLog, *, url: str, upstream: str, repaint_rate: float = 10.0):
        super().__init__()
        self.flow_log = log  # not ``log``: Textual's logger has that name
        self.url = url
        self.upstream = upstream
        #: Every flow the list knows (shown or filtered out), by row key.
        self.flows: dict[str, Flow] = {}
        #: The row keys shown, in the table's order.
        self.shown: list[str] = []
        self.removed: set[str] = set()
        self.marked: list[str] = []
        self.filter: FlowFilter = parse_filter("")
        self.sort = 0  # index into SORTS
        self._changed: dict[str, Flow] = {}
        self._throttle: RepaintThrottle | None = None
        self._repaint_rate = repaint_rate
        self._widths: dict[str, int] | None = None  # set on the first resize

    def compose(self) -> ComposeResult:
        """Header (where, upstream, folder, recipe), filter bar, the table, footer."""
        yield Static(id="flows-header")
        yield FilterBar(placeholder="filter: words, or provider: model: status:4xx state: path:",
                        id="flows-filter", compact=True)  # fmt: skip
        yield RowTable(id="flows")
        yield KeysFooter()

    def on_mount(self) -> None:
        """Columns, what is already in the log, and watching it."""
        table = self.query_one(DataTable)
        for key, title, width in COLUMNS:
            table.add_column(title, key=key, width=width)
        self._throttle = RepaintThrottle(
            self._repaint, self._schedule, time.monotonic, 1 / self._repaint_rate
        )
        for flow in self.flow_log.flows:
            self._changed[str(flow.number)] = flow
        self.flow_log.watch(self._flow_changed)
        self.set_interval(0.5, self._tick)
        # Not through _repaint: while mounting, is_mounted is still False, and the
        # header must be there before the first request.
        self._show_header()
        self.call_after_refresh(self._repaint)
        table.focus()

    def on_resize(self) -> None:
        """Path and model take the room a wide terminal has (the header wraps)."""
        self._fit_columns()

    def _fit_columns(self) -> None:
        table = self.query_one(DataTable)
        widths = column_widths(self.size.width)
        if widths == self._widths:
            return
        self._widths = widths
        titles = {key: title for key, title, _ in COLUMNS}
        for key, column in table.columns.items():
            if key.value in widths and column.width != widths[key.value]:
                column.width = widths[key.value]
                column.auto_width = False
                # "terminal state" in 10 cells reads "terminal s": the short word instead.
                title = titles[key.value]
                short = title.rpartition(" ")[2]
                column.label = Text(title if len(title) <= column.width else short)
        for shown in self.shown:  # cut again, each with its ellipsis
            for column_key, value in self._cells(shown).items():
                table.update_cell(shown, column_key, value)
        table.refresh()

    def _cells(self, key: str) -> dict[str, Text]:
        return flow_cells(self.flows[key], key in self.marked, self._widths)

    def _schedule(self, delay: float, callback: Callable[[], None]) -> None:
        if delay <= 0:
            self.call_later(callback)
        else:
            self.set_timer(delay, callback)

    def _flow_changed(self, flow: Flow) -> None:
        self._changed[str(flow.number)] = flow
        if self._throttle is not None:
            self._throttle.notify()

    def _visible(self, key: str) -> bool:
        return key not in self.removed and (
            not self.filter or self.filter.matches(row_of(self.flows[key]))
        )

    def _repaint(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one(DataTable)
        changed, self._changed = self._changed, {}
        appended = False
        for key, flow in changed.items():
            known = key in self.flows
            self.flows[key] = flow
            if key in self.shown:
                if self._visible(key):
                    for column, value in self._cells(key).items():
                        table.update_cell(key, column, value)
                else:
                    appended = True  # it no longer matches: the rows are laid out again
            elif not known or self._visible(key):
                appended = True
            limit = self.flow_log.flows.maxlen
            if not known and limit is not None and len(self.flows) > limit:
                # The log forgot the oldest exchange: so does the list (its capture stays).
                oldest = next(iter(self.flows))
                del self.flows[oldest]
                self.removed.discard(oldest)
                if oldest in self.marked:
                    self.marked.remove(oldest)
        if appended:
            self._lay_out()
        self._show_header()

    def _order(self) -> list[str]:
        _, key, newest_first = SORTS[self.sort]
        keys = [k for k in self.flows if self._visible(k)]
        return sorted(keys, key=lambda k: key(row_of(self.flows[k])), reverse=newest_first)

    def _lay_out(self) -> None:
        """The rows again: the filter, the sort or the set of flows changed."""
        table = self.query_one(DataTable)
        order = self._order()
        if order == self.shown:
            for key in order:
                for column, value in self._cells(key).items():
                    table.update_cell(key, column, value)
            return
        highlighted = self._highlighted_key()
        table.clear()
        for key in order:
            cells = self._cells(key)
            table.add_row(*(cells[column] for column, _, _ in COLUMNS), key=key)
        self.shown = order
        if highlighted in order:
            table.move_cursor(row=order.index(highlighted), animate=False)

    def _tick(self) -> None:
        # Durations of running exchanges tick even when no byte arrives.
        live = {key: flow for key, flow in self.flows.items() if flow.live}
        if live and self._throttle is not None:
            self._changed.update(live)
            self._throttle.notify()

    def header_text(self) -> Text:
        """Where the proxy listens, its upstream, its folder, the recipe, and the counts."""
        live = sum(1 for flow in self.flows.values() if flow.live)
        title = Text("inspector proxy", "bold", end="")
        title.append("  listening on ", "dim")
        title.append(escape_controls(self.url), "bold cyan")
        title.append("  →  upstream ", "dim")
        title.append(escape_controls(self.upstream), "bold")
        directory = self.flow_log.directory
        where = safe_path(directory) if directory is not None else "nowhere (not recording)"
        title.append("  ·  recording to ", "dim")
        title.append(where)
        title.append("\npoint an app at it: ", "dim")
        title.append("   ".join(recipe(self.url)), "green")
        title.append("\n", "dim")
        shown, total = len(self.shown), len(self.flows)
        count = f"{total} exchanges, {live} open"
        if self.filter or self.removed:
            count = f"{shown} of {total} exchanges shown, {live} open"
        title.append(count, "bold")
        if self.filter:
            title.append("  ·  filter ", "dim")
            title.append(escape_controls(self.filter.text), "bold yellow")
            if not shown and total:
                title.append("  ·  nothing matches: escape clears the filter", "yellow")
        title.append(f"  ·  sorted by {SORTS[self.sort][0]}", "dim")
        if self.marked:
            title.append(f"  ·  marked {', '.join('#' + k for k in self.marked)}", "magenta")
        if not total:
            title.append("  ·  waiting for the first request", "dim")
        return title

    def _show_header(self) -> None:
        self.query_one("#flows-header", Static).update(self.header_text())

    # -- filter, sort, marks, removal ---------------------------------------------

    def action_filter(self) -> None:
        """Open the filter bar (with the current filter, to refine it)."""
        bar = self.query_one("#flows-filter", Input)
        bar.add_class("-open")
        bar.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """The list follows the filter as it is typed."""
        if event.input.id == "flows-filter":
            self.set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter keeps the filter and goes back to the list."""
        if event.input.id == "flows-filter":
            self.query_one(DataTable).focus()

    def set_filter(self, text: str) -> None:
        """Show only the flows ``text`` matches (see :mod:`~inspector.viewmodel.flowfilter`)."""
        self.filter = parse_filter(text)
        self._lay_out()
        self._show_header()

    def action_clear_filter(self) -> None:
        """Close the filter bar; with it closed, clear the filter."""
        bar = self.query_one("#flows-filter", Input)
        if bar.has_focus:
            self.query_one(DataTable).focus()
            if not bar.value:
                bar.remove_class("-open")
            return
        if bar.value:
            bar.value = ""  # Input.Changed clears the filter
        bar.remove_class("-open")

    def action_sort(self) -> None:
        """Sort by the next column (#, duration, bytes, status, model, state)."""
        self.sort = (self.sort + 1) % len(SORTS)
        self._lay_out()
        self._show_header()

    def action_mark(self) -> None:
        """Mark or unmark the highlighted flow; the two last marked are the ones D diffs."""
        key = self._highlighted_key()
        if key is None:
            return
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked = [*self.marked, key][-2:]
        for shown in self.shown:
            for column, value in self._cells(shown).items():
                self.query_one(DataTable).update_cell(shown, column, value)
        self._show_header()

    def action_remove(self) -> None:
        """Take the highlighted flow off the list (its capture stays on disk)."""
        key = self._highlighted_key()
        if key is None:
            return
        self.removed.add(key)
        if key in self.marked:
            self.marked.remove(key)
        self._lay_out()
        self._show_header()

    # -- acting on one flow -------------------------------------------------------

    def _highlighted_key(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return key if key in self.flows else None

    def _highlighted(self) -> Flow | None:
        key = self._highlighted_key()
        return self.flows.get(key) if key is not None else None

    def _recorded(self, flow: Flow | None, doing: str) -> Trace | None:
        """The finished flow's trace from its capture, or None (and why, said)."""
        if flow is None:
            return None
        if flow.live or flow.capture is None or flow.problem is not None:
            why = "it is still going on" if flow.live else flow.problem or "it was not recorded"
            self.notify(f"#{flow.number} cannot be {doing}: {escape_controls(why)}", markup=False)
            return None
        try:
            return load_trace(flow.capture)
        except (ProviderUnknown, ValueError, OSError) as exc:
            self.notify(escape_controls(str(exc)), severity="error", markup=False)
            return None

    def action_replay(self) -> None:
        """Ask where to send the highlighted flow's request again, then follow the replay."""
        flow = self._highlighted()
        trace = self._recorded(flow, "replayed")
        if flow is None or trace is None or trace.header is None:
            return
        from .replay import ReplayDialog

        default = self.upstream if self.upstream.startswith("http") else ""
        self.app.push_screen(
            ReplayDialog(flow.number, trace.header, default, self.flow_log.directory)
        )

    def action_copy_curl(self) -> None:
        """Copy the highlighted flow's request as a curl command."""
        flow = self._highlighted()
        trace = self._recorded(flow, "copied")
        command = curl_command(trace.header or {}) if trace is not None else None
        if flow is None or command is None:
            return
        self.app.copy_to_clipboard(command)
        self.notify(f"Copied #{flow.number} as curl ({len(command):,} characters)", timeout=2)

    def action_export(self) -> None:
        """The export dialog over the highlighted flow's capture."""
        flow = self._highlighted()
        trace = self._recorded(flow, "exported")
        if flow is None or trace is None:
            return
        from .export import ExportDialog

        self.app.push_screen(ExportDialog(trace, source=source_label(trace.source), live=False))

    def action_diff(self) -> None:
        """Both marked flows' events side by side, the first divergence marked."""
        if len(self.marked) != 2:
            self.notify("Mark two exchanges with space first, then D diffs them.", timeout=3)
            return
        flows = [self.flows[key] for key in self.marked]
        captures = [flow.capture for flow in flows]
        if any(c is None or f.live for c, f in zip(captures, flows, strict=True)):
            self.notify("Both exchanges must have ended and been recorded.", timeout=3)
            return
        from ...stream_diff import DiffInputError, diff_streams
        from .diff import DiffScreen

        try:
            diff = diff_streams(str(captures[0]), str(captures[1]))
        except DiffInputError as exc:
            self.notify(escape_controls(str(exc)), severity="error", markup=False)
            return
        self.app.push_screen(DiffScreen(diff))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter (or a click on the selected row) opens the exchange."""
        flow = self.flows.get(event.row_key.value) if event.row_key.value is not None else None
        if flow is not None:
            self.open_flow(flow)

    def action_open(self) -> None:
        """Open the highlighted exchange."""
        flow = self._highlighted()
        if flow is not None:
            self.open_flow(flow)

    def action_cancel_flow(self) -> None:
        """Stop the highlighted exchange if it is still going on."""
        flow = self._highlighted()
        if flow is not None and flow.live:
            flow.cancel()

    def open_flow(self, flow: Flow) -> None:
        """The four panes over the exchange: following it live, or from its capture."""
        if flow.live and flow.recording:
            self._open_live(flow)
        elif not flow.live and flow.capture is not None and flow.problem is None:
            try:
                trace = load_trace(flow.capture)
            except (ProviderUnknown, ValueError, OSError) as exc:
                self.notify(escape_controls(str(exc)), severity="error", markup=False)
                return
            screen = MainScreen(trace, source=source_label(str(flow.capture)), from_picker=True)
            self.app.push_screen(screen)
        else:
            why = flow.problem or (
                "not a stream on a provider's streaming endpoint"
                if flow.status is not None
                else "still waiting for the upstream"
            )
            self.notify(f"#{flow.number} was not recorded: {escape_controls(why)}", markup=False)

    def _open_live(self, flow: Flow) -> None:
        # The flow recorded counts, not history, until now: its whole trace is
        # rebuilt from the capture so far, and kept from here on.
        trace = flow.follow()
        if trace is None:
            why = flow.problem or "its capture could not be read back"
            self.notify(f"#{flow.number} cannot be followed: {escape_controls(why)}", markup=False)
            return
        feed = FlowFeed(flow, trace)
        screen = MainScreen(
            trace, source=flow.description, feed=feed, from_picker=True, position=-1
        )
        screen.cursor.follow = True
        self.app.push_screen(screen)

        def repaint() -> None:
            if screen.is_mounted:
                screen.trace_grew()

        follow_on_screen(screen, feed, self._schedule)

    def action_quit(self) -> None:
        """Leave the application (the proxy stops with it)."""
        self.app.exit(0)


class ProxyApp(InspectorApp):
    """``inspector proxy``'s TUI: the flow list, with the proxy serving in this loop."""

    # Textual resolves the path from the module defining the class: this one is a level down.
    CSS_PATH = "../inspector.tcss"

    def __init__(
        self, server: ProxyServer, *, upstream: str, keymap: Mapping[str, str] | None = None
    ) -> None:
        """``keymap``: checked binding ids → keys (the user's keymap file, as ``open`` reads it)."""
        super().__init__(None, keymap=keymap)
        self.server = server
        self.upstream = upstream

    def on_mount(self, event: Mount) -> None:  # type: ignore[override]
        """The flow list, and the proxy started (instead of the picker)."""
        event.prevent_default()  # not InspectorApp's: there is no trace or picker here
        self._quiet_garbage_collector()
        self.push_screen(FlowsScreen(self.server.log, url=self.server.url, upstream=self.upstream))
        self.run_worker(self.server.serve(), group="proxy", exit_on_error=True)

    async def action_quit(self) -> None:
        """Stop the proxy and leave at once: open exchanges end ``cancelled``."""
        self.server.shutdown()
        self.server.settle_open()
        self.exit(0)
