"""The sans-IO pipeline: chunks in, a filled :class:`Trace` out.

``Normalizer`` wires one decoder, one adapter and one machine to one trace.
Live mode, file loading, the replay server's tests and the exporters all
feed it the same way: :meth:`Normalizer.feed` for every chunk as it arrives,
then :meth:`Normalizer.finish` with how the transport ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .actions import Delta, Heartbeat
from .adapters import Adapter, adapter_for
from .adapters.framed import framed
from .digest import blake2b
from .machine import TERMINAL_STATES, StreamMachine
from .sse import DEFAULT_MAX_FRAME, DEFAULT_MAX_LINE, Decoded, Frame, FrameDecoder, FrameRun, Frames
from .trace import Ignored, Trace, TransportEnd

if TYPE_CHECKING:
    from .framing.base import FramingDecoder

__all__ = ["Normalizer", "normalize", "stream_id_for"]

#: Frames :meth:`Normalizer.feed_many` gathers before processing them (bounds the
#: frames held at once; larger batches gain nothing measurable).
_BATCH_FRAMES = 1024
#: A chunk larger than this is decoded in parts of this size by feed_many.
_PART = 256 * 1024


def stream_id_for(*parts: bytes) -> str:
    """A deterministic ``st_…`` id derived from a capture's content."""
    digest = blake2b(digest_size=8)
    for part in parts:
        digest.update(part)
    return "st_" + digest.hexdigest()


class Normalizer:
    """Feeds chunks through decoder → adapter → machine into a trace."""

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
        framing: str = "sse",
    ) -> None:
        """``keep_history=False`` builds a :class:`~inspector.core.bounded.BoundedTrace`:
        counts and the last events, memory bounded whatever the stream's length.
        ``framing`` is one of :data:`inspector.core.framing.FRAMINGS`."""
        if isinstance(provider, str):
            provider = adapter_for(provider) if framing == "sse" else framed(provider, framing)
        self.adapter = provider
        if not keep_history:
            # Only live feeds keep no history: the commands that read files do not
            # import this (~3 ms of their start-up).
            from .bounded import BoundedTrace, bound_machine
        self.trace = (Trace if keep_history else BoundedTrace)(
            stream_id=stream_id,
            provider=self.adapter.provider,
            source=source,
            header=dict(header) if header is not None else None,
        )
        self.decoder: FramingDecoder = FrameDecoder(max_line=max_line, max_frame=max_frame)
        self.machine = StreamMachine(self.trace, self.adapter.provider)
        if framing != "sse":  # (SSE needs none of this: no import on its path)
            self._use_framing(framing, max_line, max_frame)
        if not keep_history:
            bound_machine(self.machine)
        self.finished = False
        # The last frame decoded and its end when recorded: the decoder may still
        # extend that span by one byte (see FrameDecoder.feed).
        self._last_frame: Decoded | None = None
        self._last_end = 0

    def _use_framing(self, framing: str, max_line: int, max_frame: int) -> None:
        from .framing import decoder_for, rebuild_for

        self.decoder = decoder_for(framing, max_line=max_line, max_frame=max_frame)
        self.trace.frames.rebuild = rebuild_for(framing)
        self.machine.framing = framing

    def feed(self, data: bytes, time: float = 0.0) -> None:
        """Record one chunk and process every frame it completes."""
        # (_decode and _process written out for the usual chunk: one run, or one frame)
        decoder = self.decoder
        self.trace.chunks.add(decoder.bytes_fed, time, data)
        items = decoder.feed_runs(data, time)
        last = self._last_frame
        if last is not None and last.end != self._last_end:
            self._extend_last()
        if len(items) == 1 and type(items[0]) is FrameRun:  # a chunk of plain events
            run = items[0]
            self.trace.frames.extend(run)
            self._run(run)
            self._last_frame = run
            self._last_end = run.end
        elif items:
            # (a chunk of one frame is how live streams arrive: no run to look for)
            self._process(items, len(items) > 1 or not isinstance(items[0], Frame))
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
        """
        decoder = self.decoder
        decode = decoder.feed_runs
        add_chunks = self.trace.chunks.add_many
        pending: list[Decoded] = []
        held = 0  # frames in pending
        runs = False  # whether pending holds a FrameRun
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
                        if isinstance(item, Frame):
                            held += 1
                        else:
                            held += len(item.payloads)
                            runs = True
                    if held >= _BATCH_FRAMES:
                        add_chunks(offsets, times, datas)
                        offsets, times, datas = [], [], []
                        self._process(pending, runs)
                        pending, held, runs = [], 0, False
            if decoder.error is not None:
                break
        add_chunks(offsets, times, datas)
        if pending:
            self._process(pending, runs)
        self._after_decoder()
        for time, data in chunks:  # the rest after a decoder error: kept, never decoded
            self._decode(data, time)

    def _decode(self, data: bytes, time: float) -> list[Decoded]:
        """Record one chunk and decode it; the frames it completed."""
        decoder = self.decoder
        self.trace.chunks.add(decoder.bytes_fed, time, data)
        items = decoder.feed_runs(data, time)
        if self._last_frame is not None:
            self._extend_last()
        return items

    def _extend_last(self) -> None:
        last = self._last_frame
        if last is not None and last.end != self._last_end:
            # The LF of a CRLF split across chunks joined the previous frame's span.
            # (isinstance of a Frame, not of a FrameRun: that one is an ABC, ~10x slower)
            index = last.index if isinstance(last, Frame) else last.last_index
            self.trace.frames.set_end(index, last.end)
            self._last_end = last.end

    def _process(self, items: list[Decoded], runs: bool) -> None:
        """Record decoded frames and hand them to the adapter and the machine.

        ``runs=False`` says that ``items`` holds no :class:`FrameRun`.
        """
        run = items[0]
        if not runs:  # frames only (a capture recorded event by event, say)
            frames: list[Frame] = items  # type: ignore[assignment]
            self.trace.frames.extend(frames)
            self._frames(frames)
            self._last_frame = frames[-1]
            self._last_end = frames[-1].end
            return
        if len(items) == 1 and not isinstance(run, Frame):  # one chunk of plain events
            self.trace.frames.extend(run)
            self._run(run)
            self._last_frame = run
            self._last_end = run.end
            return
        self.trace.frames.extend(Frames(items))
        frames = []  # consecutive frames (not runs) are handled together
        for item in items:
            if isinstance(item, Frame):
                frames.append(item)
            else:
                if frames:
                    self._frames(frames)
                    frames = []
                self._run(item)
        if frames:
            self._frames(frames)
        self._last_frame = items[-1]
        self._last_end = items[-1].end

    def _frames(self, frames: list[Frame]) -> None:
        """Hand frames to the adapter and the machine (their record is in the trace)."""
        trace = self.trace
        machine = self.machine
        adapter = self.adapter
        adapter_feed = adapter.feed
        feed_run = adapter.feed_run
        apply = machine.apply
        starts = trace.frame_event_start
        # One entry per event, and an array: its len() is cheaper than the event log's.
        event_frame = trace.event_frame
        events = [frame.event for frame in frames]
        datas = [frame.data for frame in frames]
        i, count, index = 0, len(frames), frames[0].index
        while i < count:
            frame = frames[i]
            if machine.state in TERMINAL_STATES:
                starts.append(len(event_frame))
                trace.ignored.append(
                    Ignored(frame.index, "arrived after the terminal event", "after_terminal")
                )
                i += 1
                continue
            if frame.comment is not None:
                starts.append(len(event_frame))
                apply(Heartbeat("comment"), frame.index)
                i += 1
                continue
            block, kind, texts = feed_run(events, datas, i, index)
            if texts:
                # A run of plain deltas (see Adapter.feed_run): one event per frame.
                self._plain_deltas(frames, i, block, kind, texts, frame.index)
                i += len(texts)
                continue
            starts.append(len(event_frame))
            for action in adapter_feed(frame):
                apply(action, frame.index)
            i += 1

    def _run(self, run: FrameRun) -> None:
        """:meth:`_frames` for a decoder's run of plain events, kept as columns.

        Its plain deltas go from the run's columns to the machine in bulk
        (``Adapter.feed_run``); only a frame that is not one is built, for
        ``Adapter.feed``.
        """
        trace = self.trace
        machine = self.machine
        adapter = self.adapter
        starts = trace.frame_event_start
        event_frame = trace.event_frame
        i, count, first = 0, len(run.payloads), run.first_index
        while i < count:
            if machine.state in TERMINAL_STATES:
                for index in range(first + i, first + count):
                    starts.append(len(event_frame))
                    trace.ignored.append(
                        Ignored(index, "arrived after the terminal event", "after_terminal")
                    )
                return
            block, kind, texts = adapter.feed_run(run.events, run.payloads, i, first)
            if texts:
                self._plain_deltas(run, i, block, kind, texts, first + i)
                i += len(texts)
                continue
            starts.append(len(event_frame))
            frame = run[i]
            for action in adapter.feed(frame):
                machine.apply(action, frame.index)
            i += 1

    def _plain_deltas(
        self,
        frames: Sequence[Frame],
        i: int,
        block: int,
        kind: str,
        texts: list[str],
        index: int,
    ) -> None:
        """Record the deltas of the plain frames from ``frames[i]`` (frame ``index``)."""
        applied = self.machine.apply_deltas(block, kind, texts, index)
        if applied is not None:
            self.trace.frame_event_start.extend(applied)  # each frame's one event
        else:
            self._one_by_one(frames[i : i + len(texts)], block, kind, texts)

    def _one_by_one(self, frames: Sequence[Frame], block: int, kind: str, texts: list[str]) -> None:
        # The machine would not take the run whole (say, its block is not open): the
        # deltas go one at a time, as feed's loop applies them, for the same refusal.
        machine = self.machine
        starts = self.trace.frame_event_start
        for frame, text in zip(frames, texts, strict=True):
            starts.append(len(self.trace.event_frame))
            if machine.state in TERMINAL_STATES:
                self.trace.ignored.append(
                    Ignored(frame.index, "arrived after the terminal event", "after_terminal")
                )
            else:
                machine.apply(Delta(block, kind, text), frame.index)

    def _after_decoder(self) -> None:
        if self.decoder.error is not None and self.trace.decoder_error is None:
            self.trace.decoder_error = str(self.decoder.error)
            self.machine.fail("protocol_error", self.trace.decoder_error)

    def finish(self, end: TransportEnd | None = None) -> Trace:
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
        adapter_note = self.adapter.eof_note()
        if adapter_note:
            notes.append(adapter_note)
        self.machine.interrupt(end, "; ".join(notes) or None)
        return self.trace

    def receive_error_body(self, data: bytes, time: float = 0.0) -> None:
        """Record one chunk of an HTTP error response: kept, never decoded as SSE."""
        chunks = self.trace.chunks
        chunks.add(chunks.bytes_received, time, data)

    def fail_http(self, status: int, body: bytes | None = None) -> Trace:
        """The response was an HTTP error before any stream: end ``failed``.

        ``body`` defaults to the chunks given to :meth:`receive_error_body`.
        """
        if body is None:
            chunks = self.trace.chunks
            body = chunks.span(0, chunks.bytes_received)
        fail = self.adapter.http_error(status, body)
        self.machine.fail(fail.category, fail.message, fail.provider_code)
        self.finished = True
        return self.trace


def normalize(
    chunks: Iterable[tuple[float, bytes]] | bytes,
    provider: str | Adapter,
    stream_id: str | None = None,
    end: TransportEnd | None = None,
) -> Trace:
    """Normalize a whole stream at once (``bytes`` or ``(time, bytes)`` pairs)."""
    pieces = [(0.0, chunks)] if isinstance(chunks, bytes) else list(chunks)
    sid = stream_id or stream_id_for(*(data for _, data in pieces))
    normalizer = Normalizer(provider, sid)
    normalizer.feed_many(pieces)
    return normalizer.finish(end)
