"""Recording without a screen: run a :class:`LiveFeed` to its end and summarize it.

Ctrl+C (SIGINT), SIGTERM and SIGHUP (the terminal closed) cancel the stream
instead of killing the process,
so the capture still gets its end record (``cancelled``) and the summary is
printed. Exit codes say how the stream ended: :data:`EXIT_CODES`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from ..core.recorder import Recorder
from ..terminal import escape_controls, safe_path

if TYPE_CHECKING:
    from .feed import LiveFeed

__all__ = [
    "EXIT_CANCELLED",
    "EXIT_CODES",
    "exit_code",
    "problem_line",
    "record",
    "secret_warnings",
    "summary_line",
]

EXIT_CANCELLED: Final = 130

#: Terminal state -> exit code. 2 (usage: bad options, no key) is decided
#: before anything is sent.
EXIT_CODES: Final[dict[str, int]] = {"completed": 0, "failed": 1, "interrupted": 1}


def exit_code(trace: Recorder, *, capped: bool = False) -> int:
    """0 completed; 1 failed or interrupted (or stopped by ``--max-bytes``: ``capped``);
    130 cancelled by the user."""
    if capped:
        return 1
    terminal = trace.terminal_event
    # Only a stop on our side is the user's: a server's own abort (the AI SDK's
    # `abort` part, Cohere's USER_CANCEL) is also "cancelled", but it came over the wire.
    stopped_here = trace.transport_end is not None and trace.transport_end.reason == "cancelled"
    if (
        terminal is not None
        and terminal["type"] == "stream.error"
        and terminal["error"]["category"] == "cancelled"
        and stopped_here
    ):
        return EXIT_CANCELLED
    return EXIT_CODES.get(trace.state, 1)


def summary_line(feed: LiveFeed) -> str:
    """One line: outcome, sizes, HTTP status, timings, where the capture is.

    Everything from the server (a header value) is escaped: it goes to a terminal.
    """
    trace = feed.trace
    response = feed.exchange.get("response") or {}
    timings = feed.exchange.get("timings") or {}
    parts = [
        escape_controls(trace.outcome),
        f"frames={trace.frame_count}",
        f"events={trace.event_count}",
        f"bytes={trace.bytes_received}",
        f"status={response.get('status', '-')}",
    ]
    retry_after = (response.get("headers") or {}).get("retry-after")
    if retry_after:
        parts.append(f"retry-after={escape_controls(retry_after)}")
    for name in ("first_content", "last_byte"):
        if name in timings:
            parts.append(f"{name}={timings[name]:.3f}s")
    if feed.sink.path is not None:
        parts.append(f"capture={safe_path(feed.sink.path)}")
    return " ".join(parts)


def problem_line(feed: LiveFeed) -> str | None:
    """The stderr line for a stream that did not complete (None when it did).

    The message comes from the server (an error body) and is escaped.
    """
    trace = feed.trace
    terminal = trace.terminal_event
    if feed.capped and feed.max_bytes is not None:
        return (
            f"stopped: {feed.received} bytes received, the --max-bytes cap is "
            f"{feed.max_bytes}; the capture keeps everything received (raise --max-bytes, "
            "or 0 for no cap)"
        )
    if terminal is None or terminal["type"] != "stream.error":
        return None
    err = terminal["error"]
    retry = ", retryable" if err["retryable"] else ""
    return escape_controls(f"{trace.state} ({err['category']}{retry}): {err['message']}")


def secret_warnings(feed: LiveFeed) -> list[str]:
    """Warnings for credentials too short to scrub from the response safely."""
    return [
        f"warning: a credential of {len(secret)} characters is too short to scrub from "
        "what the server sends back (it is still kept out of the request recorded)"
        for secret in feed.scrubber.refused
    ]


#: Signals that end a recording with its end record (SIGHUP: the terminal went away).
_CANCELLING: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def _signals_cancel(feed: LiveFeed, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    installed: list[signal.Signals] = []
    for sig in _CANCELLING:
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


async def record(feed: LiveFeed) -> Recorder:
    """Run ``feed`` to its end, with Ctrl+C / SIGTERM / SIGHUP cancelling the stream."""
    with _signals_cancel(feed, asyncio.get_running_loop()):
        await feed.run(lambda: None)
    return feed.trace
