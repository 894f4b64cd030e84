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

:class:`ProxyApp` is the application ``inspector proxy`` runs: the flow list,
with the proxy serving in the app's own event loop, so a flow's trace is
only ever changed on the thread that renders it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Mount
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...core.trace import Trace
from ...session import ProviderUnknown, load_trace
from ...terminal import escape_controls, safe_path
from ..app import InspectorApp
from ..rows import STATE_STYLES, size_label
from ..textsafe import one_line
from ..throttle import RepaintThrottle
from ..widgets.status import source_label
from .main import MainScreen

if TYPE_CHECKING:
    from ...proxy import Flow, FlowLog, ProxyServer

__all__ = ["COLUMNS", "FlowFeed", "FlowsScreen", "ProxyApp", "flow_cells"]

#: (key, title, width) of the table's columns.
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("number", "#", 5),
    ("method", "method", 7),
    ("path", "path", 44),
    ("model", "model", 26),
    ("status", "status", 6),
    ("state", "terminal state", 28),
    ("duration", "duration", 9),
    ("bytes", "bytes", 8),
)


def _state_cell(flow: Flow) -> Text:
    word, _, detail = flow.state.partition(" ")
    text = Text(word, STATE_STYLES.get(word, "dim" if word == "passed" else "bold"))
    if detail:
        text.append(" " + detail, "dim")
    if flow.problem:
        text.append(" · not recorded", "bold red")
    return text


def flow_cells(flow: Flow) -> dict[str, Text]:
    """One row of the table, by column key (client-controlled text escaped)."""
    duration = flow.duration if flow.duration is not None else flow.now()
    return {
        "number": Text(str(flow.number), justify="right"),
        "method": one_line(flow.method, 10),
        "path": one_line(flow.path, 120),
        "model": one_line(flow.model or "—", 60),
        "status": Text(str(flow.status) if flow.status is not None else "…", justify="right"),
        "state": _state_cell(flow),
        "duration": Text(f"{duration:.2f}s", justify="right", style="" if flow.live else "dim"),
        "bytes": Text(size_label(flow.bytes), justify="right"),
    }


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
    FlowsScreen #flows-title { height: 1; }
    FlowsScreen #flows { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="flows.open", tooltip="Open the exchange"),
        Binding("c", "cancel_flow", "Cancel", id="flows.cancel",
                tooltip="Stop the highlighted exchange (the app's connection is reset)"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit (stops the proxy)"),
    ]  # fmt: skip

    def __init__(self, log: FlowLog, *, url: str, upstream: str, repaint_rate: float = 10.0):
        super().__init__()
        self.flow_log = log  # not ``log``: Textual's logger has that name
        self.url = url
        self.upstream = upstream
        self.flows: dict[str, Flow] = {}
        self._changed: dict[str, Flow] = {}
        self._throttle: RepaintThrottle | None = None
        self._repaint_rate = repaint_rate

    def compose(self) -> ComposeResult:
        """Title line, the table, footer."""
        yield Static(id="flows-title")
        table: DataTable[Text] = DataTable(id="flows", cursor_type="row")
        yield table
        yield Footer()

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
        self._repaint()
        table.focus()

    def _schedule(self, delay: float, callback: Callable[[], None]) -> None:
        if delay <= 0:
            self.call_later(callback)
        else:
            self.set_timer(delay, callback)

    def _flow_changed(self, flow: Flow) -> None:
        self._changed[str(flow.number)] = flow
        if self._throttle is not None:
            self._throttle.notify()

    def _repaint(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one(DataTable)
        changed, self._changed = self._changed, {}
        for key, flow in changed.items():
            cells = flow_cells(flow)
            if key in self.flows:
                for column, value in cells.items():
                    table.update_cell(key, column, value)
            else:
                self.flows[key] = flow
                table.add_row(*(cells[column] for column, _, _ in COLUMNS), key=key)
                limit = self.flow_log.flows.maxlen
                if limit is not None and len(self.flows) > limit:
                    # The log forgot the oldest exchange: so does the list (its capture stays).
                    oldest = next(iter(self.flows))
                    del self.flows[oldest]
                    table.remove_row(oldest)
        self._show_title()

    def _tick(self) -> None:
        # Durations of running exchanges tick even when no byte arrives.
        live = {key: flow for key, flow in self.flows.items() if flow.live}
        if live and self._throttle is not None:
            self._changed.update(live)
            self._throttle.notify()

    def _show_title(self) -> None:
        live = sum(1 for flow in self.flows.values() if flow.live)
        title = Text(" inspector proxy · ", "bold", end="")
        title.append(escape_controls(self.url))
        title.append(" → ", "dim")
        title.append(escape_controls(self.upstream))
        directory = self.flow_log.directory
        where = safe_path(directory) if directory is not None else "nowhere"
        title.append(f" · recording to {where}", "dim")
        title.append(f" · {self.flow_log.count} exchanges, {live} open · enter opens one", "dim")
        self.query_one("#flows-title", Static).update(title)

    def _highlighted(self) -> Flow | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.flows.get(key) if key is not None else None

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

        throttle = RepaintThrottle(repaint, self._schedule, time.monotonic, 1 / 30)

        async def follow() -> None:
            screen.feed_running = True
            try:
                await feed.run(throttle.notify)
            finally:
                screen.feed_running = False
                throttle.flush()

        # Bound to the screen: escape removes it, and with it the worker.
        screen.run_worker(follow(), group="flow", exclusive=True, exit_on_error=False)

    def action_quit(self) -> None:
        """Leave the application (the proxy stops with it)."""
        self.app.exit(0)


class ProxyApp(InspectorApp):
    """``inspector proxy``'s TUI: the flow list, with the proxy serving in this loop."""

    # Textual resolves the path from the module defining the class: this one is a level down.
    CSS_PATH = "../inspector.tcss"

    def __init__(self, server: ProxyServer, *, upstream: str) -> None:
        super().__init__(None)
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
