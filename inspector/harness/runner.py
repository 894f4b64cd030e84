"""Running the matrix: each (driver, scenario) in its own thread, with a deadline.

The driver runs in a thread so that a client which never answers is seen as
``hung`` once the progress timeout plus the margin has passed; the stall is
then released (``abort``), so the thread ends. Runs are independent and run
``jobs`` at a time.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from .drivers import Driver, Outcome, Target, outcome_of_call
from .loopback import LoopbackServer
from .mutations import MUTATIONS
from .oracle import Expectation, expect
from .scenario import Scenario
from .transport import transports_for
from .verdict import judge

__all__ = ["RunResult", "Settings", "http_client", "run_matrix", "run_scenario", "warm_up"]

#: The URL an in-process client is given: its transport answers, nothing is resolved.
IN_PROCESS_URL = "http://127.0.0.1:9"


@dataclass(frozen=True, slots=True)
class Settings:
    """How runs are made."""

    timeout: float = 2.0  # the client's progress (read) timeout
    margin: float = 2.0  # beyond it, a client that has not answered has hung
    guard: bool = False  # put the guard transport between the client and the stream
    loopback: LoopbackServer | None = None


@dataclass
class RunResult:
    """One cell of the matrix."""

    driver: str
    scenario: Scenario
    verdict: str
    why: str
    expected: Expectation
    outcome: Outcome | None
    seconds: float
    guarded: bool = False
    repro: dict[str, Any] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        """The run's JSON record (what ``--json`` writes)."""
        group = (
            MUTATIONS[self.scenario.mutation].group if self.scenario.mutation in MUTATIONS else None
        )
        return {
            "driver": self.driver,
            "capture": self.scenario.capture,
            "provider": self.scenario.provider,
            "mutation": self.scenario.mutation,
            "group": group,
            "guard": self.guarded,
            "verdict": self.verdict,
            "why": self.why,
            "expected": self.expected.to_json(),
            "got": self.outcome.to_json() if self.outcome is not None else None,
            "seconds": round(self.seconds, 4),
            "scenario": self.scenario.to_json(),
            "repro": self.repro,
        }


def http_client(
    scenario: Scenario, abort: threading.Event, guard: bool, module: str = "httpx"
) -> Any:
    """An ``httpx`` (or ``httpx2``) client whose transport plays ``scenario``, maybe guarded."""
    hx = importlib.import_module(module)
    transport = transports_for(hx).sync(scenario, abort)
    if guard:
        from ..guard import guard_for

        transport = guard_for(hx).sync(transport, provider=scenario.provider)
    return hx.Client(transport=transport)


def run_scenario(driver: Driver, scenario: Scenario, settings: Settings) -> RunResult:
    """Serve ``scenario`` to ``driver`` once and judge what it concluded."""
    expected = expect(scenario)
    abort = threading.Event()
    guard = settings.guard and driver.guardable
    http: Any = None
    forget = None
    if driver.extra.get("loopback"):
        if settings.loopback is None:
            raise ValueError(f"driver {driver.name} needs the loopback server")
        base, model = settings.loopback.register(scenario)
        forget = (base, model)
    else:
        module = driver.extra.get("httpx", "httpx")
        http = http_client(scenario, abort, guard, module() if callable(module) else module)
        base, model = IN_PROCESS_URL, scenario.model
    target = Target(base, scenario.provider, model, settings.timeout, http)
    holder: list[Outcome | None] = []
    errors = driver.errors()

    def work() -> None:
        holder.append(outcome_of_call(driver.run, target, errors))

    started = time.perf_counter()
    thread = threading.Thread(target=work, name=f"harness {driver.name}", daemon=True)
    thread.start()
    # A program's start-up has its own allowance, and then the driver itself says
    # when it hung: the thread gets a second more than that.
    startup = driver.extra.get("startup", 0.0)
    thread.join(settings.timeout + settings.margin + (startup + 1.0 if startup else 0.0))
    outcome = holder[0] if holder else None
    elapsed = time.perf_counter() - started
    if not holder:
        abort.set()  # releases the stall, so the client's thread can end
        thread.join(settings.margin)
    if http is not None:
        http.close()
    if forget is not None and settings.loopback is not None:
        settings.loopback.forget(*forget)
    verdict, why = judge(expected, outcome)
    return RunResult(driver.name, scenario, verdict, why, expected, outcome, elapsed, guard)


def warm_up(cells: list[tuple[Driver, Scenario]], settings: Settings) -> None:
    """Run each driver once on each capture, unjudged, before any deadline counts.

    SDKs pay for first use late: ``openai`` imports its Responses resource and
    pydantic builds each event model's validator the first time one is parsed
    (3 s for a ``response.completed`` on a loaded machine), which would make
    the first cells of each kind look hung.
    """
    seen: set[tuple[str, str, str]] = set()
    patient = replace(settings, margin=settings.margin + 30)
    for driver, scenario in cells:
        key = (driver.name, scenario.provider, scenario.capture)
        if key not in seen and not driver.extra.get("loopback"):
            seen.add(key)
            # (ended cleanly: a stall would cost the timeout for nothing)
            run_scenario(driver, replace(scenario, ending="eof"), patient)


def run_matrix(
    cells: Iterable[tuple[Driver, Scenario]], settings: Settings, jobs: int = 1
) -> Iterator[RunResult]:
    """Every cell's result, in the order given (``jobs`` runs at a time), after a warm-up."""
    cells = list(cells)
    warm_up(cells, settings)
    if jobs <= 1:
        for driver, scenario in cells:
            yield run_scenario(driver, scenario, settings)
        return
    with ThreadPoolExecutor(jobs, thread_name_prefix="harness") as pool:
        yield from pool.map(lambda cell: run_scenario(cell[0], cell[1], settings), cells)
