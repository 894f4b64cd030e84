"""A streamed JSON array, as Gemini and Vertex stream without ``alt=sse``.

The body is one JSON array whose elements arrive one after another, in any
chunks: ``[{...}\\n,\\r\\n{...}\\n]``. Each element is one frame the moment
its last byte arrives: ``event`` is ``"message"`` (SSE's default name, so an
adapter reads it as it reads unnamed SSE data), ``data`` the element's JSON
text. Its span starts right after the previous element (the ``[`` or the
``,`` and any whitespace before it are in the span), so the spans tile the
stream up to the last element; the ``]`` and what follows are no frame.

Elements are found with a small scanner that follows strings (and their
escapes) and bracket depth, resuming where the last chunk left it, so one
byte at a time stays linear; whether an element is valid JSON is the
adapter's business. Anything but whitespace where the array's syntax wants
``[``, ``,`` or ``]``, or after the ``]``, stops decoding with a
:class:`~inspector.core.framing.base.FramingError` at that byte, as does an
element larger than ``max_frame``.
"""

from __future__ import annotations

import re
from typing import Final

from ..sse import Frame, Tail
from .base import ChunkedDecoder, FramingError

__all__ = ["EVENT", "JsonArrayDecoder", "rebuild"]

#: The event name of every element frame (SSE's default one).
EVENT: Final = "message"
_NAME: Final = "json-array"
_SPACE: Final = re.compile(rb"[ \t\r\n]*")
_OUTSIDE: Final = re.compile(rb'["{}\[\]]')  # what matters outside strings
_INSIDE: Final = re.compile(rb'["\\]')  # what matters inside one
_SCALAR_END: Final = re.compile(rb"[,\]\s]")
_OPEN, _VALUE, _IN, _SCALAR, _AFTER, _DONE = range(6)
_BOM: Final = b"\xef\xbb\xbf"


class JsonArrayDecoder(ChunkedDecoder):
    """Incremental decoder of a streamed JSON array; see the module docstring."""

    framing = _NAME

    def __init__(self, max_line: int = 16 << 20, max_frame: int = 16 << 20) -> None:
        super().__init__(max_line, max_frame)
        self._buf = bytearray()  # the bytes since the last element
        self._base = 0  # where _buf starts in the stream
        self._base_chunk = 0
        self._scan = 0  # where scanning resumes in _buf
        self._phase = _OPEN
        self._value = -1  # where the element being read starts in _buf
        self._depth = 0
        self._in_string = False
        self._bom = True  # a BOM may still come (only at byte 0)

    def _feed(self, chunk: bytes, base: int, time: float, ci: int) -> list[Frame]:
        buf = self._buf
        if not buf:
            self._base_chunk = ci
        buf += chunk
        out: list[Frame] = []
        if self._bom:
            if len(buf) < 3 and _BOM.startswith(bytes(buf)):
                return out
            self._bom = False
            if buf.startswith(_BOM):
                self._scan = 3
        i, size = self._scan, len(buf)
        while i < size and self.error is None:
            phase = self._phase
            if phase == _IN:
                i = self._read(buf, i)
                if self._depth == 0 and not self._in_string:
                    i = self._emit(i, time, ci, out)
                    buf, size = self._buf, len(self._buf)
                continue
            if phase == _SCALAR:
                found = _SCALAR_END.search(buf, i)
                if found is None:
                    i = size
                    break
                i = self._emit(found.start(), time, ci, out)
                buf, size = self._buf, len(self._buf)
                continue
            m = _SPACE.match(buf, i)
            i = m.end() if m is not None else i
            if i >= size:
                break
            byte = buf[i]
            if phase == _OPEN:
                if byte != 0x5B:  # [
                    self._fail(i, "the body is not a JSON array: expected '['")
                    break
                self._phase, i = _VALUE, i + 1
            elif phase == _VALUE:
                i = self._begin(buf, i, byte)
            elif phase == _AFTER:
                if byte == 0x2C:  # ,
                    self._phase, i = _VALUE, i + 1
                elif byte == 0x5D:  # ]
                    self._phase, i = _DONE, i + 1
                else:
                    self._fail(i, "expected ',' or ']' after an element")
            else:  # _DONE
                self._fail(i, "bytes after the array's closing ']'")
        self._scan = i
        if self._phase in (_IN, _SCALAR) and len(self._buf) - self._value > self.max_frame:
            what = f"an element larger than the limit of {self.max_frame} bytes starts"
            self.error = FramingError(_NAME, self._base + self._value, what)
        return out

    def _begin(self, buf: bytearray, i: int, byte: int) -> int:
        if byte == 0x5D and self._index == 0:  # ] of an empty array
            self._phase = _DONE
            return i + 1
        if byte in (0x2C, 0x5D):
            self._fail(i, "expected an element")
            return i
        self._value = i
        if byte in (0x7B, 0x5B):  # { [
            self._phase, self._depth, self._in_string = _IN, 1, False
        elif byte == 0x22:  # "
            self._phase, self._depth, self._in_string = _IN, 0, True
        else:
            self._phase = _SCALAR
        return i + 1

    def _read(self, buf: bytearray, i: int) -> int:
        """Scan an element from ``i``; stop after its last byte, or at the end of ``buf``."""
        size = len(buf)
        depth, in_string = self._depth, self._in_string
        while True:
            if in_string:
                m = _INSIDE.search(buf, i)
                if m is None:
                    i = max(i, size)  # past the end: an escape's byte is still to come
                    break
                j = m.start()
                if buf[j] == 0x5C:  # \: skip the escaped byte (it may be in the next chunk)
                    i = j + 2
                    continue
                in_string, i = False, j + 1
                if depth == 0:
                    break
            else:
                m = _OUTSIDE.search(buf, i)
                if m is None:
                    i = size
                    break
                j = m.start()
                byte = buf[j]
                i = j + 1
                if byte == 0x22:
                    in_string = True
                elif byte in (0x7B, 0x5B):
                    depth += 1
                else:
                    depth -= 1
                    if depth == 0:
                        break
        self._depth, self._in_string = depth, in_string
        return i

    def _emit(self, stop: int, time: float, ci: int, out: list[Frame]) -> int:
        buf = self._buf
        data = bytes(buf[self._value : stop]).decode("utf-8", "replace")
        start = self._base
        end = start + stop
        out.append(self._frame(EVENT, data, start, end, self._base_chunk, ci, time))
        del buf[:stop]
        self._base = end
        self._base_chunk = ci if buf else ci + 1
        self._phase, self._value = _AFTER, -1
        return 0

    def _fail(self, at: int, what: str) -> None:
        self.error = FramingError(_NAME, self._base + at, what)

    def close(self) -> Tail:
        """What was left after the last element (nothing once the ``]`` came)."""
        pending = len(self._buf)
        if self._phase == _DONE or self.error is not None or not bytes(self._buf).strip():
            return Tail(pending_bytes=0, start=self._base + pending, event=None, has_data=False)
        return Tail(pending_bytes=pending, start=self._base, event=EVENT, has_data=True)

    def tail_note(self, tail: Tail) -> str:
        """What the end of the bytes cut."""
        if self._phase in (_IN, _SCALAR):
            return f"the element at byte {tail.start} was cut ({tail.pending_bytes} bytes arrived)"
        return f"the array was never closed ({tail.pending_bytes} bytes after its last element)"


def rebuild(
    raw: bytes, index: int, id: str, start: int, end: int, first: int, last: int, time: float
) -> Frame:
    """The frame the decoder gave for these bytes: its separators dropped."""
    text = raw.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text[:1] in ("[", ","):
        text = text[1:].lstrip(" \t\r\n")
    return Frame(index, EVENT, text, id, None, None, start, end, first, last, time)
