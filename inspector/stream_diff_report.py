"""A stream diff told: the lines ``inspector diff`` prints, and its JSON.

:mod:`inspector.stream_diff` compares; this module only reads a
:class:`~inspector.stream_diff.StreamDiff` and words it (escaping is the
terminal layer's job).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .stream_diff import Divergence, StreamDiff, TimingShape

__all__ = ["clip_words", "describe_event", "report_lines", "to_json"]


def clip_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word's end, with ``…`` if cut.

    A single word longer than a third of the limit is cut where the limit falls.
    """
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    if cut < limit * 2 // 3:
        cut = limit - 1
    return text[:cut].rstrip() + "…"


def describe_event(event: Mapping[str, Any] | None, limit: int = 80) -> str:
    """One event on one line: ``block.delta b_1 json_text "{\\"date\\""``."""
    if event is None:
        return "(no event: the stream ended before)"
    words = [str(event.get("type"))]
    block = event.get("block")
    if isinstance(block, Mapping):
        choice = f"c{block['choice']}." if "choice" in block else ""  # several choices (v1.1)
        words.append(f"{choice}b_{block.get('index')} {block.get('kind')}")
    if isinstance(event.get("name"), str):
        words.append(str(event["name"]))
    delta = event.get("delta")
    if isinstance(delta, Mapping):
        value = delta.get("text")
        text = value if isinstance(value, str) else ""
        shown = clip_words(text, limit)
        words.append(f"{delta.get('kind')} {orjson.dumps(shown).decode()}")
    for key in ("status", "finish_reason", "provider", "model", "framing"):
        if isinstance(event.get(key), str):
            words.append(f"{key}={event[key]}")
    error = event.get("error")
    if isinstance(error, Mapping):
        words.append(f"{error.get('category')} ({error.get('provider_code')})")
        if isinstance(error.get("message"), str):
            words.append(orjson.dumps(clip_words(error["message"], limit)).decode())
    return " ".join(words)


def _terminal_line(terminal: Mapping[str, Any]) -> str:
    state = str(terminal.get("state"))
    details = [str(v) for k, v in terminal.items() if k != "state" and v is not None]
    return f"{state} ({', '.join(details)})" if details else state


def _usage_line(usage: Mapping[str, Any] | None) -> str:
    if usage is None:
        return "none"
    return " ".join(f"{k} {v}" for k, v in usage.items() if v is not None) or "empty"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value * 1000:.0f} ms"


def _timing_line(shape: TimingShape | None) -> str:
    if shape is None:
        return "a golden events file (no timing)"
    counts = f"{shape.chunks} chunk(s), {shape.frames} frame(s)"
    if not shape.timed:
        return f"untimed ({counts})"
    return (
        f"TTFT {_ms(shape.ttft)}, total {_ms(shape.total)}, max gap {_ms(shape.max_gap)}, {counts}"
    )


def report_lines(diff: StreamDiff) -> list[str]:
    """The comparison as lines of text (untrusted text inside: escape before printing)."""
    left, right = diff.left, diff.right
    lines = [
        f"A: {left.path} ({len(left.events)} events, {_terminal_line(diff.terminal[0])})",
        f"B: {right.path} ({len(right.events)} events, {_terminal_line(diff.terminal[1])})",
    ]
    first = diff.first
    aside = [f"{side.set_aside} heartbeat(s) in {name}"
             for name, side in (("A", left), ("B", right)) if side.set_aside]  # fmt: skip
    if aside:
        lines.append(
            f"transports differ ({left.framing} vs {right.framing}): framing and keep-alives "
            f"set aside ({', '.join(aside)})"
        )
    if first is None:
        lines.append("events: the same" + ("" if diff.exact else " (ids and raw usage aside)"))
    else:
        lines.append(f"first divergence at event {first.index + 1} ({_seqs(first)}):")
        lines.append(f"  A: {describe_event(first.left)}")
        lines.append(f"  B: {describe_event(first.right)}")
    lines.extend(f"block {line}" for line in diff.blocks)
    a_term, b_term = diff.terminal
    if a_term != b_term:
        lines.append(f"terminal: A {_terminal_line(a_term)} · B {_terminal_line(b_term)}")
    a_use, b_use = diff.usage
    if a_use != b_use:
        lines.append(f"usage: A {_usage_line(a_use)} · B {_usage_line(b_use)}")
    lines.append(f"timing A: {_timing_line(diff.timing[0])}")
    lines.append(f"timing B: {_timing_line(diff.timing[1])}")
    lines.append("same" if diff.same else "different")
    return lines


def _seqs(first: Divergence) -> str:
    """The ``seq`` of both events there (they differ once keep-alives are set aside)."""
    seqs = [e.get("seq") if e is not None else None for e in (first.left, first.right)]
    if seqs[0] == seqs[1] and seqs[0] is not None:
        return f"seq {seqs[0]}"
    shown = ["-" if s is None else str(s) for s in seqs]
    return f"A seq {shown[0]} / B seq {shown[1]}"


def _shape_json(shape: TimingShape | None) -> dict[str, Any] | None:
    if shape is None:
        return None
    return {
        "timed": shape.timed,
        "ttft": shape.ttft,
        "total": shape.total,
        "max_gap": shape.max_gap,
        "chunks": shape.chunks,
        "frames": shape.frames,
    }


def to_json(diff: StreamDiff) -> dict[str, Any]:
    """The comparison as one JSON object (``inspector diff --json``)."""
    first = diff.first
    return {
        "same": diff.same,
        "a": {
            "path": diff.left.path,
            "events": len(diff.left.events),
            "framing": diff.left.framing,
            "heartbeats_set_aside": diff.left.set_aside,
        },
        "b": {
            "path": diff.right.path,
            "events": len(diff.right.events),
            "framing": diff.right.framing,
            "heartbeats_set_aside": diff.right.set_aside,
        },
        "first_divergence": None
        if first is None
        else {"index": first.index, "a": first.left, "b": first.right},
        "blocks": diff.blocks,
        "terminal": {"a": diff.terminal[0], "b": diff.terminal[1]},
        "usage": {"a": diff.usage[0], "b": diff.usage[1]},
        "timing": {"a": _shape_json(diff.timing[0]), "b": _shape_json(diff.timing[1])},
    }
