"""``inspector harness PATH... --driver NAME``: is a client right when a stream breaks?"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from ..terminal import escape_controls
from .common import EXIT_OK, EXIT_USAGE, error

EXIT_FAILING = 1


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 600, got {text!r}")
    return value


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 10000, got {text!r}")
    return int(text)


def register(sub: Any) -> None:
    """Add the ``harness`` subcommand."""
    parser = sub.add_parser(
        "harness",
        help="replay captures to a client under stream mutations and judge it by the oracle",
        description=(
            "Replay each capture to a client under a matrix of mutations (rechunking, line "
            "ends, pings, EOF/reset/stall at each position, dropped final signals, error "
            "shapes, lying finishes) and compare what it concluded with the normalizer's "
            "verdict on the mutated bytes. Exit 1 on any silently_wrong, hung or crashed "
            "cell. See docs/harness.md."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="captures or folders (default: the bundled library)",
    )
    parser.add_argument(
        "--driver",
        action="append",
        metavar="NAME",
        help="a driver (repeat; default: every shipped driver); command:CMD runs a program",
    )
    parser.add_argument(
        "--mutation",
        action="append",
        metavar="NAME",
        help="only these mutations (repeat; default: all)",
    )
    parser.add_argument(
        "--guard", action="store_true", help="put inspector's guard transport in front of each SDK"
    )
    parser.add_argument("--json", metavar="FILE", help="write every run as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--repro",
        metavar="DIR",
        help="save a minimized capture and pytest file for each failing cell",
    )
    parser.add_argument(
        "--shrink-budget",
        type=_count,
        default=100,
        metavar="N",
        help="driver runs the shrinker may spend per failing cell (default 100)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=2.0,
        help="the clients' progress (read) timeout in seconds (default 2)",
    )
    parser.add_argument(
        "--margin",
        type=_seconds,
        default=2.0,
        help="seconds past the timeout before a client counts as hung (default 2)",
    )
    parser.add_argument("--jobs", type=_count, default=4, help="runs at a time (default 4)")
    parser.add_argument("--list", action="store_true", help="list drivers and mutations")
    parser.set_defaults(func=run)  # fmt: skip


def _drivers(names: list[str] | None, margin: float) -> tuple[list[Any], dict[str, Any]]:
    from ..harness.command import command_driver
    from ..harness.drivers import DRIVERS, available

    chosen, info = [], {}
    for name in names or list(DRIVERS):
        if name.startswith("command:"):
            driver = command_driver(name.removeprefix("command:"), margin)
        elif name in DRIVERS:
            driver = DRIVERS[name]
        else:
            raise ValueError(f"unknown driver {name!r}; known: {', '.join(DRIVERS)}, command:CMD")
        missing = available(driver)
        info[driver.name] = {"package": driver.package, "version": driver.version(),
                             "help": driver.help}  # fmt: skip
        if missing is not None:
            info[driver.name]["skipped"] = missing
            continue
        chosen.append(driver)
    return chosen, info


def _bases(paths: list[str]) -> tuple[list[Any], list[str]]:
    from ..capture import load_recording
    from ..harness.scenario import base_of
    from ..library import captures_dir, expand_paths

    if not paths:
        library = captures_dir()
        if library is None:
            raise ValueError("no PATH given and the bundled library is not installed")
        paths = [str(library)]
    bases, skipped = [], []
    for path in expand_paths(paths):
        rec = load_recording(path)
        base = base_of(rec, path) if rec.chunks else None
        if base is None:
            why = rec.problems[0] if rec.problems else "not an SSE stream of a known provider"
            skipped.append(f"{path}: {why}")
        else:
            bases.append(base)
    return bases, skipped


def _list() -> int:
    from ..harness.drivers import DRIVERS, available
    from ..harness.mutations import MUTATIONS

    for d in DRIVERS.values():
        missing = available(d)
        state = f"skipped: {missing}" if missing else f"{d.package} {d.version()}"
        print(f"driver   {d.name:20} {state} — {d.help}")
    print("driver   command:CMD           any program printing the JSON outcome line")
    for m in MUTATIONS.values():
        print(f"mutation {m.name:20} {m.group:8} {m.help}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run the matrix; exit 1 on any silently_wrong, hung or crashed cell."""
    if args.list:
        return _list()
    from ..harness import report
    from ..harness.mutations import MUTATIONS, applicable
    from ..harness.runner import Settings, run_matrix
    from ..harness.verdict import FAILING

    try:
        drivers, info = _drivers(args.driver, args.margin)
        unknown = [m for m in args.mutation or [] if m not in MUTATIONS]
        if unknown:
            raise ValueError(f"unknown mutation {unknown[0]!r}; see --list")
        bases, skipped = _bases(args.paths)
    except ValueError as exc:
        error(str(exc))
        return EXIT_USAGE
    for line in skipped:
        print(escape_controls(f"inspector harness: skipped {line}"), file=sys.stderr)
    for name, item in info.items():
        if "skipped" in item:
            print(escape_controls(f"inspector harness: driver {name} skipped: {item['skipped']}"),
                  file=sys.stderr)  # fmt: skip
    cells = [
        (driver, scenario)
        for driver in drivers
        for base in bases
        if base.provider in driver.providers
        for scenario in applicable(base, args.mutation)
    ]
    loopback = None
    if any(d.extra.get("loopback") for d in drivers):
        from ..harness.loopback import LoopbackServer

        loopback = LoopbackServer().__enter__()
    settings = Settings(args.timeout, args.margin, args.guard, loopback)
    started = time.perf_counter()
    try:
        results = list(run_matrix(cells, settings, args.jobs))
        if args.repro:
            _save_repros(results, settings, Path(args.repro), args.shrink_budget)
    finally:
        if loopback is not None:
            loopback.__exit__(None, None, None)
    elapsed = time.perf_counter() - started
    for driver in drivers:
        if any(r.driver == driver.name for r in results):
            print(report.matrix(results, driver.name))
            print()
    counts = report.summary(results)
    for name, c in counts.items():
        shown = ", ".join(f"{v} {n}" for v, n in c.items())
        print(escape_controls(f"{name}: {sum(c.values())} runs: {shown}"))
    rate = len(results) / elapsed if elapsed > 0 else 0.0
    print(f"{len(results)} runs in {elapsed:.1f} s ({rate:.0f} runs/s)"
          + (" with the guard" if args.guard else ""))  # fmt: skip
    if args.json:
        Path(args.json).write_bytes(
            orjson.dumps(report.to_json(results, info), option=orjson.OPT_INDENT_2)
        )
    if args.markdown:
        Path(args.markdown).write_text(report.markdown(results, info), encoding="utf-8")
    return EXIT_FAILING if any(r.verdict in FAILING for r in results) else EXIT_OK


def _shape(expected: Any) -> tuple[Any, ...]:
    """What a repro must keep besides the verdict: how the stream ends and which blocks it
    opens (else an empty body, which every client that trusts EOF accepts, is every repro)."""
    return (expected.state, expected.category, expected.blocks)


def _save_repros(results: list[Any], settings: Any, directory: Path, budget: int) -> None:
    from ..harness.drivers import DRIVERS
    from ..harness.runner import run_scenario
    from ..harness.shrink import shrink, write_repro

    for index, result in enumerate(results):
        if result.verdict in ("agrees", "raised") or result.driver not in DRIVERS:
            continue
        driver = DRIVERS[result.driver]
        target = result.verdict
        shape = _shape(result.expected)

        def keep(
            candidate: Any,
            driver: Any = driver,
            target: str = target,
            shape: tuple[Any, ...] = shape,
        ) -> bool:
            run = run_scenario(driver, candidate, settings)
            return run.verdict == target and _shape(run.expected) == shape

        shrunk = shrink(result.scenario, keep, budget)
        result.repro = write_repro(directory, result.driver, target, shrunk, index)
