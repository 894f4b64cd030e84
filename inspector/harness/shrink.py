"""The shrinker: delta debugging (ddmin) over a scenario's frames, then its bytes.

:func:`shrink` keeps the smallest scenario found for which ``keep`` still
holds, within ``budget`` tests: first whole SSE frames are removed, then
single bytes. Piece boundaries (how the bytes were chunked) survive where
their bytes do, so a failure that needs a split UTF-8 character keeps it.
:func:`write_repro` saves the result as a capture and a ready pytest file.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from ..capture import Recording
from ..capture_writer import CaptureWriter
from ..serve.faults import frame_ends
from .scenario import ENDINGS, Scenario

__all__ = ["Shrunk", "ddmin", "load_scenario", "shrink", "write_repro"]

T = TypeVar("T")
#: One atom of a scenario: its bytes, and whether a piece ends after them.
Atom = tuple[bytes, bool]


def ddmin(items: Sequence[T], test: Callable[[list[T]], bool], budget: int) -> list[T]:
    """Zeller's ddmin: a 1-minimal subsequence of ``items`` for which ``test`` holds
    (or the smallest found when ``budget`` tests run out). ``test(items)`` is assumed."""
    current = list(items)
    n = 2
    tests = 0
    while len(current) >= 2 and tests < budget:
        size = max(1, len(current) // n)
        subsets = [current[i : i + size] for i in range(0, len(current), size)]
        reduced = False
        for i, subset in enumerate(subsets):
            complement = [x for j, s in enumerate(subsets) if j != i for x in s]
            for candidate in (subset, complement) if n > 2 else (subset,):
                tests += 1
                if tests > budget:
                    return current
                if test(candidate):
                    current = candidate
                    n = max(n - 1, 2) if candidate is complement else 2
                    reduced = True
                    break
            if reduced:
                break
        if not reduced:
            if n >= len(current):
                break
            n = min(n * 2, len(current))
    if len(current) == 1 and tests < budget and test([]):
        return []
    return current


def _atoms(scenario: Scenario, cuts: Sequence[int]) -> list[Atom]:
    """The scenario's bytes split at ``cuts`` and at its piece ends."""
    body = scenario.body
    piece_ends, at = set(), 0
    for piece in scenario.pieces:
        at += len(piece)
        piece_ends.add(at)
    edges = sorted({0, len(body), *piece_ends, *(c for c in cuts if 0 < c < len(body))})
    return [(body[a:b], b in piece_ends) for a, b in itertools.pairwise(edges) if b > a]


def _scenario_of(base: Scenario, atoms: Sequence[Atom]) -> Scenario:
    pieces: list[bytes] = []
    current = bytearray()
    for data, ends in atoms:
        current += data
        if ends:
            pieces.append(bytes(current))
            current.clear()
    if current:
        pieces.append(bytes(current))
    return base.with_pieces(tuple(pieces))


def _groups(atoms: list[Atom], ends: set[int]) -> list[list[Atom]]:
    """Atoms grouped into frames (a group ends at a frame end)."""
    groups: list[list[Atom]] = [[]]
    at = 0
    for atom in atoms:
        groups[-1].append(atom)
        at += len(atom[0])
        if at in ends:
            groups.append([])
    return [g for g in groups if g]


@dataclass(frozen=True)
class Shrunk:
    """What :func:`shrink` found: the smaller scenario and how many tests it took."""

    scenario: Scenario
    tests: int
    frames_before: int
    frames_after: int
    bytes_before: int
    bytes_after: int


def _frames(scenario: Scenario) -> int:
    body = scenario.body
    ends = frame_ends(body)
    return len(ends) + (1 if (ends[-1] if ends else 0) < len(body) else 0)


def shrink(scenario: Scenario, keep: Callable[[Scenario], bool], budget: int = 200) -> Shrunk:
    """The smallest scenario (fewest frames, then bytes) for which ``keep`` still holds."""
    tests = 0

    def counted(candidate: Scenario) -> bool:
        nonlocal tests
        tests += 1
        return keep(candidate)

    body = scenario.body
    ends = set(frame_ends(body))
    groups = _groups(_atoms(scenario, sorted(ends)), ends)
    kept = ddmin(
        groups,
        lambda gs: counted(_scenario_of(scenario, [a for g in gs for a in g])),
        budget,
    )
    framed = _scenario_of(scenario, [a for g in kept for a in g])
    single = [
        (bytes([b]), ends and i == len(data) - 1)
        for data, ends in _atoms(framed, ())
        for i, b in enumerate(data)
    ]
    left = max(0, budget - tests)
    final = _scenario_of(framed, ddmin(single, lambda a: counted(_scenario_of(framed, a)), left))
    if not keep(final):  # (never expected: ddmin only keeps passing candidates)
        final = framed
    return Shrunk(final, tests, _frames(scenario), _frames(final), len(body), len(final.body))


_SAFE: Final = re.compile(r"[^A-Za-z0-9_]+")


def _safe(text: str) -> str:
    return _SAFE.sub("_", text).strip("_")[:60] or "x"


def save_capture(scenario: Scenario, path: Path) -> None:
    """Write ``scenario`` as a capture (its ending in the end record and the header)."""
    header = {
        "provider": scenario.provider,
        "model": scenario.model,
        "response": {"status": scenario.status, "headers": dict(scenario.headers)},
        "harness": {"ending": scenario.ending, "capture": scenario.capture,
                    "mutation": scenario.mutation},
    }  # fmt: skip
    writer = CaptureWriter(path, header)
    try:
        for piece in scenario.pieces:
            writer.chunk(0.0, piece)
        writer.end(ENDINGS[scenario.ending], 0.0)
    finally:
        writer.abandon()


def load_scenario(rec: Recording, name: str) -> Scenario | None:
    """A capture as a scenario: its chunks as pieces, its ending from the harness header or
    its end record (a recorded reset stays a reset)."""
    from .scenario import base_of

    base = base_of(rec, name)
    if base is None:
        return None
    harness = (rec.header or {}).get("harness")
    ending = harness.get("ending") if isinstance(harness, dict) else None
    if ending not in ENDINGS:
        reverse = {v: k for k, v in ENDINGS.items()}
        ending = reverse.get(rec.end.reason if rec.end is not None else "eof", "eof")
    return base.scenario("as-recorded", base.chunks, ending)


_TEST: Final = '''"""A minimized repro made by `inspector harness` (every value is a literal)."""

from inspector.harness.repro import Repro

REPRO = Repro(
    driver={driver},
    provider={provider},
    model={model},
    status={status},
    ending={ending},
    pieces={pieces},
    headers={headers},
    verdict={verdict},
)


def test_client_does_not_conclude_wrongly():
    result = REPRO.run()
    assert result.verdict in ("agrees", "raised"), result.why
'''


def write_repro(
    directory: Path, driver: str, verdict: str, shrunk: Shrunk, index: int
) -> dict[str, Any]:
    """Save the shrunk scenario as ``<name>.jsonl`` and ``test_<name>.py`` in ``directory``."""
    s = shrunk.scenario
    stem = f"{index:04d}_{_safe(driver)}_{_safe(s.capture)}_{_safe(s.mutation)}"
    directory.mkdir(parents=True, exist_ok=True)
    capture = directory / f"{stem}.jsonl"
    test = directory / f"test_{stem}.py"
    save_capture(s, capture)
    test.write_text(
        _TEST.format(
            driver=repr(driver),
            provider=repr(s.provider),
            model=repr(s.model),
            status=repr(s.status),
            ending=repr(s.ending),
            pieces=repr(s.pieces),
            headers=repr(s.headers),
            verdict=repr(verdict),
        ),
        encoding="utf-8",
    )
    return {
        "capture": str(capture),
        "test": str(test),
        "frames": [shrunk.frames_before, shrunk.frames_after],
        "bytes": [shrunk.bytes_before, shrunk.bytes_after],
        "tests": shrunk.tests,
    }
