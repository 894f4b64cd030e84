"""Helpers for whole-sequence assertions against files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from inspector.core.invariants import check_invariants
from inspector.core.trace import Trace
from inspector.session import load_trace

from .conftest import CAPTURES

STREAM_SUFFIXES = (".sse", ".jsonl")


def capture_files(root: Path = CAPTURES) -> list[Path]:
    """Every capture under ``root`` (golden and report files excluded)."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.name.endswith(STREAM_SUFFIXES) and ".events." not in p.name
    )


def golden_for(capture: Path) -> Path:
    return capture.with_name(capture.name.rsplit(".", 1)[0] + ".events.jsonl")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def terminal_of(trace: Trace) -> tuple[str, str | None]:
    """(state, finish_reason or error category) of a finished trace."""
    event = trace.terminal_event
    assert event is not None, "the stream has no terminal event"
    if event["type"] == "stream.done":
        return trace.state, event["finish_reason"]
    return trace.state, event["error"]["category"]


def assert_clean(path: Path, expected: tuple[str, str | None]) -> Trace:
    """Normalize ``path``: no invariant broken, and the expected terminal state."""
    trace = load_trace(path)
    assert check_invariants(trace.events) == [], path
    assert trace.violations == [], [v.message for v in trace.violations]
    assert terminal_of(trace) == expected, path
    return trace
