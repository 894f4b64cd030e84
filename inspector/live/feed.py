"""``LiveFeed``: one streaming request, normalized and recorded as it arrives.

Theory of operation
-------------------
:meth:`LiveFeed.run` sends the request with httpx and hands every chunk, the
moment it arrives, to the capture (flushed) and to the sans-IO
:class:`~inspector.core.normalizer.Normalizer`, then calls ``notify`` so a
view can repaint. It never raises for anything the network or the server
does: each way a stream can end becomes a
:class:`~inspector.core.trace.TransportEnd`, and :meth:`_settle` turns it
into the trace's terminal state and the capture's end record.

Two clocks watch the stream:

* the **transport timeout** (httpx's connect/read timeout) — is the
  connection alive? It fires when no byte at all arrives in time;
* the **progress timeout** — did anything meaningful arrive? It starts when
  the response headers arrive and is reset by every new event of the
  contract's six mandatory types (``stream.start``, ``block.*``, a terminal
  event). Heartbeats (pings, SSE comments) and warnings (unknown events) do
  not reset it, so a server that only keeps the line warm still times out.

Either ends the stream ``interrupted`` (category ``transport`` /
``progress_timeout``). :meth:`cancel` ends it ``interrupted`` / ``cancelled``.
Text received so far stays in the trace and the capture as a draft.

A view shows the whole trace; a feed nobody shows (headless ``record``) is
made with ``keep_history=False``: its trace is a
:class:`~inspector.core.summary.Summary`, which keeps counts and the last
events, so memory does not grow with the stream. The capture, the summary and
the exit code are the same either way: what the feed itself reads of the
trace (progress, the first content's time, an error body) never needs history.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import httpx
import orjson

from ..core.normalizer import Normalizer
from ..core.summary import Summary
from ..core.trace import Trace, TransportEnd
from ..encodings import EncodingError, StreamDecoder
from ..redact import SecretSet, redact_headers, redact_url, without_userinfo
from .framed_scrub import BodyScrubber, body_scrubber
from .keys import is_loopback_url
from .providers import LiveRequest
from .recorder import CaptureSink
from .timeouts import DEFAULT_PROGRESS_TIMEOUT, DEFAULT_TRANSPORT_TIMEOUT
from .transport import make_client, transport_end

__all__ = [
    "AFTER_TERMINAL_GRACE",
    "DEFAULT_PROGRESS_TIMEOUT",
    "DEFAULT_TRANSPORT_TIMEOUT",
    "MAX_ERROR_BODY",
    "LiveFeed",
    "format_size",
]

#: After the terminal event nothing meaningful can come: wait this long for the
#: server to close before closing ourselves.
AFTER_TERMINAL_GRACE: Final = 2.0
#: An error body longer than this is not an error body; stop reading there.
MAX_ERROR_BODY: Final = 1024 * 1024

#: Events that do not count as progress.
_NOT_PROGRESS: Final = frozenset({"stream.heartbeat", "stream.warning"})

Notify = Callable[[], None]


def request_secret_set(request: LiveRequest, api_key: str | None) -> SecretSet:
    """Every secret the request carries: the key, the keys in the environment,
    each credential header's value (Basic credentials and cookies taken apart),
    the URL's userinfo and credential query values, credential fields of the body."""
    return SecretSet.for_request(
        url=request.url,
        headers=request.headers,
        body=request.body,
        api_key=api_key,
        environ=os.environ,
        typed=True,  # the user's --header values, and what we built (not secret by name)
    )


def format_size(size: int) -> str:
    """``268435456`` -> ``256 MiB`` (for messages about byte limits)."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


class LiveFeed:
    """A :class:`~inspector.feeds.Feed` over one live streaming request."""

    def __init__(
        self,
        request: LiveRequest,
        *,
        capture: str | Path | None = None,
        api_key: str | None = None,
        transport_timeout: float = DEFAULT_TRANSPORT_TIMEOUT,
        progress_timeout: float | None = DEFAULT_PROGRESS_TIMEOUT,
        after_terminal_grace: float = AFTER_TERMINAL_GRACE,
        stream_id: str | None = None,
        max_bytes: int | None = None,
        keep_history: bool = True,
    ) -> None:
        self.request = request
        #: Stop once this many bytes have been received (None: no cap).
        self.max_bytes = max_bytes or None
        #: Whether the stream was stopped by :attr:`max_bytes`.
        self.capped = False
        self.received = 0  # bytes of the body, decoded, before scrubbing
        self.after_terminal_grace = after_terminal_grace
        self.transport_timeout = transport_timeout
        self.progress_timeout = progress_timeout or None  # 0 turns the clock off
        # Everything written or shown passes through it: the key never leaves
        # this object, whatever encoding a server echoes it in.
        self.secrets = request_secret_set(request, api_key)
        self.scrubber = self.secrets.scrubber()
        #: What a streamed body goes through before it is recorded: in its framing.
        self._body: BodyScrubber = body_scrubber(self.scrubber, request.framing)
        self.sink = CaptureSink(capture)
        safe_url = self._safe(redact_url(request.url))
        self.exchange: dict[str, Any] = {
            "request": {
                "method": request.method,
                "url": safe_url,
                "headers": self._safe(redact_headers(request.headers)),
                "body": self._safe(request.body),
            },
            "response": None,
            "timings": {},
        }
        self.header: dict[str, Any] = {
            "provider": request.provider,
            "endpoint": request.endpoint,
            "model": self._safe(request.model),
            "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "request": self.exchange["request"],
            "response": None,
            "timings": self.exchange["timings"],
        }
        if request.framing != "sse":
            self.header["framing"] = request.framing
        # Live ids are random: the deterministic id of a file is a hash of all
        # its bytes, which are not known until the end.
        self.normalizer = Normalizer(
            request.provider,
            stream_id or "st_" + secrets.token_hex(8),
            source=str(capture) if capture is not None else safe_url,
            header=self.header,
            keep_history=keep_history,
            framing=request.framing,
        )
        self.trace: Trace | Summary = self.normalizer.trace
        self.trace.header = self.header  # the same dict: it fills in as the exchange goes
        self.description = f"live · {request.provider} · {self._safe(request.model)} · {safe_url}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[TransportEnd] | None = None
        self._cancel_requested = False
        self._t0 = 0.0
        self._status: int | None = None
        self._error_bytes = 0
        # An error response's body (at most MAX_ERROR_BODY and one chunk), for its adapter.
        self._error_body: list[bytes] = []
        # Events by type, and how many were progress and deltas at the last look.
        self._meaningful = 0
        self._deltas = 0
        self._fed_at = 0.0  # when the chunk last given to the normalizer arrived
        self._settled = False

    # -- the Feed protocol ---------------------------------------------------

    async def run(self, notify: Notify) -> None:
        """Stream until the end, then settle the trace and the capture."""
        self._loop = asyncio.get_running_loop()
        self._t0 = self._loop.time()
        self._task = asyncio.create_task(self._exchange(notify))
        if self._cancel_requested:
            self._task.cancel()
        try:
            end = await self._task
        except asyncio.CancelledError:
            task = asyncio.current_task()
            outer = task is not None and task.cancelling() > 0
            why = "the inspector stopped" if outer else "cancelled by the user"
            self._settle(TransportEnd("cancelled", self._now(), why))
            notify()
            if outer:
                raise
            return
        self._settle(end)
        notify()

    def settle_cancelled(self, why: str = "the inspector stopped") -> None:
        """End the stream ``cancelled`` now unless it has ended (the loop stopped first)."""
        self._settle(TransportEnd("cancelled", self._now(), why))

    def cancel(self) -> None:
        """Stop the stream: it ends ``interrupted`` / ``cancelled``. Safe from any thread."""
        self._cancel_requested = True
        task, loop = self._task, self._loop
        if task is not None and loop is not None and not task.done():
            loop.call_soon_threadsafe(task.cancel)

    # -- the exchange --------------------------------------------------------

    async def _exchange(self, notify: Notify) -> TransportEnd:
        request = self.request
        loopback = is_loopback_url(request.url)
        async with make_client(self.transport_timeout, loopback=loopback) as client:
            outgoing = client.build_request(
                request.method,
                without_userinfo(request.url),  # exactly our headers: no Basic from the URL
                headers=request.headers,
                content=orjson.dumps(request.body),
                extensions={"trace": self._on_trace},
            )
            self._t0 = asyncio.get_running_loop().time()  # t = 0 of the capture
            try:
                response = await client.send(outgoing, stream=True)
            except httpx.RequestError as exc:
                return self._broken(exc)
            try:
                self._on_response(response)
                notify()
                if response.status_code >= 400:
                    return await self._read_error(response)
                return await self._read_stream(response, notify)
            except httpx.RequestError as exc:
                return self._broken(exc)
            except EncodingError as exc:
                return self._undecodable(exc)
            finally:
                await response.aclose()

    async def _on_trace(self, name: str, info: dict[str, Any]) -> None:
        # httpx's trace extension: the moment the connection (and TLS) is up.
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self._timing("connect", overwrite=True)

    def _on_response(self, response: httpx.Response) -> None:
        self._timing("headers")
        self._status = response.status_code
        headers = {k.lower(): v for k, v in response.headers.items()}
        # What the server sets (a cookie) is a secret from now on; no body byte
        # has been scrubbed yet, so the scrubber can simply be made again.
        before = len(self.secrets)
        self.secrets.add_response_headers(response.headers.multi_items())
        if len(self.secrets) != before:
            self.scrubber = self.secrets.scrubber()
            self._body = body_scrubber(self.scrubber, self.request.framing)
        if response.status_code >= 400 and self.request.framing != "sse":
            # An error response is an error document, not a stream: never framed
            # (as inspector.session.framing_of reads the capture back).
            self.normalizer.machine.framing = None
            self.header.pop("framing", None)
        self.exchange["response"] = self.header["response"] = {
            "status": response.status_code,
            "http_version": response.http_version,
            "headers": self._safe(redact_headers(headers)),
        }
        self.sink.open(self.header)

    async def _read_stream(self, response: httpx.Response, notify: Notify) -> TransportEnd:
        loop = asyncio.get_running_loop()
        after_terminal = False
        try:
            async with asyncio.timeout(self._progress_deadline()) as clock:
                async for data in self._decoded(response):
                    self._receive(data)
                    notify()
                    if self._over_cap():
                        return self._capped()
                    if self._progressed():
                        clock.reschedule(self._progress_deadline())
                    if self.normalizer.machine.terminal and not after_terminal:
                        after_terminal = True
                        deadline = self._progress_deadline()
                        grace = loop.time() + self.after_terminal_grace
                        clock.reschedule(grace if deadline is None else min(deadline, grace))
        except TimeoutError:
            if after_terminal:
                why = (
                    "the server kept the connection open after the terminal event; "
                    "closed by the inspector"
                )
            else:
                why = (
                    f"no meaningful frame for {self.progress_timeout:g} s "
                    "(pings and comments do not count)"
                )
            return TransportEnd("progress_timeout", self._now(), why)
        return TransportEnd("eof", self._now())

    async def _read_error(self, response: httpx.Response) -> TransportEnd:
        # An error status: the body is an error object, not a stream. Keep it
        # all (bounded), then let the adapter classify it.
        async for data in self._decoded(response):
            self._receive_error_chunk(data)
            if self._over_cap():
                return self._capped()
            if self._error_bytes >= MAX_ERROR_BODY:
                why = f"the error body is longer than {MAX_ERROR_BODY} bytes; stopped reading"
                return TransportEnd("cancelled", self._now(), why)
        return TransportEnd("eof", self._now())

    async def _decoded(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """The body with its Content-Encoding undone (:mod:`inspector.encodings`).

        A coding we cannot undo raises :class:`~inspector.encodings.EncodingError`
        before any byte is recorded: compressed bytes may hide a secret.
        """
        decoder = StreamDecoder(response.headers.get("content-encoding"))
        async for data in response.aiter_raw():
            if decoder.active:
                data = decoder.decode(data)
            if data:
                yield data
        rest = decoder.flush()
        if rest:
            yield rest

    def _undecodable(self, exc: EncodingError) -> TransportEnd:
        why = f"{exc}; the body is not recorded (compressed bytes may hide a secret)"
        # Not the user's cancel (exit 130): the stream could not be taken as it came.
        return TransportEnd("reset", self._now(), why)

    # -- per chunk -----------------------------------------------------------

    def _receive(self, data: bytes) -> None:
        t = self._arrived(data)
        clean = self._body.feed(data)
        if clean:
            self.sink.chunk(t, clean)
            self._fed_at = t
            self.normalizer.feed(clean, t)

    def _receive_error_chunk(self, data: bytes) -> None:
        t = self._arrived(data)
        clean = self.scrubber.feed(data)
        if clean:
            self.sink.chunk(t, clean)
            self.normalizer.receive_error_body(clean, t)
            self._error_body.append(clean)
        self._error_bytes += len(data)

    def _arrived(self, data: bytes) -> float:
        t = self._now()
        self._timing("first_byte", t)
        self.exchange["timings"]["last_byte"] = round(t, 6)
        self.received += len(data)
        return t

    def _release_held(self, time: float) -> None:
        """The end: bytes the scrubber held back (a possible key's start) go out now."""
        error = self._status is not None and self._status >= 400
        rest = self.scrubber.flush() if error else self._body.flush()
        if not rest:
            return
        self.sink.chunk(time, rest)
        if error:
            self.normalizer.receive_error_body(rest, time)
            self._error_body.append(rest)
        elif not self.normalizer.finished:
            self._fed_at = time
            self.normalizer.feed(rest, time)

    def _over_cap(self) -> bool:
        return self.max_bytes is not None and self.received >= self.max_bytes

    def _capped(self) -> TransportEnd:
        self.capped = True
        assert self.max_bytes is not None
        why = (
            f"stopped at the --max-bytes cap ({format_size(self.max_bytes)}, "
            f"{self.received} bytes received); everything received is kept"
        )
        return TransportEnd("cancelled", self._now(), why)

    def _progressed(self) -> bool:
        """Whether a meaningful event arrived since the last call.

        Called after each chunk is fed: the first ``block.delta`` came from a
        frame that chunk completed, so the chunk's arrival is the frame's time.
        """
        meaningful, deltas = self._tally()
        progressed = meaningful > self._meaningful
        if deltas and not self._deltas:
            self._timing("first_content", self._fed_at)
        self._meaningful, self._deltas = meaningful, deltas
        return progressed

    def _tally(self) -> tuple[int, int]:
        """Events so far that are progress (not heartbeats or warnings), and deltas."""
        counts = self.trace.type_counts()
        quiet = sum(counts.get(kind, 0) for kind in _NOT_PROGRESS)
        return self.trace.event_count - quiet, counts.get("block.delta", 0)

    # -- the end -------------------------------------------------------------

    def _settle(self, end: TransportEnd) -> None:
        """Record how the stream ended: trace terminal state, capture end record."""
        if self._settled:
            return
        self._settled = True
        end = TransportEnd(end.reason, end.time, self._safe(end.error))
        self._release_held(end.time if end.time is not None else self._now())
        if self._status is not None and self._status >= 400 and not self.normalizer.finished:
            self.normalizer.fail_http(self._status, b"".join(self._error_body))
        if self.normalizer.finished:
            self.trace.transport_end = end
        else:
            self.normalizer.finish(end)
        self._progressed()  # the last events' timings (first_content)
        time = end.time if end.time is not None else self._now()
        self.sink.close(self.header, end.reason, time, end.error)

    def _broken(self, exc: httpx.RequestError) -> TransportEnd:
        end = transport_end(exc, self.request.url, self._now(), self.transport_timeout)
        return TransportEnd(end.reason, end.time, self._safe(end.error))

    # -- helpers -------------------------------------------------------------

    def _now(self) -> float:
        return (self._loop.time() - self._t0) if self._loop is not None else 0.0

    def _progress_deadline(self) -> float | None:
        if self.progress_timeout is None:
            return None
        return asyncio.get_running_loop().time() + self.progress_timeout

    def _timing(self, name: str, value: float | None = None, *, overwrite: bool = False) -> None:
        timings = self.exchange["timings"]
        if overwrite or name not in timings:
            timings[name] = round(self._now() if value is None else value, 6)

    def _safe(self, value: Any) -> Any:
        """``value`` (any JSON-like structure) with every spelling of every secret,
        and anything shaped like one, replaced."""
        return self.secrets.clean_value(value)
