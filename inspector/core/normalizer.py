"""The sans-IO pipeline: chunks in, a filled :class:`Trace` out.

``Normalizer`` wires one decoder, one adapter and one machine to one trace.
Live mode, file loading, the replay server's tests and the exporters all
feed it the same way: :meth:`Normalizer.feed` for every chunk as it arrives,
then :meth:`Normalizer.finish` with how the transport ended.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, TypedDict, TypeVar, Unpack, overload

from .actions import Delta, Heartbeat
from .adapters import Adapter, adapter_for
from .adapters.base import bare_error
from .adapters.framed import framed
from .digest import blake2b
from .machine import StreamMachine
from .sse import (
    DEFAULT_MAX_FRAME,
    DEFAULT_MAX_LINE,
    Decoded,
    Frame,
    FrameColumns,
    FrameDecoder,
    SpanLog,
    columns,
)
from .trace import Trace, TransportEnd

if TYPE_CHECKING:
    from .framing.base import FramingDecoder
    from .summary import Summary

__all__ = ["Normalizer", "normalize", "stream_id_for"]

#: Frames :meth:`Normalizer.feed_many` gathers before processing them (bounds the
#: frames held at once; larger batches gain nothing measurable).
_BATCH_FRAMES = 1024
#: A chunk larger than this is decoded in parts of this size by feed_many.
_PART = 256 * 1024


#: What a normalizer records into: a :class:`Trace` (history), or a :class:`Summary`.
R = TypeVar("R", "Trace", "Summary")  # (names: a summary is imported only when asked for)


class _Options(TypedDict, total=False):
    """The keyword options of every form of :class:`Normalizer` (see its ``__init__``)."""

    source: str | None
    header: Mapping[str, Any] | None
    max_line: int
    max_frame: int
    fast: bool
    framing: str


def stream_id_for(*parts: bytes) -> str:
    """A deterministic ``st_…`` id derived from a capture's content."""
    digest = blake2b(digest_size=8)
    for part in parts:
        digest.update(part)
    return "st_" + digest.hexdigest()


class Normalizer(Generic[R]):
    """Feeds chunks through decoder → adapter → machine into a recorder.

    The recorder, :attr:`trace`, is a :class:`~inspector.core.trace.Trace`
    (everything, for views) or, with ``keep_history=False``, a
    :class:`~inspector.core.summary.Summary` (counts and the last events,
    memory bounded whatever the stream's length); the machine is built on it.

    Reference mode
    --------------
    ``fast=False`` runs the straightforward path everywhere: the decoder's
    :meth:`~inspector.core.sse.FrameDecoder.feed` (no runs of plain events),
    every frame through the adapter's ``feed`` and every action through
    :meth:`~inspector.core.machine.StreamMachine.apply`, one at a time — no
    plain runs, no templates, no batching across chunks. It is what the fast
    path must equal (``tests/test_fast_equals_reference.py`` checks the
    events, the trace and every byte span), and what ``inspector events
    --reference`` and ``inspector check --reference`` run, to tell a bug in a
    shortcut from one in the rules.
    """

    # (the forms differ only in the recorder that keep_history picks; the options are _Options)
    @overload
    def __init__(
        self: Normalizer[Trace],
        provider: str | Adapter,
        stream_id: str,
        *,
        keep_history: Literal[True] = True,
        **options: Unpack[_Options],
    ) -> None: ...

    @overload
    def __init__(
        self: Normalizer[Summary],
        provider: str | Adapter,
        stream_id: str,
        *,
        keep_history: Literal[False],
        **options: Unpack[_Options],
    ) -> None: ...

    @overload
    def __init__(
        self: Normalizer[Any],
        provider: str | Adapter,
        stream_id: str,
        *,
        keep_history: bool,
        **options: Unpack[_Options],
    ) -> None: ...

    def __init__(
        self,
        provider: str | Adapter,
        stream_id: str,
        *,
        source: str | None = None,
        header: Mapping[str, Any] | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        max_frame: int = DEFAULT_MAX_FRAME,
        keep_history: bool = True,
        fast: bool = True,
        framing: str = "sse",
    ) -> None:
        """``keep_history=False`` records a :class:`~inspector.core.summary.Summary`.
        ``fast=False``: the reference mode (see the class docstring).
        ``framing`` is one of :data:`inspector.core.framing.FRAMINGS`."""
        if isinstance(provider, str):
            provider = adapter_for(provider) if framing == "sse" else framed(provider, framing)
        self.adapter = provider
        if header is not None:
            self.adapter.origin(header)
        if keep_history:
            recorder_type: type[Trace | Summary] = Trace
        else:
            from .summary import Summary

            recorder_type = Summary
        recorder = recorder_type(
            stream_id=stream_id,
            provider=self.adapter.provider,
            source=source,
            header=dict(header) if header is not None else None,
        )
        self.trace: R = recorder  # type: ignore[assignment]  # (the overloads pick R)
        self.decoder: FramingDecoder = FrameDecoder(max_line=max_line, max_frame=max_frame)
        self.machine = StreamMachine(self.trace, self.adapter.provider)
        if framing != "sse":  # (SSE needs none of this: no import on its path)
            self._use_framing(framing, max_line, max_frame)
        self._span_log: SpanLog = self.trace.span_log
        self.fast = fast
        self._decode: Callable[[bytes, float], Sequence[Decoded]] = (
            self.decoder.feed_runs if fast else self.decoder.feed
        )
        self.finished = False
        # The last frames decoded and where they ended when recorded: the decoder may
        # still extend that span by one byte (see FrameDecoder.feed).
        self._last: FrameColumns | None = None
        self._last_end = 0

    def _use_framing(self, framing: str, max_line: int, max_frame: int) -> None:
        from .framing import decoder_for, rebuild_for

        self.decoder = decoder_for(framing, max_line=max_line, max_frame=max_frame)
        if isinstance(self.trace, Trace):  # (a summary keeps no frames to rebuild)
            self.trace.frames.rebuild = rebuild_for(framing)
        self.machine.framing = framing

    def feed(self, data: bytes, time: float = 0.0) -> None:
        """Record one chunk and process every frame it completes."""
        decoder = self.decoder
        self.trace.add_chunk(decoder.bytes_fed, time, data)
        items = self._decode(data, time)
        last = self._last
        if last is not None and last.end != self._last_end:
            self._extend_last()
        if len(items) == 1 and not isinstance(items[0], Frame):  # one run: plain events
            run = items[0]
            run.record(self._span_log)
            self._take(run)
            self._last = run
            self._last_end = run.end
        elif items:
            self._process(items)
        if decoder.error is not None:
            self._after_decoder()

    def feed_many(self, chunks: Iterable[tuple[float, bytes]]) -> None:
        """:meth:`feed` each ``(time, bytes)`` chunk, in order, to the same trace.

        For a stream that is all there (a file): frames are gathered over
        chunks and processed in batches of up to :data:`_BATCH_FRAMES`, so a
        capture recorded one chunk per frame costs little more per frame than
        large chunks do — runs of plain deltas span chunks. The trace is the
        one feeding chunk by chunk builds: frames are processed in order, each
        before any later chunk could matter to it (the decoder never returns a
        frame again, and its error is acted on once the frames before it are).
        In the reference mode it is :meth:`feed` for each chunk.
        """
        if not self.fast:
            for time, data in chunks:
                self.feed(data, time)
            return
        decoder = self.decoder
        decode = decoder.feed_runs
        add_chunks = self.trace.add_chunks
        pending: list[Decoded] = []
        held = 0  # frames in pending
        # The chunks decoded since the last batch, recorded with it (one pass a column).
        offsets: list[int] = []
        times: list[float] = []
        datas: list[bytes] = []
        chunks = iter(chunks)  # the loop below takes up where this one stops
        for time, data in chunks:
            offsets.append(decoder.bytes_fed)
            times.append(time)
            datas.append(data)
            if len(data) > _PART:
                # A file read whole: decoded part by part, its frames processed as they
                # come (the chunk is recorded first: the frame log checks what is stored).
                add_chunks(offsets, times, datas)
                offsets, times, datas = [], [], []
                parts: Iterable[list[Decoded]] = decoder.feed_run_parts(data, time, _PART)
            else:
                parts = (decode(data, time),)
            for items in parts:
                self._extend_last()
                if items:
                    pending += items
                    # (one item a chunk, nearly always: a frame, or a run of them)
                    for item in items:
                        held += 1 if isinstance(item, Frame) else len(item.payloads)
                    if held >= _BATCH_FRAMES:
                        add_chunks(offsets, times, datas)
                        offsets, times, datas = [], [], []
                        self._process(pending)
                        pending, held = [], 0
            if decoder.error is not None:
                break
        add_chunks(offsets, times, datas)
        if pending:
            self._process(pending)
        self._after_decoder()
        for time, data in chunks:  # the rest after a decoder error: kept, never decoded
            self.trace.add_chunk(decoder.bytes_fed, time, data)
            decoder.feed_runs(data, time)

    def _extend_last(self) -> None:
        last = self._last
        if last is not None and last.end != self._last_end:
            # The LF of a CRLF split across chunks joined the previous frame's span.
            self.trace.set_frame_end(last.first_index + len(last) - 1, last.end)
            self._last_end = last.end

    def _process(self, items: Sequence[Decoded]) -> None:
        """Record decoded frames and hand them to the adapter and the machine."""
        if len(items) == 1 and not isinstance(items[0], Frame):  # one run: plain events
            batches: list[FrameColumns] = items  # type: ignore[assignment]
        else:
            batches = columns(items)
        frames = self._span_log
        for batch in batches:
            batch.record(frames)
            self._take(batch)
        self._last = batches[-1]
        self._last_end = batches[-1].end

    def _take(self, batch: FrameColumns) -> None:
        """The one loop: each frame of ``batch`` to the adapter, its actions to the machine.

        In the fast mode a run of plain frames (``Adapter.feed_run``) goes to
        the machine in bulk, one event per frame; every other frame, and every
        frame in the reference mode, through ``Adapter.feed``.
        """
        machine = self.machine
        adapter = self.adapter
        apply = machine.apply
        take_frame = machine.take_frame
        started = self.trace.frame_started
        feed_run = adapter.feed_run if self.fast else None
        events, payloads, first = batch.events, batch.payloads, batch.first_index
        i, count = 0, len(batch)
        while i < count:
            index = first + i
            if not take_frame(index):  # after the terminal event
                started()
                i += 1
                continue
            if feed_run is not None:
                block, kind, texts = feed_run(events, payloads, i, first)
                if texts:
                    applied = machine.apply_deltas(block, kind, texts, index)
                    if applied is not None:
                        self.trace.frames_started(applied)  # each frame's one event
                    else:
                        self._one_by_one(block, kind, texts, index)
                    i += len(texts)
                    continue
            started()
            frame = batch[i]
            if frame.comment is not None:
                apply(Heartbeat("comment"), index)
            else:
                for action in adapter.feed(frame):
                    apply(action, index)
            i += 1

    def _one_by_one(self, block: int, kind: str, texts: list[str], index: int) -> None:
        # The machine would not take the run whole (say, its block is not open): the
        # deltas go one at a time, as the reference path applies them, for the same refusal.
        machine = self.machine
        for offset, text in enumerate(texts):
            self.trace.frame_started()
            if machine.take_frame(index + offset):
                machine.apply(Delta(block, kind, text), index + offset)

    def _after_decoder(self) -> None:
        if self.decoder.error is not None and self.trace.decoder_error is None:
            self.trace.decoder_error = str(self.decoder.error)
            self.machine.fail("protocol_error", self.trace.decoder_error)

    def finish(self, end: TransportEnd | None = None) -> R:
        """The transport ended: close the decoder and settle the terminal state."""
        if self.finished:
            return self.trace
        self.finished = True
        end = end or TransportEnd("eof")
        self.trace.transport_end = end
        tail = self.decoder.close()
        self.trace.tail = tail
        notes: list[str] = []
        tail_note = getattr(self.decoder, "tail_note", None)  # a framing's own words
        if tail.unterminated and tail_note is not None:
            notes.append(tail_note(tail))
        elif tail.unterminated:
            what = f"event {tail.event!r}" if tail.event else "a comment line"
            notes.append(
                f"{tail.pending_bytes} bytes at the end ({what} from byte {tail.start}) had no "
                "blank line after them, so they were never dispatched"
            )
        if end.reason == "eof":
            self._clean_eof(tail.unterminated)
            if self.machine.terminal:
                return self.trace
        adapter_note = self.adapter.eof_note()
        if adapter_note:
            notes.append(adapter_note)
        self.machine.interrupt(end, "; ".join(notes) or None)
        return self.trace

    def _clean_eof(self, unterminated: bool) -> None:
        """v1.1 at the end of the bytes: a dialect's own final signal, or a bare JSON error body."""
        if not unterminated:
            for action in self.adapter.at_eof():
                self.machine.apply(action)
        if not self.machine.terminal and not self.trace.frame_count:
            fail = bare_error(self.trace.error_body())
            if fail is not None:
                self.machine.fail(fail.category, fail.message, fail.provider_code)

    def receive_error_body(self, data: bytes, time: float = 0.0) -> None:
        """Record one chunk of an HTTP error response: kept, never decoded as SSE."""
        self.trace.add_chunk(self.trace.bytes_received, time, data)

    def fail_http(self, status: int, body: bytes | None = None, error_type: str | None = None) -> R:
        """The response was an HTTP error before any stream: end ``failed``.

        ``body`` defaults to the chunks given to :meth:`receive_error_body`
        (a summary keeps none: pass it). ``error_type``: the code a response
        header names (AWS's ``x-amzn-errortype``); defaults to the one the
        capture header's response headers hold.
        """
        if body is None:
            body = self.trace.error_body()
        if error_type is None:
            error_type = _header_error_type(self.trace.header)
        fail = self.adapter.http_error(status, body, error_type)
        self.machine.fail(fail.category, fail.message, fail.provider_code)
        self.finished = True
        return self.trace


def _header_error_type(header: Mapping[str, Any] | None) -> str | None:
    """``x-amzn-errortype`` of the response headers a capture header recorded."""
    response = header.get("response") if header is not None else None
    headers = response.get("headers") if isinstance(response, Mapping) else None
    if not isinstance(headers, Mapping):
        return None
    found = next((v for k, v in headers.items() if str(k).lower() == "x-amzn-errortype"), None)
    return found if isinstance(found, str) else None


def normalize(
    chunks: Iterable[tuple[float, bytes]] | bytes,
    provider: str | Adapter,
    stream_id: str | None = None,
    end: TransportEnd | None = None,
    *,
    fast: bool = True,
) -> Trace:
    """Normalize a whole stream at once (``bytes`` or ``(time, bytes)`` pairs)."""
    pieces = [(0.0, chunks)] if isinstance(chunks, bytes) else list(chunks)
    sid = stream_id or stream_id_for(*(data for _, data in pieces))
    normalizer = Normalizer(provider, sid, fast=fast)
    normalizer.feed_many(pieces)
    return normalizer.finish(end)
