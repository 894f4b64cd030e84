"""The AWS event stream (``application/vnd.amazon.eventstream``), as Bedrock streams.

Each message is binary::

    total length (u32) | headers length (u32) | prelude CRC32 (u32)
    headers ...        | payload ...          | message CRC32 (u32)

all big-endian; the prelude CRC covers the first 8 bytes, the message CRC
everything before it. A header is a name (u8 length + UTF-8), a type byte
and a value (:data:`HEADER_TYPES`). Both CRCs are verified: a mismatch, a
length that cannot be (under 16 bytes, headers longer than the message, more
than ``max_frame``) or a header that runs past its section stops decoding
with a :class:`~inspector.core.framing.base.FramingError` at the message's
first byte — the stream is then ``failed``/``protocol_error``. A message cut
by the end of the bytes is the tail (the transport ended: ``interrupted``),
its offset and how much of it arrived said in the note.

Each message is one :class:`~inspector.core.framing.base.HeaderFrame`:
``event`` is its ``:event-type`` (``:exception-type`` for a
``:message-type`` of ``exception``, ``:error-code`` for ``error``), ``data``
the payload as UTF-8 text, ``headers`` every header.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final
from zlib import crc32

from ..sse import Frame, Tail
from .base import ChunkedDecoder, FramingError, HeaderFrame

__all__ = [
    "HEADER_TYPES",
    "MIN_MESSAGE",
    "EventStreamDecoder",
    "encode_message",
    "event_name",
    "parse_headers",
    "payload_span",
    "prelude_valid",
    "rebuild",
    "with_payload",
]

_PRELUDE: Final = struct.Struct(">III")
_U32: Final = struct.Struct(">I")
_U16: Final = struct.Struct(">H")
#: The smallest message: prelude (12) + message CRC (4).
MIN_MESSAGE: Final = 16
_NAME: Final = "aws-eventstream"


def _fixed(fmt: str) -> tuple[int, Callable[[bytes], Any]]:
    codec = struct.Struct(fmt)
    return codec.size, lambda raw: codec.unpack(raw)[0]


#: Header value type byte -> (name, fixed size or -1 for u16-length-prefixed, decode).
HEADER_TYPES: Final[dict[int, tuple[str, int, Callable[[bytes], Any]]]] = {
    0: ("bool", 0, lambda raw: True),
    1: ("bool", 0, lambda raw: False),
    2: ("byte", *_fixed(">b")),
    3: ("short", *_fixed(">h")),
    4: ("int", *_fixed(">i")),
    5: ("long", *_fixed(">q")),
    6: ("bytes", -1, bytes),
    7: ("string", -1, lambda raw: raw.decode("utf-8", "replace")),
    8: ("timestamp", *_fixed(">q")),  # epoch milliseconds
    9: ("uuid", 16, lambda raw: _uuid(raw)),
}


def _uuid(raw: bytes) -> str:
    import uuid  # rare on the wire: not imported with the decoder

    return str(uuid.UUID(bytes=raw))


#: ``:message-type`` -> the header that names the frame's event.
_NAMED_BY: Final = {"event": ":event-type", "exception": ":exception-type", "error": ":error-code"}


class _BadHeaders(ValueError):
    """A message's header section that breaks the framing (the message says how)."""


def parse_headers(raw: bytes, at: int, end: int) -> tuple[tuple[str, Any], ...]:
    """The headers in ``raw[at:end]``; raises ValueError when they run past ``end``."""
    out: list[tuple[str, Any]] = []
    types = HEADER_TYPES
    while at < end:
        size = raw[at]
        name = raw[at + 1 : at + 1 + size].decode("utf-8", "replace")
        at += 1 + size
        if at >= end:
            raise _BadHeaders(f"header {name!r} has no value type")
        kind = raw[at]
        at += 1
        if kind == 7:  # string, by far the most common: no table lookup
            length = _U16.unpack_from(raw, at)[0] if at + 2 <= end else end
            at += 2
            if at + length > end:
                raise _BadHeaders(f"header {name!r} runs past the headers")
            value: Any = raw[at : at + length].decode("utf-8", "replace")
        else:
            rule = types.get(kind)
            if rule is None:
                raise _BadHeaders(f"header {name!r} has unknown value type {kind}")
            _, length, decode = rule
            if length < 0:
                length = _U16.unpack_from(raw, at)[0] if at + 2 <= end else end
                at += 2
            if at + length > end:
                raise _BadHeaders(f"header {name!r} runs past the headers")
            value = decode(raw[at : at + length])
        at += length
        out.append((name, value))
    return tuple(out)


def event_name(headers: tuple[tuple[str, Any], ...]) -> str:
    """The frame's event: the header its ``:message-type`` names (see the module docstring)."""
    found = dict(headers)
    message_type = found.get(":message-type")
    key = _NAMED_BY.get(message_type if isinstance(message_type, str) else "event", ":event-type")
    name = found.get(key)
    if isinstance(name, str) and name:
        return name
    return message_type if isinstance(message_type, str) and message_type else "message"


def prelude_valid(head: bytes) -> bool:
    """Whether ``head`` starts with an event-stream prelude whose CRC holds."""
    if len(head) < 12:
        return False
    total, headers, crc = _PRELUDE.unpack_from(head, 0)
    return bool(crc32(head[:8]) == crc and total >= MIN_MESSAGE and headers <= total - MIN_MESSAGE)


#: How many distinct header sections a decoder remembers (then it starts over).
_KNOWN_HEADERS: Final = 256


def _bad_lengths(offset: int, total: int, headers: int, limit: int) -> FramingError:
    if total > limit:
        return FramingError(
            _NAME, offset, f"a message of {total} bytes, over the limit of {limit} bytes,"
        )
    what = f"impossible lengths (total {total}, headers {headers}) in the message"
    return FramingError(_NAME, offset, what)


class EventStreamDecoder(ChunkedDecoder):
    """Incremental AWS event-stream decoder; see the module docstring."""

    framing = _NAME

    def __init__(self, max_line: int = 16 << 20, max_frame: int = 16 << 20) -> None:
        super().__init__(max_line, max_frame)
        self._held: list[bytes] = []  # bytes after the last message
        self._held_size = 0
        self._need = 12  # bytes to hold before the next look (a prelude, then a message)
        self._start = 0  # where the held bytes start in the stream
        self._start_chunk = 0
        # Raw header bytes -> (headers, event name): a stream repeats a handful of them.
        self._known: dict[bytes, tuple[tuple[tuple[str, Any], ...], str]] = {}

    def _feed(self, chunk: bytes, base: int, time: float, ci: int) -> list[Frame]:
        if not self._held:
            self._start_chunk = ci
        if self._held_size + len(chunk) < self._need:
            self._held.append(chunk)
            self._held_size += len(chunk)
            return []
        if self._held:
            self._held.append(chunk)
            buf = b"".join(self._held)
        else:
            buf = chunk
        out: list[Frame] = []
        at, size, start = 0, len(buf), self._start
        unpack, word, limit = _PRELUDE.unpack_from, _U32.unpack_from, self.max_frame
        first_chunk = self._start_chunk
        known = self._known
        new = object.__new__
        view = memoryview(buf)  # the CRCs read it in place
        while size - at >= 12:
            total, headers_size, crc = unpack(buf, at)
            if crc32(view[at : at + 8]) != crc:
                self.error = FramingError(_NAME, start + at, "prelude CRC mismatch in the message")
                break
            if total < MIN_MESSAGE or headers_size > total - MIN_MESSAGE or total > limit:
                self.error = _bad_lengths(start + at, total, headers_size, limit)
                break
            if size - at < total:
                self._need = total
                break
            stop = at + total
            if crc32(view[at + 8 : stop - 4], crc) != word(buf, stop - 4)[0]:
                self.error = FramingError(_NAME, start + at, "message CRC mismatch in the message")
                break
            body = at + 12 + headers_size
            raw_headers = buf[at + 12 : body]
            parsed = known.get(raw_headers)
            if parsed is None:
                try:
                    headers = parse_headers(raw_headers, 0, headers_size)
                except (ValueError, IndexError, struct.error) as exc:
                    what = f"malformed headers ({exc}) in the message"
                    self.error = FramingError(_NAME, start + at, what)
                    break
                parsed = (headers, event_name(headers))
                if len(known) >= _KNOWN_HEADERS:
                    known.clear()
                known[raw_headers] = parsed
            payload = buf[body : stop - 4]
            # Built field by field (calling the dataclass costs about twice as much);
            # the payload decodes strictly first, the fast path, U+FFFD only if it must.
            frame = new(HeaderFrame)
            frame.index = self._index
            self._index += 1
            frame.headers, frame.event = parsed
            try:
                frame.data = payload.decode()
            except UnicodeDecodeError:
                frame.data = payload.decode("utf-8", "replace")
            frame.id = ""
            frame.retry = frame.comment = None
            frame.start = start + at
            frame.end = start + stop
            frame.first_chunk = first_chunk
            frame.last_chunk = ci
            frame.time = time
            out.append(frame)
            first_chunk = ci
            at = stop
            self._need = 12
        view.release()
        rest = buf[at:] if at else buf
        self._held = [rest] if rest else []
        self._held_size = len(rest)
        self._start = start + at
        self._start_chunk = first_chunk if rest else ci + 1
        return out

    def close(self) -> Tail:
        """What was left after the last whole message."""
        if self.error is not None or not self._held_size:
            return Tail(pending_bytes=0, start=self._pos, event=None, has_data=False)
        return Tail(
            pending_bytes=self._held_size, start=self._start, event="message", has_data=True
        )

    def tail_note(self, tail: Tail) -> str:
        """Which message the bytes cut, and how much of it had arrived."""
        head = b"".join(self._held)[:12]
        if len(head) == 12 and prelude_valid(head):
            total = _PRELUDE.unpack_from(head, 0)[0]
            return (
                f"the message at byte {tail.start} was cut: {tail.pending_bytes} of its "
                f"{total} bytes arrived"
            )
        return (
            f"the message at byte {tail.start} was cut within its prelude "
            f"({tail.pending_bytes} bytes)"
        )


def rebuild(
    raw: bytes, index: int, id: str, start: int, end: int, first: int, last: int, time: float
) -> Frame:
    """The frame the decoder gave for one message's bytes (verified when it was decoded)."""
    headers_size = _PRELUDE.unpack_from(raw, 0)[1]
    headers = parse_headers(raw, 12, 12 + headers_size)
    payload = raw[12 + headers_size : -4].decode("utf-8", "replace")
    return HeaderFrame(
        index, event_name(headers), payload, id, None, None, start, end, first, last, time, headers
    )


def _encode_header(name: str, value: Any) -> bytes:
    raw_name = name.encode()
    head = bytes((len(raw_name),)) + raw_name
    if isinstance(value, bool):
        return head + (b"\x00" if value else b"\x01")
    if isinstance(value, int):
        return head + b"\x05" + struct.pack(">q", value)
    if isinstance(value, bytes):
        return head + b"\x06" + _U16.pack(len(value)) + value
    text = str(value).encode()
    return head + b"\x07" + _U16.pack(len(text)) + text


def encode_message(headers: list[tuple[str, Any]] | dict[str, Any], payload: bytes) -> bytes:
    """One event-stream message (for captures written from docs, tests and benchmarks).

    Values: str -> string, bool -> bool, int -> long, bytes -> bytes.
    """
    items = headers.items() if isinstance(headers, dict) else headers
    raw_headers = b"".join(_encode_header(name, value) for name, value in items)
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += _U32.pack(crc32(prelude))
    body = prelude + raw_headers + payload
    return body + _U32.pack(crc32(body))


def payload_span(message: bytes) -> tuple[int, int]:
    """Where one whole message's payload sits in it: ``(start, end)``."""
    headers_size = _PRELUDE.unpack_from(message, 0)[1]
    return 12 + headers_size, len(message) - 4


def with_payload(message: bytes, payload: bytes) -> bytes:
    """``message`` (one whole, valid message) with another payload: same headers, new
    total length, both CRC32s computed again (the encoder side of an export's rewrite)."""
    headers_size = _PRELUDE.unpack_from(message, 0)[1]
    raw_headers = message[12 : 12 + headers_size]
    prelude = struct.pack(">II", 12 + headers_size + len(payload) + 4, headers_size)
    prelude += _U32.pack(crc32(prelude))
    body = prelude + raw_headers + payload
    return body + _U32.pack(crc32(body))
