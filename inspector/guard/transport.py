"""The guard transport: the normalizer watching every streamed response as it passes.

Wrap the transport an SDK's ``httpx`` client uses. For a streaming response
of a known provider (by the request's path), each chunk goes to a
:class:`~inspector.core.normalizer.Normalizer` before the SDK sees it. When
the normalizer has proven a normal end, the guard stops reading (a
connection held open after the final signal cannot hang the client). When
the stream ends, or the normalizer ends it failed or interrupted, without
that proof, the read raises :class:`~.errors.StreamNotProven` in the SDK's
own iterator, before the SDK sees the chunk that ended it so (a broken tool
call and ``[DONE]`` can arrive in one chunk). Everything else passes through untouched.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from types import ModuleType, SimpleNamespace
from typing import Any, Final

import httpx

from ..core.normalizer import Normalizer, stream_id_for
from ..core.trace import TransportEnd
from .errors import Evidence, NotProven, StreamNotProven

__all__ = ["AsyncGuardTransport", "GuardTransport", "guard_for", "provider_for"]

#: The end of a request path -> the provider that streams there.
_PATHS: Final = (
    ("/chat/completions", "openai-chat"),
    ("/responses", "openai-responses"),
    ("/messages", "anthropic"),
    (":streamGenerateContent", "gemini"),
)
_TAIL: Final = 2048
#: Characters of draft text and tool arguments the evidence keeps, at most.
_MAX_DRAFT: Final = 64 * 1024


def provider_for(path: str) -> str | None:
    """The provider whose streaming endpoint ``path`` is, or None."""
    return next((p for end, p in _PATHS if path.endswith(end)), None)


class _Watch:
    """The normalizer of one response, and the evidence it gives."""

    def __init__(self, provider: str, request: Any, encoding: str, error: type[NotProven]) -> None:
        self.error_type = error
        self.provider = provider
        self.request = request
        # The whole trace (about 2.7 times the bytes of the response): the evidence is
        # read from it only when it is needed, so a chunk costs the normalizer's feed.
        self.normalizer = Normalizer(provider, stream_id_for(request.url.raw_path))
        self.machine = self.normalizer.machine
        self.inflate = zlib.decompressobj(47 if encoding == "gzip" else 15) if encoding in (
            "gzip", "deflate") else None  # fmt: skip

    @property
    def state(self) -> str:
        return self.machine.state

    def feed(self, chunk: bytes) -> None:
        self.normalizer.feed(self.inflate.decompress(chunk) if self.inflate else chunk)

    def finish(self, reason: str) -> None:
        self.normalizer.finish(TransportEnd(reason))

    def take(self, chunk: bytes) -> bool:
        """Feed one chunk before the SDK sees it: raise when the stream ended unproven
        (the chunk may hold a final signal too, "[DONE]" after a broken tool call, and
        the SDK stops there); True once the end is proven (nothing after it can change
        it: stop reading once the SDK has the chunk)."""
        self.feed(chunk)
        if self.state in ("failed", "interrupted"):
            raise self.error()
        return self.state == "completed"

    @contextmanager
    def reading(self, hx: ModuleType, not_proven: type[Exception]) -> Iterator[None]:
        """Around the read loop of a body: a transport failure mid-body (a timeout or a
        reset) ends the stream, then goes on up (the guard's own error, raised through
        the transport, is not a new end)."""
        try:
            yield
        except hx.TransportError as exc:
            if not isinstance(exc, not_proven):
                self.finish("timeout" if isinstance(exc, hx.TimeoutException) else "reset")
            raise

    def end(self) -> None:
        """The body ended: raise unless the end was proven."""
        self.finish("eof")
        if self.state != "completed":
            raise self.error()

    def error(self) -> NotProven:
        trace = self.normalizer.trace
        terminal = trace.terminal_event
        message = (
            terminal["error"]["message"] if terminal is not None and "error" in terminal else None
        )
        received = trace.chunks.bytes_received
        text, calls = _draft(trace)
        evidence = Evidence(
            provider=self.provider,
            state=self.state,
            category=trace.ending,
            message=message,
            bytes_received=received,
            events=len(trace.events),
            text=text,
            tool_calls=calls,
            tail=trace.chunks.span(max(0, received - _TAIL), received),
        )
        return self.error_type(evidence, self.request)


def _draft(trace: Any) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The text and tool calls (name, arguments so far) the trace's events carry, each
    fragment kept while :data:`_MAX_DRAFT` characters are not reached."""
    kinds: dict[str, str] = {}
    text: list[str] = []
    calls: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    kept = 0
    for event in trace.events:
        kind = event["type"]
        if kind == "block.start":
            block = event["block"]
            kinds[block["id"]] = block["kind"]
            if block["kind"] == "tool_call":
                calls[block["id"]] = []
                names[block["id"]] = str(event.get("name") or "")
        elif kind == "block.delta" and kept < _MAX_DRAFT:
            block_id = event["block"]["id"]
            delta = event["delta"]
            if kinds.get(block_id) == "text" and delta["kind"] == "text":
                text.append(delta["text"])
                kept += len(delta["text"])
            elif block_id in calls and delta["kind"] == "json_text":
                calls[block_id].append(delta["text"])
                kept += len(delta["text"])
    return "".join(text), tuple((names[b], "".join(p)) for b, p in calls.items())


def _watch(
    request: Any, response: Any, provider: str | None, error: type[NotProven]
) -> _Watch | None:
    """A watch for ``response`` when it is a provider's event stream, else None."""
    chosen = provider or provider_for(request.url.path)
    content_type = response.headers.get("content-type", "")
    if chosen is None or response.status_code >= 400 or "event-stream" not in content_type:
        return None
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "deflate"):
        return None  # (brotli, zstd: not decoded here, so not judged)
    return _Watch(chosen, request, encoding, error)


class _Wrapping:
    """A response body read through a :class:`_Watch`."""

    def __init__(self, inner: Any, watch: _Watch) -> None:
        self.inner = inner
        self.watch = watch


@functools.cache
def guard_for(hx: ModuleType) -> Any:
    """The guard transports for ``hx``: ``httpx``, or a fork with its API (``httpx2``, which
    the anthropic SDK uses). ``.sync``, ``.async_`` and ``.error`` (its StreamNotProven)."""
    not_proven = StreamNotProven if hx is httpx else _error_for(hx)

    # The two streams differ only by `for` / `async for` (and close / aclose): what the
    # loop does with each chunk and with a failure is _Watch's (take, reading, end).
    class _GuardedStream(_Wrapping, hx.SyncByteStream):  # type: ignore[misc, name-defined]
        def __iter__(self) -> Iterator[bytes]:
            with self.watch.reading(hx, not_proven):
                for chunk in self.inner:
                    proven = self.watch.take(chunk)
                    yield chunk
                    if proven:
                        return
            self.watch.end()

        def close(self) -> None:
            self.inner.close()

    class _AsyncGuardedStream(_Wrapping, hx.AsyncByteStream):  # type: ignore[misc, name-defined]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            with self.watch.reading(hx, not_proven):
                async for chunk in self.inner:
                    proven = self.watch.take(chunk)
                    yield chunk
                    if proven:
                        return
            self.watch.end()

        async def aclose(self) -> None:
            await self.inner.aclose()

    class GuardTransport(hx.BaseTransport):  # type: ignore[misc, name-defined]
        """Wraps a sync transport (default: ``hx.HTTPTransport()``); see the module docstring.

        ``provider`` fixes the provider for every response (default: from the path).
        """

        def __init__(self, transport: Any = None, *, provider: str | None = None) -> None:
            self.transport = transport if transport is not None else hx.HTTPTransport()
            self.provider = provider

        def handle_request(self, request: Any) -> Any:
            """Send through the wrapped transport; guard the body of a provider stream."""
            response = self.transport.handle_request(request)
            watch = _watch(request, response, self.provider, not_proven)
            if watch is None:
                return response
            assert isinstance(response.stream, hx.SyncByteStream)
            return _rewrapped(response, _GuardedStream(response.stream, watch), request)

        def close(self) -> None:
            """Close the wrapped transport."""
            self.transport.close()

    def _rewrapped(response: Any, stream: Any, request: Any) -> Any:
        """``response`` with its body read through ``stream`` (the guard)."""
        return hx.Response(
            response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    class AsyncGuardTransport(hx.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        """:class:`GuardTransport` for async clients (default: ``hx.AsyncHTTPTransport()``)."""

        def __init__(self, transport: Any = None, *, provider: str | None = None) -> None:
            self.transport = transport if transport is not None else hx.AsyncHTTPTransport()
            self.provider = provider

        async def handle_async_request(self, request: Any) -> Any:
            """Send through the wrapped transport; guard the body of a provider stream."""
            response = await self.transport.handle_async_request(request)
            watch = _watch(request, response, self.provider, not_proven)
            if watch is None:
                return response
            assert isinstance(response.stream, hx.AsyncByteStream)
            return _rewrapped(response, _AsyncGuardedStream(response.stream, watch), request)

        async def aclose(self) -> None:
            """Close the wrapped transport."""
            await self.transport.aclose()

    return SimpleNamespace(sync=GuardTransport, async_=AsyncGuardTransport, error=not_proven)


def _error_for(hx: ModuleType) -> type[NotProven]:
    base = hx.RemoteProtocolError

    class ForkStreamNotProven(NotProven, base):  # type: ignore[misc, valid-type]
        """:class:`~.errors.StreamNotProven` for ``hx``'s clients."""

        def __init__(self, evidence: Evidence, request: Any = None) -> None:
            base.__init__(self, evidence.describe(), request=request)
            self.evidence = evidence

    ForkStreamNotProven.__name__ = ForkStreamNotProven.__qualname__ = "StreamNotProven"
    return ForkStreamNotProven


GuardTransport = guard_for(httpx).sync
AsyncGuardTransport = guard_for(httpx).async_
