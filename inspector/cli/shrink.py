"""``inspector shrink CAPTURE --until PREDICATE``: the smallest capture that still shows it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..terminal import escape_controls, safe_path
from .common import EXIT_OK, EXIT_USAGE, error

PREDICATES = (
    "state (same terminal state and category), violation (same first violated rule), "
    "verdict:DRIVER (that driver's same verdict, on a stream ending the same way with the "
    "same blocks), verdict:DRIVER=VERDICT"
)


def register(sub: Any) -> None:
    """Add the ``shrink`` subcommand."""
    parser = sub.add_parser(
        "shrink",
        help="shrink a capture by delta debugging while a predicate still holds",
        description=(
            "Delta debugging (ddmin) over the capture's frames, then its bytes: the smallest "
            f"capture for which the predicate still holds. Predicates: {PREDICATES}."
        ),
    )
    parser.add_argument("capture", metavar="CAPTURE", help="a capture or raw SSE file")
    parser.add_argument("--until", required=True, metavar="PREDICATE", help=PREDICATES)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the shrunk capture (default CAPTURE.min.jsonl)",
    )
    parser.add_argument("--budget", type=int, default=500, help="tests at most (default 500)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        help="a driver's progress timeout (verdict predicates; default 2)",
    )
    parser.set_defaults(func=run)  # fmt: skip


def predicate(text: str, original: Any, timeout: float) -> Any:
    """The test ``--until`` names, for candidates of ``original`` (raises ValueError)."""
    from ..harness.drivers import DRIVERS, available
    from ..harness.runner import Settings, run_scenario
    from ..harness.scenario import trace_of

    def trace(s: Any) -> Any:
        return trace_of(s.provider, s.pieces, s.ending, s.status)

    if text == "state":
        first = trace(original)
        want = (first.state, first.ending)
        return lambda s: (lambda t: (t.state, t.ending) == want)(trace(s))
    if text == "violation":
        first = trace(original)
        if not first.violations:
            raise ValueError("the capture violates no rule: nothing for 'violation' to keep")
        rule = first.violations[0].rule
        return lambda s: any(v.rule == rule for v in trace(s).violations)
    if text.startswith("verdict:"):
        name, _, verdict = text.removeprefix("verdict:").partition("=")
        if name not in DRIVERS:
            raise ValueError(f"unknown driver {name!r}; known: {', '.join(DRIVERS)}")
        driver = DRIVERS[name]
        missing = available(driver)
        if missing is not None:
            raise ValueError(f"driver {name}: {missing}")
        settings = Settings(timeout=timeout, margin=timeout)
        first = run_scenario(driver, original, settings)
        verdict = verdict or first.verdict
        shape = _shape(first.expected)

        def same_verdict(s: Any) -> bool:
            # ...on a stream that ends the same way and opens the same blocks: else an
            # empty body (which a client trusting EOF accepts) is every answer.
            run = run_scenario(driver, s, settings)
            return run.verdict == verdict and _shape(run.expected) == shape

        return same_verdict
    raise ValueError(f"unknown predicate {text!r}; known: {PREDICATES}")


def _shape(expected: Any) -> tuple[Any, ...]:
    return (expected.state, expected.category, expected.blocks)


def run(args: argparse.Namespace) -> int:
    """Shrink and write the result; exit 2 on an unreadable capture or an unknown predicate."""
    from ..capture import UnreadableInput, read_recording
    from ..harness.shrink import load_scenario, save_capture, shrink

    try:
        rec = read_recording(args.capture)
    except UnreadableInput as exc:
        error(str(exc))
        return EXIT_USAGE
    scenario = load_scenario(rec, args.capture)
    if scenario is None:
        error(f"{safe_path(args.capture)}: cannot tell which provider this stream is from")
        return EXIT_USAGE
    try:
        keep = predicate(args.until, scenario, args.timeout)
    except ValueError as exc:
        error(str(exc))
        return EXIT_USAGE
    if not keep(scenario):
        error(f"the predicate {args.until!r} does not hold for the capture itself")
        return EXIT_USAGE
    shrunk = shrink(scenario, keep, max(1, args.budget))
    out = Path(args.output) if args.output else Path(str(args.capture) + ".min.jsonl")
    save_capture(shrunk.scenario, out)
    print(escape_controls(
        f"{safe_path(out)}: {shrunk.frames_before} -> {shrunk.frames_after} frames, "
        f"{shrunk.bytes_before} -> {shrunk.bytes_after} bytes ({shrunk.tests} tests); "
        f"{args.until} still holds"
    ))  # fmt: skip
    return EXIT_OK
