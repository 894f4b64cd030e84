"""The proxy's list of exchanges, in arrival order, and its one-line summary.

:class:`FlowLog` numbers each new :class:`~.flow.Flow`, keeps the most recent
ones (a bounded list: the captures on disk are the full record) and tells
its watchers about every change, which is how the TUI's flow list and the
headless printer learn about exchanges.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from ..redact import SecretSet
from ..terminal import escape_controls, safe_path
from .flow import Described, Flow, FlowRequest
from .routes import Route

__all__ = ["MAX_FLOWS", "FlowLog", "flow_line"]

#: Exchanges the log remembers; older ones leave the list (not the disk).
MAX_FLOWS: Final = 10_000
#: Client-controlled text (paths, models) is cut to this many characters in one line.
_SHOWN: Final = 120

Watcher = Callable[[Flow], None]


class FlowLog:
    """Every exchange so far (the last :data:`MAX_FLOWS`), and who wants to know."""

    def __init__(
        self, directory: Path | None, limit: int = MAX_FLOWS, max_record: int | None = None
    ) -> None:
        self.directory = directory
        #: Response bytes each capture records at most (the proxy sets its --max-record).
        self.max_record = max_record
        #: How many times its compressed size a recorded body may decode to (--max-ratio).
        self.max_ratio: int | None = None
        self.flows: deque[Flow] = deque(maxlen=limit)
        self.count = 0
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> None:
        """Call ``watcher(flow)`` when a flow starts and after each of its changes."""
        self._watchers.append(watcher)

    def begin(
        self,
        request: FlowRequest,
        route: Route,
        model: str | None,
        secrets: SecretSet | Iterable[str],
        described: Described | None = None,
    ) -> Flow:
        """A new exchange (``described``: its body already read, off the event loop)."""
        self.count += 1
        flow = Flow(
            self.count,
            request,
            route,
            model,
            secrets_seen=secrets,
            directory=self.directory,
            described=described,
            max_record=self.max_record,
            max_ratio=self.max_ratio,
        )
        self.flows.append(flow)
        flow.watch(lambda: self._changed(flow))
        self._changed(flow)
        return flow

    def _changed(self, flow: Flow) -> None:
        for watcher in tuple(self._watchers):
            watcher(flow)


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def flow_line(flow: Flow) -> str:
    """One line for a finished exchange, every client-controlled part escaped."""
    parts = [
        f"#{flow.number}",
        escape_controls(flow.method),
        escape_controls(_cut(flow.path)),
        f"model={escape_controls(_cut(flow.model))}" if flow.model else "model=-",
        str(flow.status) if flow.status is not None else "---",
        flow.state,
        f"{flow.duration:.3f}s" if flow.duration is not None else "-",
        f"{flow.bytes}B",
    ]
    if flow.capture is not None:
        parts.append(f"capture={safe_path(flow.capture)}")
    if flow.problem:
        parts.append(f"problem={escape_controls(flow.problem)}")
    return " ".join(parts)
