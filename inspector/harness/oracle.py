"""The oracle: what a correct client must conclude from a scenario's bytes.

The normalizer is run on exactly the bytes served. A stream it ends
``completed`` has proven content (the text, the tool calls, the finish
reason) that a client must return; any other end means the client must
report an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..core.trace import Trace
from .scenario import Scenario, trace_of

__all__ = [
    "Content",
    "Expectation",
    "content_of",
    "expect",
    "expectation_of",
    "same_arguments",
    "trace_of",
]


@dataclass(frozen=True, slots=True)
class Content:
    """What a stream said: its text, its tool calls ``(name, arguments)``, its raw finish reason."""

    text: str = ""
    tool_calls: tuple[tuple[str, str], ...] = ()
    finish_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "text": self.text,
            "tool_calls": [{"name": n, "arguments": a} for n, a in self.tool_calls],
            "finish_reason": self.finish_reason,
        }


@dataclass(frozen=True, slots=True)
class Expectation:
    """The oracle's answer for one scenario."""

    completed: bool
    state: str
    category: str | None
    content: Content = field(default_factory=Content)
    message: str | None = None
    blocks: tuple[str, ...] = ()  # the kinds of the blocks the stream opened, in order

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        out: dict[str, Any] = {"completed": self.completed, "state": self.state}
        out["category"] = self.category
        if self.completed:
            out.update(self.content.to_json())
        else:
            out["message"] = self.message
        return out


def content_of(trace: Trace) -> Content:
    """The text, tool calls and raw finish reason the trace's events carry."""
    kinds: dict[str, str] = {}
    names: dict[str, str] = {}
    order: list[str] = []
    parts: dict[str, list[str]] = {}
    finish: str | None = None
    for event in trace.events:
        kind = event["type"]
        if kind == "block.start":
            block = event["block"]
            kinds[block["id"]] = block["kind"]
            if block["kind"] in ("text", "tool_call"):
                order.append(block["id"])
                parts[block["id"]] = []
                names[block["id"]] = str(event.get("name") or "")
        elif kind == "block.delta":
            block_id = event["block"]["id"]
            delta = event["delta"]
            wanted = "text" if kinds.get(block_id) == "text" else "json_text"
            if block_id in parts and delta["kind"] == wanted:
                parts[block_id].append(delta["text"])
        elif kind == "stream.done":
            raw = event.get("provider_finish_reason")
            finish = None if raw is None else str(raw)
    text = "".join("".join(parts[b]) for b in order if kinds[b] == "text")
    calls = tuple((names[b], "".join(parts[b])) for b in order if kinds[b] == "tool_call")
    return Content(text, calls, finish)


def expect(scenario: Scenario) -> Expectation:
    """What a correct client concludes from ``scenario``."""
    trace = trace_of(scenario.provider, scenario.pieces, scenario.ending, scenario.status)
    return expectation_of(trace)


def expectation_of(trace: Trace) -> Expectation:
    """:func:`expect` from a trace already made."""
    terminal = trace.terminal_event
    state = trace.state
    blocks = tuple(e["block"]["kind"] for e in trace.events if e["type"] == "block.start")
    if state == "completed":
        return Expectation(True, state, trace.ending, content_of(trace), blocks=blocks)
    message = terminal["error"]["message"] if terminal is not None else None
    return Expectation(False, state, trace.ending, message=message, blocks=blocks)


def _json_value(text: str) -> Any:
    try:
        return ("json", orjson.loads(text or "{}"))
    except orjson.JSONDecodeError:
        return ("text", text)


def same_arguments(left: str, right: str) -> bool:
    """Whether two tool-argument texts say the same: equal JSON values, else equal text.

    SDKs that parse arguments (Gemini's objects, ``get_final_message``) hand
    back a re-serialized text; an empty text means ``{}`` (the contract).
    """
    return left == right or _json_value(left) == _json_value(right)
