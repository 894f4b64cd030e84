"""The harness's outputs: the terminal matrix, the JSON for CI, the Markdown report.

Capture names and client messages are untrusted: the terminal matrix
escapes them, the Markdown puts them in code spans with backticks and pipes
neutralized.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final

from ..terminal import escape_controls
from .mutations import MUTATIONS
from .runner import RunResult
from .verdict import FAILING, VERDICTS

__all__ = ["SYMBOLS", "markdown", "matrix", "summary", "to_json"]

#: One character a verdict in the matrix.
SYMBOLS: Final[dict[str, str]] = {
    "agrees": ".",
    "raised": "r",
    "silently_wrong": "W",
    "false_alarm": "F",
    "hung": "H",
    "crashed": "C",
}
_NOT_RUN: Final = " "


def _columns(results: Sequence[RunResult]) -> list[str]:
    seen = {r.scenario.mutation for r in results}
    return [name for name in MUTATIONS if name in seen]


def matrix(results: Sequence[RunResult], driver: str) -> str:
    """The capture × mutation matrix of one driver, one symbol a cell, with its legend."""
    mine = [r for r in results if r.driver == driver]
    columns = _columns(mine)
    cells = {(r.scenario.capture, r.scenario.provider, r.scenario.mutation): r for r in mine}
    rows = sorted({(r.scenario.provider, r.scenario.capture) for r in mine})
    names = [escape_controls(f"{p}/{c}")[:48] for p, c in rows]
    width = max((len(n) for n in names), default=10)
    lines = [f"{escape_controls(driver)}{' (guarded)' if mine and mine[0].guarded else ''}"]
    lines.append(" " * (width + 1) + "".join(f"{i // 10 or ' '}" for i in range(len(columns))))
    lines.append(" " * (width + 1) + "".join(f"{i % 10}" for i in range(len(columns))))
    for (provider, capture), name in zip(rows, names, strict=True):
        symbols = "".join(
            SYMBOLS[cells[(capture, provider, m)].verdict] if (capture, provider, m) in cells
            else _NOT_RUN
            for m in columns
        )  # fmt: skip
        lines.append(f"{name.ljust(width)} {symbols}")
    lines.append("columns: " + ", ".join(f"{i}={m}" for i, m in enumerate(columns)))
    lines.append("cells: " + ", ".join(f"{s} {v}" for v, s in SYMBOLS.items()) + "; blank: n/a")
    return "\n".join(lines)


def summary(results: Iterable[RunResult]) -> dict[str, dict[str, int]]:
    """Verdict counts by driver."""
    counts: dict[str, Counter[str]] = {}
    for r in results:
        counts.setdefault(r.driver, Counter())[r.verdict] += 1
    return {d: {v: c[v] for v in VERDICTS if c[v]} for d, c in counts.items()}


def wrong_by_mutation(
    results: Iterable[RunResult], verdicts: frozenset[str] = FAILING
) -> dict[str, dict[str, int]]:
    """For each driver, how many cells of each mutation ended in ``verdicts``."""
    out: dict[str, Counter[str]] = {}
    for r in results:
        if r.verdict in verdicts:
            out.setdefault(r.driver, Counter())[r.scenario.mutation] += 1
    return {
        d: dict(
            sorted(
                c.items(), key=lambda kv: list(MUTATIONS).index(kv[0]) if kv[0] in MUTATIONS else 0
            )
        )
        for d, c in out.items()
    }


def to_json(results: Sequence[RunResult], drivers: dict[str, Any]) -> dict[str, Any]:
    """The document ``--json`` writes."""
    failing = sum(r.verdict in FAILING for r in results)
    return {
        "format": "inspector-harness",
        "version": 1,
        "drivers": drivers,
        "verdicts": VERDICTS,
        "summary": summary(results),
        "failing": failing,
        "runs": [r.to_json() for r in results],
    }


def _code(text: str) -> str:
    shown = escape_controls(text).replace("`", "'").replace("|", "\\|")
    return f"`{shown}`"


def markdown(results: Sequence[RunResult], drivers: dict[str, Any]) -> str:
    """A Markdown report: drivers and versions, verdict counts, every failing cell."""
    out = ["# inspector harness report", "", "| driver | version | runs | " +
           " | ".join(VERDICTS) + " |", "|---|---|---|" + "---|" * len(VERDICTS)]  # fmt: skip
    counts = summary(results)
    for name, info in drivers.items():
        c = counts.get(name, {})
        version = info.get("version") or info.get("skipped") or ""
        cells = " | ".join(str(c.get(v, 0)) for v in VERDICTS)
        out.append(f"| {_code(name)} | {_code(str(version))} | {sum(c.values())} | {cells} |")
    out += ["", "## Cells that are not right", ""]
    bad = [r for r in results if r.verdict not in ("agrees", "raised")]
    if not bad:
        out.append("None: every client agreed with the oracle or raised where it had to.")
    else:
        out += [
            "| driver | capture | mutation | verdict | why | repro |",
            "|---|---|---|---|---|---|",
        ]
        for r in bad:
            repro = _code(r.repro["test"]) if r.repro else ""
            out.append(
                f"| {_code(r.driver)} | {_code(r.scenario.provider + '/' + r.scenario.capture)} | "
                f"{_code(r.scenario.mutation)} | {r.verdict} | {_code(r.why[:160])} | {repro} |"
            )
    return "\n".join(out) + "\n"
