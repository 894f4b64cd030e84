"""summarize files a run of deltas of one block as it filed the first: the same summary."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from inspector.export.skeleton import summarize


def _both(items: list[tuple[str | None, dict[str, Any], Any]]) -> tuple[Any, Any]:
    """A trace read through compact deltas, and the same events built whole."""
    whole = []
    for kind, event, text in items:
        if kind is None:
            whole.append((None, event, None))
        else:
            full = {"type": "block.delta", "block": event, "delta": {"kind": kind, "text": text}}
            whole.append((None, full, None))
    compact = SimpleNamespace(
        events=SimpleNamespace(compact=lambda: iter(items)), state="completed"
    )
    built = SimpleNamespace(events=SimpleNamespace(compact=lambda: iter(whole)), state="completed")
    return compact, built


def _events(rng: random.Random) -> list[tuple[str | None, dict[str, Any], Any]]:
    blocks = [{"index": i, "kind": k} for i, k in enumerate(["text", "tool_call", "tool_call"])]
    items: list[tuple[str | None, dict[str, Any], Any]] = [
        (None, {"type": "stream.start", "provider": "p", "model": "m"}, None)
    ]
    for block in blocks:
        items.append((None, {"type": "block.start", "block": block, "name": "f"}, None))
    for _ in range(rng.randrange(1, 80)):
        block = rng.choice(blocks)
        roll = rng.random()
        if roll < 0.05:
            items.append((None, {"type": "block.stop", "block": block}, None))
        elif roll < 0.08:
            items.append((None, {"type": "stream.warning", "code": "w"}, None))
        else:
            kind = rng.choice(["text", "json_text", "json_text", "reasoning"])
            text = rng.choice(["", None, "a", '{"k": ', '"v"}', "x y"])
            for _ in range(rng.randrange(1, 4)):
                items.append((kind, block, text))
    items.append((None, {"type": "stream.done", "status": "completed"}, None))
    return items


def test_runs_of_deltas_summarize_as_the_built_events() -> None:
    rng = random.Random(16)
    for _ in range(400):
        compact, built = _both(_events(rng))
        for assemble in (False, True):
            assert summarize(compact, assemble=assemble) == summarize(built, assemble=assemble)
