"""Playing a scenario in process: httpx transports that answer every request with it.

A stall waits as a real socket would: until the request's own read timeout
(then :class:`httpx.ReadTimeout`, as httpcore raises it) or, with no
timeout, until the harness gives up and sets ``abort`` (then a read error,
so the client's thread ends).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncIterator, Iterator
from types import ModuleType, SimpleNamespace
from typing import Any

import httpx

from .scenario import Scenario

__all__ = ["AsyncScenarioTransport", "ScenarioTransport", "transports_for"]


def _read_timeout(request: httpx.Request) -> float | None:
    timeout = request.extensions.get("timeout") or {}
    value = timeout.get("read") if isinstance(timeout, dict) else None
    return float(value) if value is not None else None


@functools.cache
def transports_for(hx: ModuleType) -> Any:
    """The scenario transports for ``hx`` (``httpx``, or a fork with its API such as ``httpx2``)."""

    def _ended(scenario: Scenario, request: Any, waited: bool) -> None:
        """Raise what the client's transport would at the end of ``scenario``'s pieces."""
        if scenario.ending == "reset":
            raise hx.ReadError("[Errno 104] Connection reset by peer", request=request)
        if scenario.ending == "stall":
            if waited:
                raise hx.ReadTimeout("The read operation timed out", request=request)
            raise hx.ReadError("the harness gave up on this run", request=request)

    class _Stream(hx.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, scenario: Scenario, request: Any, abort: threading.Event):
            self.scenario = scenario
            self.request = request
            self.abort = abort

        def __iter__(self) -> Iterator[bytes]:
            yield from self.scenario.pieces
            waited = False
            if self.scenario.ending == "stall":
                timeout = _read_timeout(self.request)
                waited = not self.abort.wait(timeout)
            _ended(self.scenario, self.request, waited)

    class _AsyncStream(hx.AsyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, scenario: Scenario, request: Any, abort: threading.Event):
            self.scenario = scenario
            self.request = request
            self.abort = abort

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for piece in self.scenario.pieces:
                await asyncio.sleep(0)
                yield piece
            waited = False
            if self.scenario.ending == "stall":
                timeout = _read_timeout(self.request)
                loop = asyncio.get_running_loop()
                until = None if timeout is None else loop.time() + timeout
                while not self.abort.is_set() and (until is None or loop.time() < until):
                    await asyncio.sleep(0.01)
                waited = not self.abort.is_set()
            _ended(self.scenario, self.request, waited)

    def _response(scenario: Scenario, request: Any, stream: Any) -> Any:
        return hx.Response(
            scenario.status, headers=list(scenario.headers), stream=stream, request=request
        )

    class ScenarioTransport(hx.BaseTransport):  # type: ignore[misc, name-defined]
        """Answers every request with ``scenario`` (sync). ``requests`` counts them."""

        def __init__(self, scenario: Scenario, abort: threading.Event | None = None) -> None:
            self.scenario = scenario
            self.abort = abort or threading.Event()
            self.requests = 0

        def handle_request(self, request: Any) -> Any:
            """Serve the scenario (the request body is read, then ignored)."""
            request.read()
            self.requests += 1
            return _response(self.scenario, request, _Stream(self.scenario, request, self.abort))

    class AsyncScenarioTransport(hx.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        """:class:`ScenarioTransport` for async clients."""

        def __init__(self, scenario: Scenario, abort: threading.Event | None = None) -> None:
            self.scenario = scenario
            self.abort = abort or threading.Event()
            self.requests = 0

        async def handle_async_request(self, request: Any) -> Any:
            """Serve the scenario."""
            await request.aread()
            self.requests += 1
            stream = _AsyncStream(self.scenario, request, self.abort)
            return _response(self.scenario, request, stream)

    return SimpleNamespace(sync=ScenarioTransport, async_=AsyncScenarioTransport)


ScenarioTransport = transports_for(httpx).sync
AsyncScenarioTransport = transports_for(httpx).async_
