"""Incremental, sans-IO decoder for ``text/event-stream`` bytes.

Why this module is long: it is one class, whose general per-line path and
fast paths for whole chunks share the decoder's state byte for byte (each
fast path is checked against the general one in tests/test_core_fast_paths.py),
so they stay together. What it reports — its limits, errors and
:class:`~.outcome.Tail` — is in :mod:`.outcome`, :func:`~.span.parse_span` in
:mod:`.span`, and the run scanner's columns in :mod:`.runs`.

Theory of operation
-------------------
Bytes go in through :meth:`FrameDecoder.feed` in whatever pieces the transport
delivered; :class:`Frame` objects come out as soon as a blank line completes
an event. The rules are exactly those of the WHATWG HTML standard, section
"Interpreting an event stream":

* lines end in CRLF, LF or a lone CR, and a CR that ends one chunk may be
  followed by the LF that starts the next: that pair is one line end;
* one leading U+FEFF (BOM) is dropped, only at the start of the stream;
* ``field:value`` with one optional space after the colon; a line without a
  colon is a field with an empty value; a line starting with a colon is a
  comment;
* several ``data`` lines are joined with ``\\n``; an event whose data buffer
  is empty is not dispatched; ``event`` defaults to ``message``;
* ``id`` sets the last-event-ID buffer at once (it persists across events) and
  is ignored when it contains NUL; ``retry`` is taken only when all ASCII
  digits;
* an event left without its blank line at the end of the bytes is not
  dispatched (see :meth:`FrameDecoder.close`, which says what was left).

Unlike a browser, the decoder also reports comments (as frames with
``comment`` set), because a debugger must show heartbeats, and it remembers
where each frame came from: its byte span in the stream, the chunks it was
assembled from and the time its last byte arrived.

Work is done on whole chunks: one ``bytes.split`` on the line end the stream
uses (LF, or CRLF throughout; a regex only for lone CRs or a mix), then one
pass over the lines in which the usual event — ``data:``, or ``event:`` then
``data:``, then a blank line — becomes a frame without touching the general
per-field state (see ``_scan``). A line that spans many chunks is accumulated
without re-scanning, so feeding one byte at a time stays linear. Lines and
frames are bounded: past the limit the decoder stops with
:class:`FrameTooLarge` in :attr:`FrameDecoder.error`, having returned every
frame completed before it.

A consumer that processes events in bulk (the normalizer) calls
:meth:`FrameDecoder.feed_runs` instead of :meth:`FrameDecoder.feed`: the same
frames, but each run of plain events comes as one
:class:`~inspector.core.sse.runs.FrameRun` of columns (the run scanner's side,
:mod:`.runs`, says how they are found and read); an event whose ``event:``
line ended the previous chunk joins the run that follows (see ``_resume``).

:func:`~.span.parse_span` decodes one frame again from its bytes, which is what
lets a :class:`~inspector.core.trace.Trace` store spans instead of frames.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate
from operator import add

from .frame import Frame
from .lines import BOM, LINE_END, field_span
from .outcome import DEFAULT_MAX_FRAME, DEFAULT_MAX_LINE, DecoderError, FrameTooLarge, Tail
from .runs import _VALUE, _VALUE_CR, Decoded, FrameRun, _data_prefix, _plain_prefix

__all__ = ["FrameDecoder"]


class FrameDecoder:
    """Turns a byte stream into :class:`Frame` objects, one chunk at a time."""

    def __init__(
        self, max_line: int = DEFAULT_MAX_LINE, max_frame: int = DEFAULT_MAX_FRAME
    ) -> None:
        self.max_line = max_line
        self.max_frame = max_frame
        self.error: DecoderError | None = None
        self.last_event_id = ""
        self.retry: int | None = None
        self._frames = 0
        self._chunks = 0
        # Bytes after the last line end, where they start and in which chunk.
        self._buf = bytearray()
        self._buf_start = 0
        self._buf_chunk = 0
        self._pos = 0  # stream offset of the next byte to be fed
        self._bom_state = 0  # 0: undecided, 1: done
        self._skip_lf = False
        self._last_frame: Decoded | None = None
        # The event being assembled.
        self._data: list[bytes] = []
        self._data_size = 0
        self._event: bytes | None = None
        self._retry: int | None = None
        self._block_start = -1
        self._block_chunk = 0
        self._names: dict[bytes, str] = {}  # event name bytes -> shared str
        # Plain ``event: …`` lines seen (with their CR, for CRLF streams) -> their type.
        self._heads: tuple[dict[bytes, str], dict[bytes, str]] = ({}, {})
        # When the event being assembled is one ``event:`` line and nothing else, as
        # _scan left it at the end of a segment: that line, and its line end's length.
        self._held: tuple[bytes, int] | None = None
        self._runs = False  # whether this feed keeps runs of plain events as FrameRun

    @property
    def bytes_fed(self) -> int:
        """Total bytes given to :meth:`feed` so far."""
        return self._pos

    def feed(self, chunk: bytes, time: float = 0.0) -> list[Frame]:
        """Decode one more piece of the stream; return the frames it completed."""
        ci = self._chunks
        self._chunks += 1
        self._runs = False
        return self._feed(chunk, time, ci)  # type: ignore[return-value]  # (no run made)

    def feed_runs(self, chunk: bytes, time: float = 0.0) -> list[Decoded]:
        """:meth:`feed`, with each run of plain events kept as a :class:`FrameRun`.

        The same frames in the same order, but the usual events of a chunk come
        as one :class:`FrameRun` of columns instead of a :class:`Frame` each, for
        a consumer that can take them so (the normalizer); ``flatten`` of the
        result is what :meth:`feed` returns.
        """
        ci = self._chunks
        self._chunks += 1
        self._runs = True
        return self._feed(chunk, time, ci)

    def feed_parts(self, chunk: bytes, time: float, size: int) -> Iterator[list[Frame]]:
        """:meth:`feed` for a large chunk, in parts of about ``size`` bytes.

        The same frames, with the same chunk links (every part counts as this
        one chunk), handed over part by part, so that a caller processing them
        as they come never holds all the frames of a whole file at once. Each
        part but the last ends just after an LF, so no line is ever cut and
        even a size-limit error reads as it would for the whole chunk.
        """
        ci = self._chunks
        self._chunks += 1
        return self._parts(chunk, time, ci, size, False)  # type: ignore[return-value]

    def feed_run_parts(self, chunk: bytes, time: float, size: int) -> Iterator[list[Decoded]]:
        """:meth:`feed_parts` with runs of plain events kept whole (see :meth:`feed_runs`)."""
        ci = self._chunks
        self._chunks += 1
        return self._parts(chunk, time, ci, size, True)

    def _parts(
        self, chunk: bytes, time: float, ci: int, size: int, runs: bool
    ) -> Iterator[list[Decoded]]:
        at, end = 0, len(chunk)
        while at < end:
            self._runs = runs  # (the caller may feed between parts)
            cut = chunk.find(b"\n", at + size - 1)
            stop = end if cut < 0 else cut + 1
            yield self._feed(chunk[at:stop], time, ci)
            at = stop

    def _feed(self, chunk: bytes, time: float, ci: int) -> list[Decoded]:
        if self.error is not None or not chunk:
            self._pos += len(chunk)
            return []
        start = self._pos
        self._pos += len(chunk)
        if self._bom_state == 0:
            chunk, start = self._strip_bom(chunk, start)
            if not chunk:
                return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                # The LF of a CRLF split across chunks: part of the previous line end.
                last = self._last_frame
                if last is not None and last.end == start:
                    last.end += 1
                chunk = chunk[1:]
                start += 1
                if not chunk:
                    return []
        # The held partial line has no line end, so this is the segment's. (Bytes are looked
        # for as ints: `0x0D in chunk` goes straight to memchr, where `b"\r" in chunk` first
        # fails to read its argument as an int, an exception raised and cleared each time.)
        has_cr = 0x0D in chunk
        if (
            not has_cr
            and chunk[-2:] == b"\n\n"
            and not self._buf
            and self._block_start < 0
            and len(chunk) <= min(self.max_line, self.max_frame)
        ):
            frame = self._single(chunk, start, ci, time)
            if frame is not None:
                self._last_frame = frame
                return [frame]
        if not has_cr and 0x0A not in chunk:
            if not self._buf:
                self._buf_start = start
                self._buf_chunk = ci
            self._buf += chunk
            if len(self._buf) > self.max_line:
                self.error = FrameTooLarge("line", len(self._buf), self.max_line, self._buf_start)
            return []
        # The segment is the held partial line and the chunk. It is split as the chunk's
        # lines, the held line joined to the first: copying a whole chunk to join it to
        # the bytes held before costs about half what splitting it does.
        lines = chunk.split(b"\n")
        if self._buf:
            size = len(self._buf) + len(chunk)
            lines[0] = b"".join((self._buf, lines[0]))
            seg_start = self._buf_start
            first_chunk = self._buf_chunk
            self._buf.clear()
        else:
            size = len(chunk)
            seg_start = start
            first_chunk = ci
        out = self._lines(lines, size, has_cr, seg_start, first_chunk, ci, time)
        if out:
            self._last_frame = out[-1]
        return out

    def close(self) -> Tail:
        """End of the bytes: report what was left without its blank line."""
        if self._block_start >= 0:
            start = self._block_start
            name = self._event.decode("utf-8", "replace") if self._event else "message"
            event: str | None = name
        elif self._buf and not self._buf.startswith(b":"):
            start = self._buf_start
            event = "message"
        elif self._buf:
            start, event = self._buf_start, None
        else:
            return Tail(pending_bytes=0, start=self._pos, event=None, has_data=False)
        return Tail(
            pending_bytes=self._pos - start,
            start=start,
            event=event,
            has_data=bool(self._data) or self._buf.startswith(b"data"),
        )

    # -- internals -------------------------------------------------------

    def _strip_bom(self, chunk: bytes, start: int) -> tuple[bytes, int]:
        held = bytes(self._buf) + chunk
        if len(held) < 3 and BOM.startswith(held):
            # Could still be a BOM split across chunks: hold the bytes back.
            if not self._buf:
                self._buf_start = start
            self._buf += chunk
            return b"", start
        self._bom_state = 1
        base = self._buf_start if self._buf else start
        self._buf.clear()
        if held.startswith(BOM):
            return held[3:], base + 3
        return held, base

    def _lines(
        self,
        lines: list[bytes],
        size: int,
        has_cr: bool,
        seg_start: int,
        first_chunk: int,
        ci: int,
        time: float,
    ) -> list[Decoded]:
        # ``lines``: a segment of ``size`` bytes split on LF. The segment starts at a line
        # start and ends in a line end or a partial line.
        # Streams nearly always use one kind of line end throughout, LF or CRLF; then
        # one split on LF gives the lines (a one-byte split: splitting on b"\r\n"
        # would scan several times slower). Only a lone CR or a mix needs the regex.
        out: list[Decoded] = []
        partial = lines.pop()
        segment = (lines, partial)  # its bytes, for the rare paths that read them (_rejoin)
        # With CRs the lines are CRLF-terminated, as the paths below need, iff each
        # has exactly one CR, as its last byte, and the partial line has none. Each
        # line is checked where it is used (_regular, _slow); from the first that
        # fails, _mixed decodes the rest of the segment.
        if has_cr and 0x0D in partial:
            self._mixed(_rejoin(segment), seg_start, first_chunk, ci, time, out)
            return out
        pos = seg_start
        line_chunk = first_chunk
        done = 0  # lines decoded so far
        if self._block_start >= 0 and lines:
            done = self._resume(lines, size, has_cr, ci, time, out)
            if done:
                pos = out[-1].end
            else:
                # The segment begins inside an event: finish that one line by line, up
                # to its blank line, so that _regular can take the events after it.
                blank = b"\r" if has_cr else b""
                done = lines.index(blank) + 1 if blank in lines else len(lines)
                pos = self._slow(
                    lines[:done], has_cr, segment, seg_start, pos, line_chunk, ci, time, out
                )
            line_chunk = ci
        if pos >= 0 and done < len(lines):
            rest = lines[done:] if done else lines
            used = self._regular(rest, size, has_cr, pos, line_chunk, ci, time, out)
            if used:
                pos = out[-1].end
                line_chunk = ci
                done += used
            if done == len(lines) - 1 and self._block_start < 0:
                # Most segments of an ``event:`` + ``data:`` stream end in the next
                # event's ``event:`` line: held as _scan holds it, without its loop.
                after = self._hold_event_line(lines[done], has_cr, pos, line_chunk)
                if after is not None:
                    pos, done = after, done + 1
            if done < len(lines):
                rest = lines[done:] if done else lines
                pos = self._slow(rest, has_cr, segment, seg_start, pos, line_chunk, ci, time, out)
        if pos >= 0:
            self._hold(partial, pos, ci if lines else first_chunk)
        return out

    def _hold_event_line(self, line: bytes, cr: bool, pos: int, line_chunk: int) -> int | None:
        """What :meth:`_scan` does with one ``event:`` line that starts an event.

        The offset after the line; None, having done nothing, when the line is
        anything else (with ``cr``, a line must end in its CRLF's CR and hold
        no other).
        """
        if cr:
            if line.find(b"\r") != len(line) - 1:
                return None
            line = line[:-1]
        if line[:6] != b"event:" or len(line) > min(self.max_line, self.max_frame):
            return None
        self._spill(pos, line_chunk, line, None)
        self._held = (line, 1 + cr)
        return pos + len(line) + 1 + cr

    def _slow(
        self,
        lines: list[bytes],
        cr: bool,
        segment: tuple[list[bytes], bytes],
        seg_start: int,
        pos: int,
        line_chunk: int,
        ci: int,
        time: float,
        out: list[Decoded],
    ) -> int:
        """:meth:`_scan` for lines of the segment starting at offset ``pos``.

        With ``cr`` each line must hold exactly one CR, its CRLF's, as its last
        byte, which is dropped; if one does not, the segment from ``pos`` on has a
        lone CR or mixed line ends and :meth:`_mixed` decodes all of it (then -1,
        as after a size limit).
        """
        if cr:
            if not all(0 <= line.find(b"\r") == len(line) - 1 for line in lines):
                self._mixed(_rejoin(segment)[pos - seg_start :], pos, line_chunk, ci, time, out)
                return -1
            lines = [line[:-1] for line in lines]
        return self._scan(lines, 1 + cr, pos, line_chunk, ci, time, out)

    def _regular(
        self,
        lines: list[bytes],
        size: int,
        cr: bool,
        pos: int,
        line_chunk: int,
        ci: int,
        time: float,
        out: list[Decoded],
    ) -> int:
        """Frames for a run of events that all have one plain shape; lines used.

        A provider's stream is usually the same shape over and over: ``data:
        …`` and a blank line (OpenAI Chat, Gemini), or ``event: …``, ``data: …``
        and a blank line (Anthropic, OpenAI Responses). When every complete event
        of the segment has that shape — checked by C-level passes over strided
        slices of the line list — each frame is built in one loop iteration with
        no per-line branching. Anything else (a comment, an ``id``, an event begun
        in an earlier chunk, a line near the limits) returns 0 and is left to
        :meth:`_scan`, which gives the same frames the long way. With ``cr`` every
        line still ends in the CR of its CRLF.
        """
        if self._block_start >= 0 or not lines:
            return 0
        first = lines[0]
        period = 2 if first[:6] == b"data: " else 3 if first[:7] == b"event: " else 0
        n = len(lines) - len(lines) % period if period else 0
        blank = b"\r" if cr else b""
        limit = min(self.max_line, self.max_frame)
        # No line may pass a size limit: the segment is shorter than both, or (a
        # whole file fed at once) its longest line is — one C-level pass.
        if n == 0 or (size > limit and max(map(len, lines)) > limit):
            return 0
        # How many events from the start have the plain shape: each test is a
        # C-level pass over a column of lines; only a failing one looks closer.
        count = _plain_prefix(lines[period - 1 : n : period], blank)
        if not self._runs:
            return self._build(lines, period, count, cr, pos, line_chunk, ci, time, out)
        values = lines[period - 2 : period * count : period]
        count = _data_prefix(values, cr)
        heads: list[bytes] = []
        if period == 3 and count:
            heads = lines[0 : 3 * count : 3]
            events = self._event_names(heads, cr)
            count = len(events)
        else:
            events = ["message"] * count
        if count == 0:
            return 0
        del values[count:], heads[count:]
        # Each event also holds its lines' LFs and its blank line.
        tail = period + len(blank)
        cut = _VALUE_CR if cr else _VALUE
        sizes = map(add, map(len, heads), map(len, values)) if heads else map(len, values)
        bounds = list(map(add, accumulate(sizes, initial=pos), range(0, tail * count + 1, tail)))
        out.append(
            FrameRun(
                self._frames, events, list(map(cut, values)), bounds,
                line_chunk, ci, time, self.last_event_id,
            )
        )  # fmt: skip
        self._frames += count
        return count * period

    def _build(
        self,
        lines: list[bytes],
        period: int,
        count: int,
        cr: bool,
        pos: int,
        line_chunk: int,
        ci: int,
        time: float,
        out: list[Decoded],
    ) -> int:
        """:meth:`_regular` for :meth:`feed`: a Frame per event, built as the lines are checked.

        ``count`` events from the first end in a blank line. ``FrameRun.frames``
        would give the same frames; building them in the checking loop, with no
        columns, is what keeps :meth:`feed` as fast as a decoder that only makes
        frames.
        """
        first_frame = len(out)
        index = self._frames
        last_id = self.last_event_id
        stop = -1 if cr else None  # a value ends before the CR
        new = object.__new__
        # Frames are built field by field: calling the dataclass costs about twice as
        # much, and this is the one allocation every event pays for. Values decode
        # strictly (the fastest UTF-8 path); invalid bytes, which must become U+FFFD,
        # send the whole segment to _scan instead. The two loops differ only in
        # where the event name and the span's length come from (one loop over zipped
        # columns for both was measured 3-6% slower on data-only streams). With CRs, a
        # line must end in its CRLF's CR (0x0D) and hold no other: that is checked on the
        # bytes and text already cut, a third of what a ``find`` per line costs.
        try:
            if period == 2:
                tail = 2 + cr  # the data line's LF, then the blank line
                for line in lines[0 : 2 * count : 2]:
                    if line[:6] != b"data: ":
                        break  # from here on, _scan
                    text = line[6:stop].decode()
                    if cr and (line[-1] != 0x0D or "\r" in text):
                        break
                    end = pos + len(line) + tail
                    frame = new(Frame)
                    frame.index = index
                    frame.event = "message"
                    frame.data = text
                    frame.id = last_id
                    frame.retry = frame.comment = None
                    frame.start = pos
                    frame.end = end
                    frame.first_chunk = frame.last_chunk = ci
                    frame.time = time
                    out.append(frame)
                    index += 1
                    pos = end
            else:
                tail = 3 + cr
                name = self._name
                n = 3 * count
                for event, line in zip(lines[0:n:3], lines[1:n:3], strict=True):
                    if event[:7] != b"event: " or line[:6] != b"data: ":
                        break  # from here on, _scan
                    raw = event[6:stop]
                    text = line[6:stop].decode()
                    if cr and (
                        event[-1] != 0x0D or line[-1] != 0x0D or 0x0D in raw or "\r" in text
                    ):
                        break
                    end = pos + len(event) + len(line) + tail
                    frame = new(Frame)
                    frame.index = index
                    frame.event = name(raw)
                    frame.data = text
                    frame.id = last_id
                    frame.retry = frame.comment = None
                    frame.start = pos
                    frame.end = end
                    frame.first_chunk = frame.last_chunk = ci
                    frame.time = time
                    out.append(frame)
                    index += 1
                    pos = end
        except UnicodeDecodeError:
            del out[first_frame:]
            return 0
        if index == self._frames:
            return 0
        out[first_frame].first_chunk = line_chunk  # the first may have begun in a held line
        used = (index - self._frames) * period
        self._frames = index
        return used

    def _event_names(self, heads: list[bytes], cr: bool) -> list[str]:
        """The event types of the ``event: …`` lines from the first; stops at any other line.

        A line is looked up whole (with its CR when ``cr``) among the lines
        already seen, which checks its shape and names its type in one step.
        """
        seen = self._heads[cr]
        try:
            return list(map(seen.__getitem__, heads))
        except KeyError:
            pass  # a head not seen yet: checked and remembered one by one below
        names: list[str] = []
        for line in heads:
            name = seen.get(line)
            if name is None:
                if line[:7] != b"event: " or (cr and line.find(b"\r") != len(line) - 1):
                    break
                name = self._name(line[6:-1] if cr else line[6:])
                if len(seen) < 256:  # the types of a stream repeat
                    seen[line] = name
            names.append(name)
        return names

    def _single(self, chunk: bytes, start: int, ci: int, time: float) -> Frame | None:
        """The frame of a chunk that is exactly one plain event, else None (decode it whole).

        Live streams and their captures arrive one event per chunk: ``data: …``
        or ``event: …`` + ``data: …``, then the blank line, nothing held from
        before (the caller checks that, the LF ending and the size limits).
        The frame is the one :meth:`_regular` builds, without splitting lines.
        """
        lines = chunk.count(b"\n")
        if lines == 2 and chunk[:6] == b"data: ":
            event, data = "message", chunk[6:-2]
        elif lines == 3 and chunk[:7] == b"event: ":
            cut = chunk.index(b"\n") + 1
            if chunk[cut : cut + 6] != b"data: ":
                return None
            event, data = self._name(chunk[6 : cut - 1]), chunk[cut + 6 : -2]
        else:
            return None
        try:
            text = data.decode()  # strict, as _regular decodes
        except UnicodeDecodeError:
            return None
        frame: Frame = object.__new__(Frame)
        frame.index = self._frames
        frame.event = event
        frame.data = text
        frame.id = self.last_event_id
        frame.retry = frame.comment = None
        frame.start = start
        frame.end = start + len(chunk)
        frame.first_chunk = frame.last_chunk = ci
        frame.time = time
        self._frames += 1
        return frame

    def _scan(
        self,
        lines: list[bytes],
        step: int,
        pos: int,
        line_chunk: int,
        ci: int,
        time: float,
        out: list[Decoded],
    ) -> int:
        """Interpret complete lines that each end in ``step`` bytes.

        Returns the stream offset after the last line, or -1 when a size limit
        stopped decoding. Most events are one ``data:`` line, or ``event:`` then
        ``data:``, then a blank line: those are held in locals (``f_*``) and become
        a frame at the blank line without touching the general per-field state —
        this fast path is what makes decoding cost about one slice, one decode and
        one :class:`Frame` per event. Any other line first hands what the fast path
        holds to the general state (:meth:`_spill`), then goes through
        :meth:`_line`, so both paths give exactly the same frames.
        """
        limit = min(self.max_line, self.max_frame)
        f_start = -1  # where the event held by the fast path starts (-1: none)
        f_chunk = 0
        f_event: bytes | None = None  # its ``event:`` line
        f_data: bytes | None = None  # its ``data:`` line
        for line in lines:
            end = pos + len(line) + step
            if not line:
                if f_data is not None:
                    value = f_data[6:] if f_data[5:6] == b" " else f_data[5:]
                    out.append(
                        Frame(
                            self._frames,
                            self._name(f_event[6:]) if f_event is not None else "message",
                            value.decode("utf-8", "replace"),
                            self.last_event_id, None, None, f_start, end, f_chunk, ci, time,
                        )
                    )  # fmt: skip
                    self._frames += 1
                    f_start, f_event, f_data = -1, None, None
                elif f_start >= 0:  # an ``event:`` line without data: nothing to dispatch
                    f_start, f_event = -1, None
                elif not self._line(line, pos, end, line_chunk, ci, time, out):
                    return -1
            elif (
                f_data is None
                and line[:5] == b"data:"
                and self._block_start < 0
                and len(line) <= limit
            ):
                f_data = line
                if f_start < 0:
                    f_start, f_chunk = pos, line_chunk
            elif (
                f_start < 0
                and line[:6] == b"event:"
                and self._block_start < 0
                and len(line) <= limit
            ):
                f_event, f_start, f_chunk = line, pos, line_chunk
            else:
                if f_start >= 0:
                    self._spill(f_start, f_chunk, f_event, f_data)
                    f_start, f_event, f_data = -1, None, None
                if not self._line(line, pos, end, line_chunk, ci, time, out):
                    return -1
            pos = end
            line_chunk = ci
        if f_start >= 0:
            self._spill(f_start, f_chunk, f_event, f_data)
            if f_data is None and f_event is not None:
                self._held = (f_event, step)
        return pos

    def _resume(
        self, lines: list[bytes], size: int, cr: bool, ci: int, time: float, out: list[Decoded]
    ) -> int:
        """The event begun in an earlier segment, as the first of a run; lines used.

        A segment usually begins inside an event whose ``event:`` line came at
        the end of the previous one (period-3 streams, such as Anthropic's, cut
        into chunks). When that line is all the event holds so far, the event is
        decoded with the plain events after it, by :meth:`_regular` (which sees
        the held line as the run's first); 0 when it cannot be, for the line by
        line path. The count excludes the held line, which is not in ``lines``.
        """
        held = self._held
        if held is None or held[1] != 1 + cr or self._data or self._retry is not None:
            return 0
        line = held[0] + b"\r" if cr else held[0]  # as _regular sees lines: CR kept
        start, chunk = self._block_start, self._block_chunk
        self._block_start = -1  # _regular starts outside an event
        used = self._regular([line, *lines], size + len(line), cr, start, chunk, ci, time, out)
        if not used:
            self._block_start = start
            return 0
        self._reset_block()
        return used - 1

    def _spill(self, start: int, chunk: int, event: bytes | None, data: bytes | None) -> None:
        """Hand the fast path's held lines to the general state (within the limits)."""
        self._block_start = start
        self._block_chunk = chunk
        for line in (event, data):
            if line is not None:
                self._field(line, start)

    def _mixed(
        self, segment: bytes, pos: int, line_chunk: int, ci: int, time: float, out: list[Decoded]
    ) -> None:
        """Decode a segment with lone CRs or mixed line ends, one line at a time."""
        pieces = LINE_END.split(segment)
        self._skip_lf = segment.endswith(b"\r")
        partial = pieces.pop()
        for i in range(0, len(pieces), 2):
            line = pieces[i]
            line_end = pos + len(line) + len(pieces[i + 1])
            if not self._line(line, pos, line_end, line_chunk, ci, time, out):
                return
            pos = line_end
            line_chunk = ci
        self._hold(partial, pos, line_chunk)

    def _line(
        self,
        line: bytes,
        line_start: int,
        line_end: int,
        line_chunk: int,
        ci: int,
        time: float,
        out: list[Decoded],
    ) -> bool:
        """Interpret one complete line; False when a size limit stopped decoding."""
        self._held = None  # the event being assembled now holds more than an event: line
        if not line:
            if self._data:
                out.append(self._dispatch(line_end, ci, time))
            self._reset_block()
        elif line[0] == 0x3A:  # ':'
            text = line[2:] if line[1:2] == b" " else line[1:]
            out.append(
                Frame(
                    self._frames, "", "", self.last_event_id, None,
                    text.decode("utf-8", "replace"),
                    line_start, line_end, line_chunk, ci, time,
                )
            )  # fmt: skip
            self._frames += 1
        else:
            if self._block_start < 0:
                self._block_start = line_start
                self._block_chunk = line_chunk
            if not self._field(line, line_start):
                return False
        if len(line) > self.max_line:
            self.error = FrameTooLarge("line", len(line), self.max_line, line_start)
            return False
        return True

    def _name(self, raw: bytes) -> str:
        """The event type named by an ``event:`` value (one leading space dropped)."""
        name = self._names.get(raw)
        if name is None:
            value = raw[1:] if raw[:1] == b" " else raw
            name = value.decode("utf-8", "replace") if value else "message"
            if len(self._names) < 256:  # names repeat: decode once, share one str
                self._names[raw] = name
        return name

    def _hold(self, partial: bytes, start: int, chunk: int) -> None:
        """Keep the unterminated last line until its line end arrives."""
        if partial:
            self._buf += partial
            self._buf_start = start
            self._buf_chunk = chunk
            if len(partial) > self.max_line:
                self.error = FrameTooLarge("line", len(partial), self.max_line, start)

    def _field(self, line: bytes, line_start: int) -> bool:
        name_end, value_start = field_span(line, 0, len(line))
        name, value = line[:name_end], line[value_start:]
        if name == b"data":
            self._data.append(value)
            self._data_size += len(value) + 1
            if self._data_size > self.max_frame:
                self.error = FrameTooLarge(
                    "event", self._data_size, self.max_frame, self._block_start
                )
                return False
        elif name == b"event":
            self._event = value
        elif name == b"id":
            if b"\0" not in value:
                self.last_event_id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():
            self._retry = self.retry = int(value)
        return True

    def _dispatch(self, end: int, ci: int, time: float) -> Frame:
        data = self._data
        raw = data[0] if len(data) == 1 else b"\n".join(data)
        event = self._event
        frame = Frame(
            self._frames,
            event.decode("utf-8", "replace") if event else "message",
            raw.decode("utf-8", "replace"),
            self.last_event_id,
            self._retry,
            None,
            self._block_start,
            end,
            self._block_chunk,
            ci,
            time,
        )
        self._frames += 1
        return frame

    def _reset_block(self) -> None:
        self._held = None
        self._data = []
        self._data_size = 0
        self._event = None
        self._retry = None
        self._block_start = -1


def _rejoin(segment: tuple[list[bytes], bytes]) -> bytes:
    """The bytes of a segment split on LF: its complete lines and its partial last line."""
    lines, partial = segment
    return b"\n".join((*lines, partial))
