"""Feeds: sources that grow a trace over time while a view shows it.

The TUI does not know where bytes come from. It is handed a :class:`Feed`,
runs :meth:`Feed.run` in a worker on its own event loop (so the trace is only
ever mutated on the thread that renders it), and repaints when ``notify`` is
called. Live mode (``inspector.live``) implements a feed over httpx; the
:class:`ReplayFeed` here plays a recording with its recorded timing, which is
what tests and demos use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from .capture import Recording
from .core.normalizer import Normalizer, stream_id_for
from .core.trace import Trace, TransportEnd
from .session import guess_provider, provider_unknown

__all__ = ["Feed", "ReplayFeed"]


class Feed(Protocol):
    """A source that fills :attr:`trace` while :meth:`run` is awaited."""

    trace: Trace
    #: One line for the header: where the bytes come from.
    description: str
    #: The exchange as far as known: ``request`` (redacted), ``response``
    #: (status, headers), ``timings`` (seconds: connect, first_byte,
    #: first_content, last_byte). Views read it; only the feed writes it.
    exchange: dict[str, Any]

    async def run(self, notify: Callable[[], None]) -> None:
        """Feed the trace until the stream ends; call ``notify`` after each change."""
        ...

    def cancel(self) -> None:
        """Stop early: the stream ends ``interrupted`` / ``cancelled``."""
        ...


class ReplayFeed:
    """Plays a recording into a trace with its recorded timing (``speed`` x)."""

    def __init__(self, recording: Recording, provider: str | None = None, speed: float = 1.0):
        """Raises :class:`~inspector.session.ProviderUnknown` when the provider is unknowable."""
        name = provider or guess_provider(recording)
        if name is None:
            raise provider_unknown(recording)
        self.recording = recording
        self.speed = speed
        self.normalizer = Normalizer(
            name,
            stream_id_for(*(data for _, data in recording.chunks)),
            source=recording.path,
            header=recording.header,
        )
        self.trace = self.normalizer.trace
        self.description = f"replay · {recording.path}"
        self.exchange: dict[str, Any] = {
            "request": (recording.header or {}).get("request"),
            "response": (recording.header or {}).get("response"),
            "timings": {},
        }
        self._cancelled = False

    async def run(self, notify: Callable[[], None]) -> None:
        """Feed every chunk at its recorded time, then the recorded end."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        for time, data in self.recording.chunks:
            if self._cancelled:
                break
            delay = started + time / self.speed - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if self._cancelled:
                break
            self.normalizer.feed(data, time)
            notify()
        if self._cancelled:
            end = TransportEnd("cancelled", loop.time() - started, "cancelled by the user")
        else:
            end = self.recording.end or TransportEnd("eof")
        self.normalizer.finish(end)
        notify()

    def cancel(self) -> None:
        """Stop before the next chunk."""
        self._cancelled = True
