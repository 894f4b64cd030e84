"""A pytest plugin: serve a capture, under a mutation of the harness's matrix, to your code.

Registered through the ``pytest11`` entry point, so installing the package is
enough. A test asks for ``inspector_replay`` (a factory) and, to run once per
mutation, for ``inspector_mutation``::

    def test_my_client(inspector_replay, inspector_mutation):
        replay = inspector_replay("captures/openai-chat/tool-call-fragmented.jsonl",
                                  inspector_mutation)
        client = MyClient(http_client=replay.http_client())   # in process
        # or: MyClient(base_url=replay.base_url)               # over loopback HTTP
        try:
            result = client.ask("hi")
        except MyClientError as exc:
            replay.assert_correct(error=str(exc))
        else:
            replay.assert_correct(text=result.text, tool_calls=result.calls,
                                  finish_reason=result.finish_reason)

``@pytest.mark.inspector_mutations("eof@mid-text", ...)`` or the ini option
``inspector_mutations`` narrow the mutations. Nothing heavy is imported until
a fixture is used.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["Replay", "inspector_mutation", "inspector_replay"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ini option narrowing ``inspector_mutation``."""
    parser.addini(
        "inspector_mutations",
        "mutation names the inspector_mutation fixture runs over (default: all)",
        type="args",
        default=[],
    )


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker."""
    config.addinivalue_line(
        "markers", "inspector_mutations(*names): the mutations inspector_mutation runs over"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``inspector_mutation`` over the matrix (or the marker's / ini's names)."""
    if "inspector_mutation" not in metafunc.fixturenames:
        return
    from .harness.mutations import mutation_names

    marker = metafunc.definition.get_closest_marker("inspector_mutations")
    names: Sequence[str] = (
        marker.args if marker else metafunc.config.getini("inspector_mutations") or mutation_names()
    )
    metafunc.parametrize("inspector_mutation", list(names))


@dataclass
class Replay:
    """One capture under one mutation: where to get it, and what a client must conclude."""

    scenario: Any  # inspector.harness.scenario.Scenario
    expected: Any  # inspector.harness.oracle.Expectation
    timeout: float = 5.0
    abort: threading.Event = field(default_factory=threading.Event)
    _server: Any = None
    _clients: list[Any] = field(default_factory=list)

    @property
    def transport(self) -> Any:
        """An ``httpx.BaseTransport`` that answers every request with the mutated stream."""
        from .harness.transport import ScenarioTransport

        return ScenarioTransport(self.scenario, self.abort)

    @property
    def async_transport(self) -> Any:
        """The same as an ``httpx.AsyncBaseTransport``."""
        from .harness.transport import AsyncScenarioTransport

        return AsyncScenarioTransport(self.scenario, self.abort)

    def http_client(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` on :attr:`transport` (closed at the test's end)."""
        import httpx

        client = httpx.Client(transport=self.transport, **kwargs)
        self._clients.append(client)
        return client

    @property
    def base_url(self) -> str:
        """A loopback URL (the server root) playing the stream over real HTTP, started on
        first use; the client appends its provider's path and may send any model."""
        if self._server is None:
            from .harness.loopback import LoopbackServer

            self._server = LoopbackServer().__enter__()
            self._base, _ = self._server.register(self.scenario)
        return str(self._base)

    def verdict(self, *, error: str | None = None, text: str = "",
                tool_calls: Sequence[tuple[str, str]] = (),
                finish_reason: str | None = None) -> tuple[str, str]:  # fmt: skip
        """``(verdict, why)`` for what the code under test concluded (``error``: it failed)."""
        from .harness.drivers import Outcome
        from .harness.verdict import judge

        outcome = Outcome(error is None, text, tuple(tool_calls), finish_reason, error)
        return judge(self.expected, outcome)

    def assert_correct(self, **concluded: Any) -> None:
        """Fail the test unless the conclusion agrees with the oracle or is a due error."""
        verdict, why = self.verdict(**concluded)
        assert verdict in ("agrees", "raised"), (
            f"{verdict} under {self.scenario.mutation} of {self.scenario.capture}: {why}"
        )

    def close(self) -> None:
        """Release stalls, close clients, stop the server."""
        self.abort.set()
        for client in self._clients:
            client.close()
        if self._server is not None:
            self._server.__exit__(None, None, None)
            self._server = None


@pytest.fixture
def inspector_mutation(request: pytest.FixtureRequest) -> str:
    """The mutation of this test run (parametrized by :func:`pytest_generate_tests`)."""
    return str(request.param)


@pytest.fixture
def inspector_replay() -> Iterator[Any]:
    """A factory: ``inspector_replay(capture, mutation="as-recorded", timeout=5.0)`` -> Replay.

    Skips the test when the mutation does not apply to the capture (no tool call to
    break, say).
    """
    made: list[Replay] = []

    def replay(capture: str | Path, mutation: str = "as-recorded", timeout: float = 5.0) -> Replay:
        from .capture import read_recording
        from .harness.mutations import MUTATIONS
        from .harness.oracle import expect
        from .harness.scenario import base_of

        if mutation not in MUTATIONS:
            raise ValueError(f"unknown mutation {mutation!r}; known: {', '.join(MUTATIONS)}")
        base = base_of(read_recording(capture), capture)
        if base is None:
            raise ValueError(f"{capture}: cannot tell which provider this stream is from")
        scenario = MUTATIONS[mutation].make(base, mutation)
        if scenario is None:
            pytest.skip(f"{mutation} does not apply to {base.name}")
        item = Replay(scenario, expect(scenario), timeout)
        made.append(item)
        return item

    yield replay
    for item in made:
        item.close()
