"""The harness judged on two toy clients: a naive one is caught in every class, a careful
one agrees (or raises where it must) everywhere."""

from __future__ import annotations

from collections import defaultdict

import pytest

from inspector.harness.mutations import MUTATIONS, applicable
from inspector.harness.runner import RunResult, Settings, run_matrix
from inspector.harness.verdict import FAILING

from .conftest import MARGIN, TIMEOUT
from .toys import CAREFUL, NAIVE

SETTINGS = Settings(timeout=TIMEOUT, margin=MARGIN)

#: Mutation families a client that trusts EOF, splits chunks as they come and has
#: no timeout must be caught by.
FAMILIES = {
    "rechunking": ("split-utf8", "split-field", "split-cr-lf", "one-byte"),
    "line ends": ("lines-cr", "lines-crlf"),
    "EOF before the final signal": ("eof@mid-text", "eof@mid-tool-args", "eof@after-finish"),
    "stall": ("stall@start", "stall@mid-text", "stall@after-finish"),
    "final signal dropped": ("no-final-signal",),
    "mid-stream error shapes": ("error-data", "error-event"),
    "lying finish": ("lying-finish",),
}


def _run(driver, bases) -> list[RunResult]:
    cells = [(driver, s) for b in bases for s in applicable(b)]
    return list(run_matrix(cells, SETTINGS, jobs=4))


@pytest.fixture(scope="module")
def naive_runs(small_bases) -> list[RunResult]:
    return _run(NAIVE, small_bases)


def test_the_naive_client_earns_every_failing_verdict(naive_runs):
    seen = {r.verdict for r in naive_runs}
    assert seen >= FAILING | {"false_alarm"}


@pytest.mark.parametrize("family", FAMILIES)
def test_the_naive_client_is_caught_by_each_family(naive_runs, family):
    caught = defaultdict(set)
    for r in naive_runs:
        if r.verdict not in ("agrees", "raised"):
            caught[r.scenario.mutation].add(r.verdict)
    assert any(caught[m] for m in FAMILIES[family]), dict(caught)


def test_a_stall_without_a_client_timeout_is_hung_not_waited_for(naive_runs):
    hung = [r for r in naive_runs if r.verdict == "hung"]
    assert hung and all(r.scenario.ending == "stall" for r in hung)
    assert all(r.seconds < TIMEOUT + MARGIN + 0.5 for r in hung)


def test_the_careful_client_agrees_everywhere(small_bases):
    runs = _run(CAREFUL, small_bases)
    wrong = [(r.scenario.capture, r.scenario.mutation, r.verdict, r.why) for r in runs
             if r.verdict not in ("agrees", "raised")]  # fmt: skip
    assert wrong == []
    # Every mutation that applies to these captures was run.
    assert {r.scenario.mutation for r in runs} == set(MUTATIONS) - {"response-failed"}
