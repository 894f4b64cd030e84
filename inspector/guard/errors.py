"""The guard's error: a stream that ended without its provider's proof of a normal end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["Evidence", "NotProven", "StreamNotProven"]


@dataclass(frozen=True)
class Evidence:
    """What the guard saw: the normalizer's verdict and what had been received."""

    provider: str
    state: str  # "interrupted", "failed" (or "open": the stream stopped before any end)
    category: str | None  # the contract's error category, e.g. "transport"
    message: str | None
    bytes_received: int
    events: int
    text: str = ""  # the text received before the stream broke (a draft, never an answer)
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, arguments so far)
    tail: bytes = field(default=b"", repr=False)  # the last bytes received (at most 2 KiB)

    def describe(self) -> str:
        """One line for the exception's message."""
        what = f"{self.state} ({self.category})" if self.category else self.state
        return (
            f"{self.provider} stream not proven complete: {what} after {self.bytes_received} "
            f"bytes, {self.events} events" + (f": {self.message}" if self.message else "")
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (the tail as text, undecodable bytes replaced)."""
        return {
            "provider": self.provider,
            "state": self.state,
            "category": self.category,
            "message": self.message,
            "bytes_received": self.bytes_received,
            "events": self.events,
            "text": self.text,
            "tool_calls": [{"name": n, "arguments": a} for n, a in self.tool_calls],
            "tail": self.tail.decode("utf-8", "replace"),
        }


class NotProven(Exception):
    """What every guard error is, whichever httpx package the client uses: catch this."""

    evidence: Evidence


class StreamNotProven(NotProven, httpx.RemoteProtocolError):
    """The stream ended (EOF) or broke without the provider proving a normal end.

    A :class:`httpx.RemoteProtocolError` (an :class:`httpx.TransportError`), so
    SDK stream iterators let it through as they do a connection closed
    mid-body. ``evidence`` says what the normalizer concluded.
    """

    def __init__(self, evidence: Evidence, request: httpx.Request | None = None) -> None:
        httpx.RemoteProtocolError.__init__(self, evidence.describe(), request=request)
        self.evidence = evidence
