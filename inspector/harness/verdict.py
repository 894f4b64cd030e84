"""The verdict of one run: what the client concluded, against what the oracle proves."""

from __future__ import annotations

from typing import Final

from .drivers import Outcome
from .oracle import Expectation, same_arguments

__all__ = ["FAILING", "VERDICTS", "judge"]

#: Every verdict, with what it means (docs/harness.md repeats this table).
VERDICTS: Final[dict[str, str]] = {
    "agrees": "the client returned exactly the proven content, or reported the error the "
    "oracle expects",
    "raised": "it reported an error where the stream was not proven complete (good)",
    "silently_wrong": "it returned success on a stream that was not proven complete, or "
    "content other than the proven content",
    "false_alarm": "it reported an error on a stream that was proven complete",
    "hung": "no answer within the progress timeout plus a margin",
    "crashed": "it failed with an exception that is not one of its error types (a bug)",
}
#: Verdicts that fail a CI run (exit 1).
FAILING: Final = frozenset({"silently_wrong", "hung", "crashed"})


def _difference(expected: Expectation, outcome: Outcome) -> str | None:
    content = expected.content
    if outcome.text != content.text:
        return f"text {_short(outcome.text)} where the stream proved {_short(content.text)}"
    got, want = outcome.tool_calls, content.tool_calls
    if len(got) != len(want):
        return f"{len(got)} tool call(s) where the stream proved {len(want)}"
    for (name, args), (want_name, want_args) in zip(got, want, strict=True):
        if name != want_name or not same_arguments(args, want_args):
            return (
                f"tool call {_short(name)}({_short(args)}) where the stream proved "
                f"{_short(want_name)}({_short(want_args)})"
            )
    if (outcome.finish_reason or None) != (content.finish_reason or None):
        return (
            f"finish reason {outcome.finish_reason!r} where the stream proved "
            f"{content.finish_reason!r}"
        )
    return None


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def judge(expected: Expectation, outcome: Outcome | None) -> tuple[str, str]:
    """``(verdict, why)`` for one run; ``outcome`` None means the client never answered."""
    if outcome is None:
        return "hung", "no answer within the progress timeout plus the margin"
    if outcome.crashed:
        return "crashed", outcome.error or "crashed"
    if not expected.completed:
        ended = f"{expected.state} ({expected.category})"
        if outcome.ok:
            return "silently_wrong", f"returned success on a stream that ended {ended}"
        return "raised", f"reported {outcome.error!s:.200} on a stream that ended {ended}"
    if not outcome.ok:
        return "false_alarm", f"reported {outcome.error!s:.200} on a proven stream"
    difference = _difference(expected, outcome)
    if difference is not None:
        return "silently_wrong", difference
    return "agrees", "returned the proven content"
