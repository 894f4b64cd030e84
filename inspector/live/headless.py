"""Recording without a screen: run a :class:`LiveFeed` to its end and summarize it.

Ctrl+C (SIGINT) and SIGTERM cancel the stream instead of killing the process,
so the capture still gets its end record (``cancelled``) and the summary is
printed. Exit codes say how the stream ended: :data:`EXIT_CODES`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from typing import Final

from ..core.trace import Trace
from .feed import LiveFeed

__all__ = ["EXIT_CANCELLED", "EXIT_CODES", "exit_code", "record", "summary_line"]

EXIT_CANCELLED: Final = 130

#: Terminal state -> exit code. 2 (usage: bad options, no key) is decided
#: before anything is sent.
EXIT_CODES: Final[dict[str, int]] = {"completed": 0, "failed": 1, "interrupted": 1}


def exit_code(trace: Trace) -> int:
    """0 completed; 1 failed or interrupted; 130 cancelled by the user."""
    terminal = trace.terminal_event
    if (
        terminal is not None
        and terminal["type"] == "stream.error"
        and terminal["error"]["category"] == "cancelled"
    ):
        return EXIT_CANCELLED
    return EXIT_CODES.get(trace.state, 1)


def _outcome(trace: Trace) -> str:
    terminal = trace.terminal_event
    if terminal is None:
        return trace.state
    if terminal["type"] == "stream.done":
        return f"{trace.state} ({terminal['finish_reason']})"
    return f"{trace.state} ({terminal['error']['category']})"


def summary_line(feed: LiveFeed) -> str:
    """One line: outcome, sizes, HTTP status, timings, where the capture is."""
    trace = feed.trace
    response = feed.exchange.get("response") or {}
    timings = feed.exchange.get("timings") or {}
    parts = [
        _outcome(trace),
        f"frames={len(trace.frames)}",
        f"events={len(trace.events)}",
        f"bytes={trace.bytes_received}",
        f"status={response.get('status', '-')}",
    ]
    retry_after = (response.get("headers") or {}).get("retry-after")
    if retry_after:
        parts.append(f"retry-after={retry_after}")
    for name in ("first_content", "last_byte"):
        if name in timings:
            parts.append(f"{name}={timings[name]:.3f}s")
    if feed.sink.path is not None:
        parts.append(f"capture={feed.sink.path}")
    return " ".join(parts)


@contextlib.contextmanager
def _signals_cancel(feed: LiveFeed, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Not available on every platform or off the main thread: then Ctrl+C
        # falls back to KeyboardInterrupt, which the CLI also handles.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, feed.cancel)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def record(feed: LiveFeed) -> Trace:
    """Run ``feed`` to its end, with Ctrl+C / SIGTERM cancelling the stream."""
    with _signals_cancel(feed, asyncio.get_running_loop()):
        await feed.run(lambda: None)
    return feed.trace
