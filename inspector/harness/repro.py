"""What a generated repro test runs: one scenario, one driver, the oracle."""

from __future__ import annotations

from dataclasses import dataclass

from .drivers import DRIVERS, available
from .runner import RunResult, Settings, run_scenario
from .scenario import Scenario

__all__ = ["Repro"]


@dataclass(frozen=True)
class Repro:
    """A minimized failing cell, as literals (see :func:`~.shrink.write_repro`)."""

    driver: str
    provider: str
    model: str
    status: int
    ending: str
    pieces: tuple[bytes, ...]
    headers: tuple[tuple[str, str], ...]
    verdict: str  # what the harness saw when it wrote the repro

    def scenario(self) -> Scenario:
        """The scenario the repro serves."""
        return Scenario("repro", "repro", self.provider, self.model, self.pieces,
                        self.ending, self.status, self.headers)  # fmt: skip

    def run(self, timeout: float = 2.0) -> RunResult:
        """Serve it to the driver once (skips the test when the driver's package is missing)."""
        driver = DRIVERS[self.driver]
        missing = available(driver)
        if missing is not None:
            import pytest

            pytest.skip(missing)
        return run_scenario(driver, self.scenario(), Settings(timeout=timeout, margin=timeout))
