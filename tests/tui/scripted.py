"""Traces built from scripts: any sequence of machine actions, one frame at a time.

A frame's data is a JSON list of steps — ``["open", 1, "tool_call"]``,
``["delta", 1, "json_text", "{"]``, ``["close", 1]``, ``["finish"]``,
``["fail"]``, ``["ignore"]``, ``["ping"]`` — so a test can build exactly the
stream it needs, including ones a real provider adapter would never produce
(a delta for a block never opened: a provider violation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from inspector.core.actions import (
    Action,
    CloseBlock,
    Delta,
    Fail,
    Finish,
    Heartbeat,
    Ignore,
    OpenBlock,
    Start,
)
from inspector.core.adapters.base import Adapter
from inspector.core.normalizer import Normalizer
from inspector.core.sse import Frame
from inspector.core.trace import Trace, TransportEnd

Step = Sequence[Any]


class ScriptAdapter(Adapter):
    """Turns each frame's list of steps into actions."""

    provider = "openai-chat"

    def feed(self, frame: Frame) -> list[Action]:
        """Actions for one scripted frame."""
        out: list[Action] = []
        for step in orjson.loads(frame.data):
            op = step[0]
            if op == "start":
                out.append(Start("script-model"))
            elif op == "open":
                kind = step[2]
                name = "get_weather" if kind == "tool_call" else None
                call_id = f"call_{step[1]}" if kind == "tool_call" else None
                out.append(OpenBlock(step[1], kind, kind, name, call_id))
            elif op == "delta":
                out.append(Delta(step[1], step[2], step[3]))
            elif op == "close":
                out.append(CloseBlock(step[1]))
            elif op == "finish":
                out.append(Finish("stop", "stop"))
            elif op == "fail":
                out.append(Fail("server_error", "boom", "the server failed"))
            elif op == "ignore":
                out.append(Ignore("an unknown event was skipped"))
            elif op == "ping":
                out.append(Heartbeat("ping"))
        return out


#: How a scripted trace ends unless told otherwise: end of file at 9 s.
EOF = TransportEnd("eof", 9.0)


def scripted_trace(frames: Sequence[Sequence[Step]], end: TransportEnd | None = EOF) -> Trace:
    """A trace of one frame per script entry, 10 ms apart; ``end=None`` leaves it running."""
    normalizer = Normalizer(ScriptAdapter(), "st_script", source="scripted")
    for i, steps in enumerate(frames):
        data = b"data: " + orjson.dumps(list(steps)) + b"\n\n"
        normalizer.feed(data, round(0.01 * (i + 1), 6))
    if end is not None:
        normalizer.finish(end)
    return normalizer.trace
