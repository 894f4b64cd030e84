"""Scenarios over real loopback HTTP: the replay server, one URL prefix per run.

For clients that are not Python (the ``command:`` driver) the harness serves
each scenario through :class:`~inspector.serve.ReplayServer`. A run's base URL
is ``<server>/r/<id>``; :class:`Router` strips that prefix and asks the replay
server, through its own fault header, for the run's ending (``reset=N``, or a
silent ``stall``). The server itself is used as it is.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Final

from starlette.types import ASGIApp, Receive, Scope, Send

from ..capture import Recording
from ..core.trace import TransportEnd
from ..serve.catalog import Catalog, Entry
from ..serve.faults import FAULT_HEADER
from ..serve.runner import ReplayServer
from .scenario import Scenario

__all__ = ["LoopbackServer", "Router"]

#: A stall the client must give up on: far longer than any progress timeout.
_STALL_SECONDS: Final = 3600


def _faults(scenario: Scenario) -> str:
    size = len(scenario.body)
    if scenario.ending == "reset":
        return f"reset={size}"
    if scenario.ending == "stall":
        return f"stall={_STALL_SECONDS}; stall_at={size}; ping_every=0"
    return ""


class Router:
    """ASGI middleware: ``/r/<id>/...`` -> ``/...`` with run ``id``'s fault header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.faults: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            _, prefix, run, rest = ([*scope["path"].split("/", 3), "", "", ""])[:4]
            if prefix == "r" and run in self.faults:
                headers = [(k, v) for k, v in scope["headers"] if k != FAULT_HEADER.encode()]
                if self.faults[run]:
                    headers.append((FAULT_HEADER.encode(), self.faults[run].encode()))
                scope = dict(
                    scope, path="/" + rest, raw_path=("/" + rest).encode(), headers=headers
                )
        await self.app(scope, receive, send)


class LoopbackServer:
    """A replay server with an empty catalog that scenarios are added to, one per run."""

    def __init__(self) -> None:
        self.catalog = Catalog()
        self.server = ReplayServer(self.catalog, speed=0)
        self.router = Router(self.server.app)
        # uvicorn loads its config's app when it starts: the router goes in front.
        self.server.server.config.app = self.router
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def __enter__(self) -> LoopbackServer:
        self.server.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.stop()

    def register(self, scenario: Scenario) -> tuple[str, str]:
        """Serve ``scenario``; returns ``(base URL, model)`` for the client."""
        with self._lock:
            run = str(next(self._ids))
        model = f"harness-{run}"
        headers = dict(scenario.headers)
        rec = Recording(
            path=f"<harness run {run}>",
            kind="capture",
            header={
                "provider": scenario.provider,
                "response": {"status": scenario.status, "headers": headers},
            },
            chunks=[(0.0, piece) for piece in scenario.pieces],
            end=TransportEnd("eof"),
        )
        with self._lock:
            self.catalog.add(Entry(model, scenario.provider, rec.path, rec))  # type: ignore[arg-type]
            self.router.faults[run] = _faults(scenario)
        return f"{self.server.url}/r/{run}", model

    def forget(self, base_url: str, model: str) -> None:
        """Stop serving a finished run."""
        run = base_url.rsplit("/", 1)[-1]
        with self._lock:
            self.router.faults.pop(run, None)
            for entries in self.catalog.by_provider.values():
                entries.pop(model, None)
