"""One proxied exchange: what the list shows, the capture, and a live trace.

Theory of operation
-------------------
The proxy's request handler drives a :class:`Flow` through four calls:
:meth:`Flow.start` (the request goes upstream), :meth:`Flow.response`
(status and headers arrived), :meth:`Flow.chunk` (for every piece of the
body, *after* it was forwarded to the app) and :meth:`Flow.finish` (how the
transport ended). The flow never does network I/O and never raises for
anything the upstream sent.

A response on one of the streaming endpoints is recorded when it is a
stream — SSE, NDJSON, the AWS event stream, Gemini's JSON array, by its
content type (:func:`~.routes.framing_of_response`) — or an error status
(whose body the provider's adapter classifies). Anything else — a
non-streaming completion, a model list — is forwarded untouched and not
recorded.

Recording is write-through: each chunk goes to the capture (flushed) the
moment it is forwarded, after :class:`~inspector.redact.spellings.SecretScrubber`
removed every credential the request carried, in any spelling the upstream
may echo it in (an event stream a whole message at a time, so it stays
decodable: :mod:`inspector.live.framed_scrub`). The same scrubbed bytes feed a sans-IO
:class:`~inspector.core.normalizer.Normalizer`, so a view can follow the
stream live; :class:`Flow` is a :class:`~inspector.feeds.Feed` for that. When
the flow ends its trace and the request body are dropped (:attr:`Flow.trace`
becomes None and the capture on disk is the record), so a long-running proxy
does not keep every stream it ever saw.

While it streams, a recorded flow's trace is a
:class:`~inspector.core.summary.Summary` (counts and the last events,
not history), so an open exchange costs the same memory however long its
stream: the capture file has every byte. A view that follows the flow calls
:meth:`Flow.follow`, which rebuilds the whole trace from the capture written
so far; from then on the flow keeps history. A flow with no capture
directory keeps history from the start (there is nothing to rebuild from).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson

from ..capture import UnreadableInput, read_recording
from ..capture_writer import CaptureWriter
from ..core.normalizer import Normalizer
from ..core.summary import Summary
from ..core.trace import Trace, TransportEnd
from ..encodings import EncodingError, StreamDecoder, UndecodableEncoding
from ..live.feed import MAX_ERROR_BODY
from ..live.framed_scrub import BodyScrubber, body_scrubber
from ..redact import SecretSet, redact_headers, redact_url
from .recording import capture_name, create_capture_file, rewrite_header
from .routes import Route, framing_of_response, provider_of_response

__all__ = ["Described", "Flow", "FlowRequest", "describe_request"]

Notify = Callable[[], None]

#: The most bytes one recorded body may decode to (a compression bomb stops there).
MAX_DECODED: Final = 1 << 30
#: What the state column says before the terminal state is known.
WAITING: Final = "waiting"
STREAMING: Final = "streaming"
#: A response that was forwarded without being recorded.
PASSED: Final = "passed"


def _body_for_header(body: bytes, max_json: int) -> Any:
    """The request body as the capture header keeps it: JSON when it is JSON."""
    if not body:
        return None
    if len(body) <= max_json:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return body.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class FlowRequest:
    """The request as the proxy forwards it (credentials included: never written as is)."""

    method: str
    #: The path as sent, without the query.
    path: str
    query: str
    #: The headers sent upstream.
    headers: list[tuple[str, str]]
    body: bytes
    #: The upstream URL, query included.
    upstream: str


@dataclass(frozen=True, slots=True)
class Described:
    """What a request's body says, worked out once (off the event loop)."""

    model: str | None
    #: The request as the capture records it, every credential scrubbed.
    record: dict[str, Any]


def describe_request(
    request: FlowRequest, route: Route, secrets: SecretSet, max_json: int
) -> Described:
    """The model and the scrubbed record of ``request``: its body parsed once, at most
    ``max_json`` bytes of it (a longer one is recorded as text). Takes a while for a
    large body; the proxy runs it in a worker thread."""
    body = _body_for_header(request.body, max_json)
    model = route.path_model
    if model is None and isinstance(body, dict) and isinstance(body.get("model"), str):
        model = body["model"]
    headers = {k.lower(): v for k, v in request.headers}
    record = secrets.clean_value(
        {
            "method": request.method,
            "url": redact_url(request.upstream),
            "headers": redact_headers(headers),
            "body": body,
        }
    )
    return Described(model, record)


class Flow:
    """One exchange through the proxy (see the module docstring)."""

    def __init__(
        self,
        number: int,
        request: FlowRequest,
        route: Route,
        model: str | None,
        *,
        secrets_seen: SecretSet | Iterable[str],
        directory: Path | None,
        described: Described | None = None,
        max_record: int | None = None,
        max_ratio: int | None = None,
    ) -> None:
        self.number = number
        self.method = request.method
        #: The path only: a query may carry a key.
        self.path = request.path
        self.provider = route.provider
        self.route = route
        #: How the recorded body is framed: known once the response's headers arrive.
        self.framing = "sse"
        #: This exchange's credentials (its own: nothing is shared between exchanges).
        self.secrets = (
            secrets_seen
            if isinstance(secrets_seen, SecretSet)
            else SecretSet(("secret", value) for value in secrets_seen)
        )
        # A key sent as the model never names a file or reaches a line.
        self.model = self.secrets.clean(model) if model else model
        self.directory = directory
        self.scrubber = self.secrets.scrubber()
        self._body: BodyScrubber = self.scrubber
        self._decoder: StreamDecoder | None = None
        self.started_at = datetime.now(UTC)
        self.status: int | None = None
        #: Body bytes forwarded to the app.
        self.bytes = 0
        self.duration: float | None = None
        self.state = WAITING
        self.capture: Path | None = None
        #: Why recording stopped early (an unwritable directory, a full disk), if it did.
        self.problem: str | None = None
        self.trace: Trace | Summary | None = None
        self.normalizer: Normalizer[Any] | None = None
        self.description = f"proxy · #{number} · {request.method} {self.path}"
        if described is None:
            described = describe_request(request, route, self.secrets, len(request.body))
        self.exchange: dict[str, Any] = {
            "request": described.record,
            "response": None,
            "timings": {},
        }
        #: Response body bytes recorded at most (None: no bound); the app gets them all.
        self.max_record = max_record
        #: How many times its compressed size a recorded body may decode to (None: no bound).
        self.max_ratio = max_ratio
        #: Why decoding the recorded copy stopped, until the capture says so.
        self._halt: EncodingError | None = None
        self._recorded = 0
        self.ended = asyncio.Event()
        #: Set by the proxy: stops this exchange (the app's connection is aborted).
        self.on_cancel: Callable[[], object] | None = None
        #: Whether :meth:`cancel` stopped it.
        self.cancelled = False
        self._listeners: list[Notify] = []
        self._t0 = time.perf_counter()
        self._writer: CaptureWriter | None = None
        self._error_bytes = 0
        self._error_body: list[bytes] = []  # for its adapter: a summary keeps no bytes
        self._fed_at = 0.0  # when the chunk last given to the normalizer arrived

    # -- what views use --------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether the exchange is still going on."""
        return not self.ended.is_set()

    @property
    def recording(self) -> bool:
        """Whether the exchange is being recorded (it has a live trace)."""
        return self.normalizer is not None

    def follow(self) -> Trace | None:
        """The exchange's whole trace, for a view that shows it while it streams.

        The first call rebuilds it from the capture written so far (the flow
        recorded a bounded trace until then) and the flow keeps history from
        then on. None when the exchange is not being recorded (ended, not a
        stream) or its capture cannot be read back (see :attr:`problem`).
        """
        normalizer = self.normalizer
        if normalizer is None or not self.live:
            return None
        if not isinstance(normalizer.trace, Summary):
            trace: Trace = normalizer.trace
            return trace
        if self.capture is None or self._writer is None:
            return None
        try:
            recording = read_recording(self.capture)
        except UnreadableInput:
            return None
        whole = Normalizer(
            self.provider or normalizer.adapter.provider,
            normalizer.trace.stream_id,
            source=normalizer.trace.source,
            header=self._header(),
            framing=self._framing_read(),
        )
        if self.status is not None and self.status >= 400:
            for time_, data in recording.chunks:
                whole.receive_error_body(data, time_)
        else:
            whole.feed_many(recording.chunks)
        self.normalizer = whole
        self.trace = whole.trace
        return whole.trace

    def watch(self, listener: Notify) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    async def run(self, notify: Notify) -> None:
        """The :class:`~inspector.feeds.Feed` protocol: notify until the exchange ends."""
        stop = self.watch(notify)
        try:
            notify()
            await self.ended.wait()
        finally:
            stop()

    def cancel(self) -> None:
        """Stop the exchange: the app's connection is aborted, the capture says ``cancelled``."""
        if self.live and self.on_cancel is not None:
            self.cancelled = True
            self.on_cancel()

    def now(self) -> float:
        """Seconds since the request was sent upstream (the capture's clock)."""
        return time.perf_counter() - self._t0

    # -- what the proxy calls --------------------------------------------------

    def start(self) -> None:
        """The request is about to go upstream: t = 0."""
        self._t0 = time.perf_counter()

    def response(
        self,
        status: int,
        http_version: str,
        headers: Mapping[str, str],
        set_cookies: Iterable[str] = (),
    ) -> None:
        """The upstream's status and headers arrived (``headers`` lower-case;
        ``set_cookies``: every ``Set-Cookie`` value, which a mapping holds one of)."""
        self.status = status
        self._timing("headers")
        # What the upstream sets is a secret from now on (no body byte is held yet).
        before = len(self.secrets)
        cookies = [("set-cookie", value) for value in set_cookies]
        self.secrets.add_response_headers([*headers.items(), *cookies])
        if len(self.secrets) != before:
            self.scrubber = self.secrets.scrubber()
        self.exchange["response"] = self.secrets.clean_value(
            {"status": status, "http_version": http_version, "headers": redact_headers(headers)}
        )
        framing = framing_of_response(self.route, headers)
        if self.provider is not None and (status >= 400 or framing is not None):
            if status < 400 and framing is not None:
                self.framing = framing
                self.provider = provider_of_response(self.route, framing)
            self._body = body_scrubber(self.scrubber, self.framing)
            self._open()
            self.state = STREAMING
            self._decode_as(headers.get("content-encoding"))
        else:
            self.state = PASSED
        self._notify()

    def chunk(self, time_: float, data: bytes) -> None:
        """One piece of the body, already forwarded to the app."""
        self.bytes += len(data)
        self._timing("first_byte", time_)
        self.exchange["timings"]["last_byte"] = round(time_, 6)
        if self.normalizer is not None:
            self._record(time_, self._body.feed(self._within_budget(self._decoded(data))))
            self._stop_if_undecodable()
        self._notify()

    def _within_budget(self, data: bytes) -> bytes:
        # The app received all of it; the capture keeps the first max_record bytes.
        if self.max_record is None:
            return data
        room = max(0, self.max_record - self._recorded)
        self._recorded += len(data)
        return data[:room]

    @property
    def cut(self) -> str | None:
        """Where the recording was cut and why, if it was (the app got everything)."""
        if self.max_record is not None and self._recorded > self.max_record:
            return (
                f"only the first {self.max_record} of the {self._recorded} body bytes the app "
                "received were recorded (the proxy's --max-record)"
            )
        return None

    def finish(self, end: TransportEnd) -> None:
        """The exchange ended as ``end`` says; settle the trace and close the capture."""
        if not self.live:
            return
        self.duration = end.time if end.time is not None else self.now()
        end = TransportEnd(end.reason, end.time, self._scrubbed(end.error))
        if self.normalizer is None and self.status is None and self.provider is not None:
            self._open()  # no response at all: the capture still says what happened
        normalizer = self.normalizer
        if normalizer is not None:
            rest = self._decoded(b"", end=True)
            self._record(self.duration, self._body.feed(rest) + self._body.flush())
            self._stop_if_undecodable()
            normalizer = self.normalizer  # None once decoding stopped the capture
        if normalizer is not None:
            if self.status is not None and self.status >= 400 and not normalizer.finished:
                normalizer.fail_http(self.status, b"".join(self._error_body))
            if normalizer.finished:
                normalizer.trace.transport_end = end
            else:
                normalizer.finish(end)
            self._first_content()
            self.state = normalizer.trace.outcome
            self._close(end)
        elif self.status is None:
            self.state = f"interrupted ({end.reason})"
        self._release()
        self.ended.set()
        self._notify()

    def _release(self) -> None:
        # The capture on disk is the record now: keep only what the list shows.
        # (A view still showing the exchange keeps its own trace and dict.)
        self.normalizer = None
        self.trace = None
        self._error_body = []
        request = {k: v for k, v in self.exchange["request"].items() if k != "body"}
        self.exchange = {**self.exchange, "request": request}

    # -- recording ---------------------------------------------------------------

    def _header(self) -> dict[str, Any]:
        header = {
            "provider": self.provider,
            "endpoint": self.path,
            "model": self.model,
            "recorded_at": self.started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "request": self.exchange["request"],
            "response": self.exchange["response"],
            "timings": self.exchange["timings"],
        }
        if self.framing != "sse":
            header["framing"] = self.framing
        return header

    def _framing_read(self) -> str:
        # An error body is an error document, never framed (as session.framing_of reads it).
        return "sse" if self.status is not None and self.status >= 400 else self.framing

    def _open(self) -> None:
        assert self.provider is not None
        self.normalizer = Normalizer(
            self.provider,
            "st_" + secrets.token_hex(8),
            source=self.description,
            header=self._header(),
            # Bounded unless nothing is written that a view could rebuild it from.
            keep_history=self.directory is None,
            framing=self._framing_read(),
        )
        self.trace = self.normalizer.trace
        if self.directory is None:
            return
        name = capture_name(self.number, self.provider, self.model, self.started_at)
        try:
            self.capture = create_capture_file(self.directory, name)
            self._writer = CaptureWriter(self.capture, self._header())
        except OSError as exc:
            self._stop_recording(f"cannot write a capture in {self.directory}: {exc}")
            return
        self.trace.source = str(self.capture)

    def _record(self, time_: float, data: bytes) -> None:
        normalizer = self.normalizer
        if not data or normalizer is None:
            return
        if self.status is not None and self.status >= 400:
            if self._error_bytes >= MAX_ERROR_BODY:
                return  # forwarded whole, recorded up to the bound
            data = data[: MAX_ERROR_BODY - self._error_bytes]
            self._error_bytes += len(data)
            self._error_body.append(data)
            normalizer.receive_error_body(data, time_)
        else:
            self._fed_at = time_
            normalizer.feed(data, time_)
            self._first_content()
        if self._writer is not None:
            try:
                self._writer.chunk(time_, data)
            except OSError as exc:
                self._stop_recording(f"writing {self.capture} failed: {exc}")

    def _close(self, end: TransportEnd) -> None:
        writer, self._writer = self._writer, None
        if writer is None or self.capture is None:
            return
        try:
            error = end.error
            if self._error_bytes >= MAX_ERROR_BODY:
                error = f"only the first {MAX_ERROR_BODY} bytes of the error body were recorded"
            cut = self.cut
            if cut is not None:
                error = f"{error}; {cut}" if error else cut
            writer.end(end.reason, self.duration or 0.0, error)
            rewrite_header(self.capture, self._header())
        except (OSError, ValueError) as exc:
            self._stop_recording(f"finishing {self.capture} failed: {exc}")

    def _stop_recording(self, why: str) -> None:
        self.problem = why
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.abandon()

    # -- helpers -------------------------------------------------------------------

    def _first_content(self) -> None:
        # Called after each chunk is fed: the first delta came from a frame that
        # chunk completed, so the chunk's arrival is that frame's time.
        trace = self.trace
        if trace is None or "first_content" in self.exchange["timings"]:
            return
        if trace.type_counts().get("block.delta"):
            self._timing("first_content", self._fed_at)

    def _timing(self, name: str, value: float | None = None) -> None:
        timings = self.exchange["timings"]
        if name not in timings:
            timings[name] = round(self.now() if value is None else value, 6)

    def _scrubbed(self, text: str | None) -> str | None:
        if text is None:
            return None
        return self.secrets.clean(text)

    def _decode_as(self, content_encoding: str | None) -> None:
        """Record the body decoded; a coding we cannot undo is not recorded at all.

        The decoded copy is bounded by the recording's budget and, when the
        upstream compressed it, by how many times its compressed size it may
        grow (a bomb stops there); the app gets every byte as sent either way.
        """
        try:
            self._decoder = StreamDecoder(
                content_encoding, limit=self.max_record or MAX_DECODED, max_ratio=self.max_ratio
            )
        except EncodingError as exc:
            self._halt = exc
            self._stop_if_undecodable()

    def _decoded(self, data: bytes, *, end: bool = False) -> bytes:
        """The recorded copy of a body piece: decoded (the app got the bytes as sent).

        Past a damaged byte or a budget the copy stops: what decoded before it is
        returned, and :meth:`_stop_if_undecodable` ends the capture after it.
        """
        decoder = self._decoder
        if decoder is None or not decoder.active:
            return data
        try:
            return decoder.flush() if end else decoder.decode(data)
        except EncodingError as exc:
            self._decoder = None
            self._halt = exc
            return exc.partial

    def _stop_if_undecodable(self) -> None:
        """Compressed bytes may hide a secret: never recorded as they are. The
        capture ends where decoding stopped, saying why; the app still gets every byte."""
        exc, self._halt = self._halt, None
        if exc is None:
            return
        if isinstance(exc, UndecodableEncoding):
            why = f"{exc}; the body was forwarded to the app but not recorded"
        else:
            why = f"{exc}; the capture keeps what decoded before it (the app got every byte)"
        self.problem = why
        normalizer, self.normalizer = self.normalizer, None
        end = TransportEnd("cancelled", self.now(), why)
        if normalizer is not None and not normalizer.finished:
            normalizer.finish(end)
            self.state = normalizer.trace.outcome
        self._close(end)

    def _notify(self) -> None:
        for listener in tuple(self._listeners):
            listener()
