"""Scrubbing credentials out of a body in its own framing, so the capture stays decodable.

:class:`~inspector.redact.SecretScrubber` replaces a secret's bytes wherever
they are. In a text framing (SSE, NDJSON, a JSON array) that is all there is
to it. In the AWS event stream a message states its length and carries two
CRC32s: replacing bytes inside it in place would turn a secret into a CRC
mismatch (or a wrong length) in the capture — a stream that never failed
would replay as ``failed``. So :class:`EventStreamScrubber` takes the body a
whole message at a time and, only when a message holds a secret, rebuilds it
around the scrubbed payload with its lengths and CRCs recomputed. The base64
``bytes`` of Bedrock invoke's ``chunk`` events are scrubbed decoded and
encoded again, so the inner event stays valid JSON.

A message whose own CRCs do not hold is scrubbed in place, never rebuilt: a
rebuild would hide the damage the stream really had. The same goes for
everything after the framing breaks (a bad prelude, a message over the
limit). The app always gets the bytes as sent; only the recorded copy is
scrubbed.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Final, Protocol
from zlib import crc32

import orjson

from ..core.framing.eventstream import prelude_valid
from ..redact import SecretScrubber

__all__ = ["BodyScrubber", "EventStreamScrubber", "body_scrubber"]

_PRELUDE: Final = struct.Struct(">III")
_U32: Final = struct.Struct(">I")
#: The largest message taken whole (the decoder's own default limit).
MAX_MESSAGE: Final = 16 << 20


class BodyScrubber(Protocol):
    """What live mode and the proxy feed a body through before it is recorded."""

    def feed(self, data: bytes) -> bytes:
        """The next piece, scrubbed (the end may be held back for the next call)."""
        ...

    def flush(self) -> bytes:
        """The end of the body: whatever is still held back, scrubbed."""
        ...


def body_scrubber(scrubber: SecretScrubber, framing: str) -> BodyScrubber:
    """The scrubber for a body in ``framing``: ``scrubber`` itself for the text framings."""
    if framing == "aws-eventstream" and scrubber.active:
        return EventStreamScrubber(scrubber)
    return scrubber


def _frame(raw_headers: bytes, payload: bytes) -> bytes:
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += _U32.pack(crc32(prelude))
    body = prelude + raw_headers + payload
    return body + _U32.pack(crc32(body))


class EventStreamScrubber:
    """A :class:`BodyScrubber` for the AWS event stream (see the module docstring)."""

    def __init__(self, scrubber: SecretScrubber) -> None:
        self.scrubber = scrubber
        self._held = bytearray()
        self._broken = False  # the framing broke: scrub in place from here on

    def feed(self, data: bytes) -> bytes:
        """Whole messages of what has arrived, scrubbed; a partial one is held back."""
        if self._broken:
            return self.scrubber.feed(data)
        held = self._held
        held += data
        out: list[bytes] = []
        at = 0
        while len(held) - at >= 12:
            total = _U32.unpack_from(held, at)[0]
            if not prelude_valid(bytes(held[at : at + 12])) or total > MAX_MESSAGE:
                self._broken = True
                out.append(self.scrubber.feed(bytes(held[at:])))
                at = len(held)
                break
            if len(held) - at < total:
                break
            out.append(self._message(bytes(held[at : at + total])))
            at += total
        del held[:at]
        return b"".join(out)

    def flush(self) -> bytes:
        """A cut message at the end is scrubbed in place (it is the stream's tail)."""
        rest = bytes(self._held)
        self._held.clear()
        if self._broken:
            return self.scrubber.flush()
        return self.scrubber.scrub(rest) if rest else b""

    def _message(self, message: bytes) -> bytes:
        scrub = self.scrubber.scrub
        if scrub(message) == message:
            return message  # nothing to hide: the message as sent, byte for byte
        if crc32(message[:-4]) != _U32.unpack_from(message, len(message) - 4)[0]:
            return scrub(message)  # damaged already: never made whole by a rebuild
        headers_size = _PRELUDE.unpack_from(message, 0)[1]
        raw_headers = message[12 : 12 + headers_size]
        payload = message[12 + headers_size : -4]
        clean_headers = scrub(raw_headers)
        try:
            if clean_headers != raw_headers:
                clean_headers = self._headers(raw_headers)
        except (ValueError, IndexError, struct.error):
            return scrub(message)  # headers the decoder will refuse: nothing to keep whole
        return _frame(clean_headers, self._payload(payload))

    def _headers(self, raw: bytes) -> bytes:
        """The header section with each string and bytes value scrubbed; typed values
        (bool, number, time, uuid) hold no secret and keep their bytes."""
        out = []
        for start, value_at, end, kind in _header_spans(raw):
            if kind in _SIZED:
                value = self.scrubber.scrub(raw[value_at + 2 : end])
                out.append(raw[start:value_at] + struct.pack(">H", len(value)) + value)
            else:
                out.append(raw[start:end])
        return b"".join(out)

    def _payload(self, payload: bytes) -> bytes:
        """The payload scrubbed; an invoke ``chunk``'s base64 ``bytes`` scrubbed decoded."""
        scrub = self.scrubber.scrub
        try:
            document = orjson.loads(payload)
            inner = document.get("bytes") if isinstance(document, dict) else None
            decoded = base64.b64decode(inner, validate=True) if isinstance(inner, str) else None
        except (orjson.JSONDecodeError, binascii.Error, ValueError):
            decoded = None
        if decoded is None:
            return scrub(payload)
        document["bytes"] = base64.b64encode(scrub(decoded)).decode()
        return scrub(orjson.dumps(document))


#: Header value type -> its fixed size; the others (bytes 6, string 7) are u16-sized.
_FIXED: Final = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_SIZED: Final = frozenset({6, 7})


def _header_spans(raw: bytes) -> list[tuple[int, int, int, int]]:
    """Each header of a (CRC-checked) section: (start, value start, end, value type)."""
    spans = []
    at = 0
    while at < len(raw):
        start = at
        at += 1 + raw[at]
        kind = raw[at]
        at += 1
        if kind not in _FIXED and kind not in _SIZED:
            raise ValueError(f"unknown header value type {kind}")
        length = _FIXED[kind] if kind in _FIXED else 2 + struct.unpack_from(">H", raw, at)[0]
        spans.append((start, at, at + length, kind))
        at += length
    return spans
