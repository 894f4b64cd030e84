"""Shared test configuration: hypothesis profiles, paths, and the CLI run as users run it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CAPTURES = ROOT / "captures"


def inspector(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m inspector ARGS`` in a process of its own, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


settings.register_profile(
    "ci", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_sessionfinish(session: object, exitstatus: object) -> None:
    """Collect once, then freeze what is left, before an xdist worker says it has finished.

    After ``workerfinished`` the controller tears the worker's gateway down,
    and execnet gives the worker 5 s to end before it sends it a SIGINT
    (``execnet.gateway_base.WorkerGateway._terminate_execution``). Until then
    pytest's unraisable-exception cleanup runs five full collections over
    everything the run kept; on a loaded machine that takes longer, and the
    SIGINT lands in hypothesis's GC callback as a ``KeyboardInterrupt`` that
    pytest reports as a ``PytestUnraisableExceptionWarning``. Collected here
    (this hook runs before xdist's own, which sends ``workerfinished``), and
    frozen, those last collections have almost nothing left to walk.
    """
    gc.collect()
    gc.freeze()
